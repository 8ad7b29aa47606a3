// Package corpustok is the tokenizer of feather's generated models: a
// byte-level BPE trained in Go on an embedded corpus, written as the
// Hugging Face tokenizer files (tokenizer.json, tokenizer_config.json,
// special_tokens_map.json). The built-in smoke model and the test models
// share it, so both load through the same tokenizer code as real exports.
package corpustok

import (
	"bytes"
	"container/heap"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/dlclark/regexp2"

	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// The tokenizer's special tokens and their ids.
const (
	EOSID     = 0 // <|endoftext|>, also the padding token
	BOSID     = 1 // <|begin_of_text|>
	IMStartID = 2 // <|im_start|>
	IMEndID   = 3 // <|im_end|>
	// MinVocab is the smallest vocabulary: the special tokens and one token per byte.
	MinVocab = len(specialTokens) + 256
)

var specialTokens = [...]string{"<|endoftext|>", "<|begin_of_text|>", "<|im_start|>", "<|im_end|>"}

// ChatML is a ChatML chat template, as SmolLM and Qwen use.
const ChatML = "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

//go:embed corpus.txt
var corpus string

// gpt2Split is GPT-2's pre-tokenizer pattern (the ByteLevel pre-tokenizer
// with use_regex), used to cut the training text into words.
const gpt2Split = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

// BPE is a byte-level BPE vocabulary: ids are positions in vocab; merges
// are in rank order.
type BPE struct {
	vocab  []string
	merges [][2]string
}

// byteRunes is GPT-2's bytes_to_unicode: printable bytes stand for
// themselves, the rest map to code points from 256 up, so every byte is
// one visible character in vocab and merges.
var byteRunes = func() [256]rune {
	var m [256]rune
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}()

func byteLevel(s string) []string {
	out := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		out[i] = string(byteRunes[s[i]])
	}
	return out
}

var (
	learnedOnce sync.Once
	learned     [][2]string
	learnErr    error
	tokCache    sync.Map // size → *BPE
)

// New returns the vocabulary of exactly size tokens: special
// tokens, the 256 byte tokens, merges learned from the embedded corpus in
// order, and, when the corpus runs out of pairs seen twice, synthetic
// merges of existing word pieces (so large vocabularies such as the
// 32k perf fixture still decode every id to text).
func New(size int) (*BPE, error) {
	if size < MinVocab {
		return nil, fmt.Errorf("corpustok: a vocabulary of %d is below the minimum %d", size, MinVocab)
	}
	if t, ok := tokCache.Load(size); ok {
		return t.(*BPE), nil
	}
	learnedOnce.Do(func() { learned, learnErr = train(trainingText(), 1<<20) })
	if learnErr != nil {
		return nil, learnErr
	}
	t := &BPE{vocab: append([]string(nil), specialTokens[:]...)}
	for b := 0; b < 256; b++ {
		t.vocab = append(t.vocab, string(byteRunes[b]))
	}
	known := map[string]bool{}
	for _, v := range t.vocab {
		known[v] = true
	}
	for _, m := range learned {
		if len(t.vocab) == size {
			break
		}
		t.merges = append(t.merges, m)
		t.vocab = append(t.vocab, m[0]+m[1])
		known[m[0]+m[1]] = true
	}
	t.fillSynthetic(size, known)
	tokCache.Store(size, t)
	return t, nil
}

// fillSynthetic adds merges of a word piece and a continuation piece
// (letters only) until the vocabulary has size tokens.
func (t *BPE) fillSynthetic(size int, known map[string]bool) {
	var starts, conts []string
	for _, v := range t.vocab[len(specialTokens):] {
		body := strings.TrimPrefix(v, "Ġ")
		if body == "" || !allLetters(body) {
			continue
		}
		starts = append(starts, v)
		if body == v {
			conts = append(conts, v)
		}
	}
	r := seeded.New(0x5eed)
	for len(t.vocab) < size {
		a := starts[r.Next()%uint64(len(starts))]
		b := conts[r.Next()%uint64(len(conts))]
		if known[a+b] || len([]rune(a+b)) > 12 {
			continue
		}
		known[a+b] = true
		t.merges = append(t.merges, [2]string{a, b})
		t.vocab = append(t.vocab, a+b)
		starts = append(starts, a+b)
	}
}

func allLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) || r > 0x7f {
			return false
		}
	}
	return true
}

// trainingText is the corpus followed by sentences drawn from its words,
// so every word is seen often enough to become a token.
func trainingText() string {
	var words []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(corpus) {
		f = strings.Trim(f, ".,:;!?\"()[]{}")
		if f != "" && allLetters(f) && !seen[f] {
			seen[f] = true
			words = append(words, f)
		}
	}
	var sb strings.Builder
	sb.WriteString(corpus)
	r := seeded.New(0xc0ffee)
	for rep := 0; rep < 4; rep++ {
		perm := append([]string(nil), words...)
		for i := len(perm) - 1; i > 0; i-- {
			j := int(r.Next() % uint64(i+1))
			perm[i], perm[j] = perm[j], perm[i]
		}
		for i := 0; i < len(perm); i += 8 {
			s := perm[i:min(i+8, len(perm))]
			sb.WriteString(strings.ToUpper(s[0][:1]) + s[0][1:])
			for _, w := range s[1:] {
				sb.WriteString(" " + w)
			}
			sb.WriteString(". ")
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// train learns up to maxMerges byte-level BPE merges from text: the most
// frequent adjacent pair wins, ties going to the smaller pair in byte
// order; training stops when no pair occurs twice.
func train(text string, maxMerges int) ([][2]string, error) {
	re := regexp2.MustCompile(gpt2Split, regexp2.None)
	counts := map[string]int{}
	m, err := re.FindStringMatch(text)
	for m != nil && err == nil {
		counts[m.String()]++
		m, err = re.FindNextMatch(m)
	}
	if err != nil {
		return nil, fmt.Errorf("corpustok: splitting the tokenizer corpus: %w", err)
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	type word struct {
		syms []string
		n    int
	}
	words := make([]word, len(keys))
	pairs := map[[2]string]int{}
	where := map[[2]string]map[int]bool{}
	for i, k := range keys {
		words[i] = word{syms: byteLevel(k), n: counts[k]}
	}
	addPairs := func(i, sign int) {
		w := words[i]
		for j := 0; j+1 < len(w.syms); j++ {
			p := [2]string{w.syms[j], w.syms[j+1]}
			pairs[p] += sign * w.n
			if sign > 0 {
				if where[p] == nil {
					where[p] = map[int]bool{}
				}
				where[p][i] = true
			}
		}
	}
	for i := range words {
		addPairs(i, 1)
	}
	h := &pairHeap{}
	for p, n := range pairs {
		heap.Push(h, pairCount{p, n})
	}
	var merges [][2]string
	for len(merges) < maxMerges && h.Len() > 0 {
		top := heap.Pop(h).(pairCount)
		if pairs[top.p] != top.n {
			continue // stale entry; the current count was pushed again
		}
		if top.n < 2 {
			break
		}
		merges = append(merges, top.p)
		touched := map[[2]string]bool{}
		ids := make([]int, 0, len(where[top.p]))
		for i := range where[top.p] {
			ids = append(ids, i)
		}
		sort.Ints(ids)
		for _, i := range ids {
			old := words[i].syms
			for j := 0; j+1 < len(old); j++ {
				touched[[2]string{old[j], old[j+1]}] = true
			}
			addPairs(i, -1)
			var merged []string
			for j := 0; j < len(old); j++ {
				if j+1 < len(old) && old[j] == top.p[0] && old[j+1] == top.p[1] {
					merged = append(merged, old[j]+old[j+1])
					j++
				} else {
					merged = append(merged, old[j])
				}
			}
			words[i].syms = merged
			addPairs(i, 1)
			for j := 0; j+1 < len(merged); j++ {
				touched[[2]string{merged[j], merged[j+1]}] = true
			}
		}
		delete(where, top.p)
		for p := range touched {
			if n := pairs[p]; n > 0 {
				heap.Push(h, pairCount{p, n})
			}
		}
	}
	return merges, nil
}

type pairCount struct {
	p [2]string
	n int
}

// pairHeap pops the highest count first, then the smallest pair.
type pairHeap []pairCount

func (h pairHeap) Len() int { return len(h) }
func (h pairHeap) Less(i, j int) bool {
	if h[i].n != h[j].n {
		return h[i].n > h[j].n
	}
	if h[i].p[0] != h[j].p[0] {
		return h[i].p[0] < h[j].p[0]
	}
	return h[i].p[1] < h[j].p[1]
}
func (h pairHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)   { *h = append(*h, x.(pairCount)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// tokenizerJSON is tokenizer.json in the layout the tokenizers library
// writes: byte-level BPE, BOS added by a TemplateProcessing post-processor
// (as Llama 3 does), special tokens as added tokens.
func (t *BPE) tokenizerJSON() ([]byte, error) {
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	var addedTokens []added
	for id, s := range specialTokens {
		addedTokens = append(addedTokens, added{ID: id, Content: s, Special: true})
	}
	bos := specialTokens[BOSID]
	special := func(id string) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": id, "type_id": 0}}
	}
	seq := func(id string) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": id, "type_id": 0}}
	}
	merges := make([]string, len(t.merges))
	for i, m := range t.merges {
		merges[i] = m[0] + " " + m[1]
	}
	vocab := make(orderedMap, len(t.vocab))
	for id, s := range t.vocab {
		vocab[id] = kv{s, id}
	}
	doc := orderedMap{
		{"version", "1.0"},
		{"truncation", nil},
		{"padding", nil},
		{"added_tokens", addedTokens},
		{"normalizer", nil},
		{"pre_tokenizer", orderedMap{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}},
		{"post_processor", orderedMap{
			{"type", "TemplateProcessing"},
			{"single", []any{special(bos), seq("A")}},
			{"pair", []any{special(bos), seq("A"), special(bos), seq("B")}},
			{"special_tokens", map[string]any{bos: map[string]any{"id": bos, "ids": []int{BOSID}, "tokens": []string{bos}}}},
		}},
		{"decoder", orderedMap{{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}}},
		{"model", orderedMap{
			{"type", "BPE"},
			{"dropout", nil},
			{"unk_token", nil},
			{"continuing_subword_prefix", nil},
			{"end_of_word_suffix", nil},
			{"fuse_unk", false},
			{"byte_fallback", false},
			{"ignore_merges", false},
			{"vocab", vocab},
			{"merges", merges},
		}},
	}
	return JSON(doc)
}

// kv and orderedMap write JSON objects in a fixed key order.
type kv struct {
	k string
	v any
}

type orderedMap []kv

func (o orderedMap) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalCompact(e.k)
		if err != nil {
			return nil, err
		}
		v, err := marshalCompact(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshalCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// JSON is how every JSON file of a generated folder is written: indented,
// without HTML escaping (so "<|im_end|>" stays readable), as Python's
// json.dumps(indent=2, ensure_ascii=False) does.
func JSON(v any) ([]byte, error) {
	raw, err := marshalCompact(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
