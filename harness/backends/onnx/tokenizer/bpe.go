package tokenizer

import (
	"fmt"
	"unicode/utf8"
)

// bpe is a byte-pair-encoding model as the Rust tokenizers run it: a word
// starts as one symbol per character (or its <0xXX> bytes, or unk), then
// the lowest-ranked adjacent pair is merged until none is left.
type bpe struct {
	vocab map[string]int
	// merges maps a pair of ids to its rank and the merged token's id.
	merges       map[uint64]merge
	unk          int // -1 when the model has no unk token
	fuseUnk      bool
	byteFallback bool
	ignoreMerges bool
	prefix       string // continuing_subword_prefix
	suffix       string // end_of_word_suffix
	byteIDs      [256]int

	// cache holds words by their text; rawCache holds byte-level words by
	// their bytes before mapping, so a hit costs no mapping.
	cache, rawCache *wordCache
}

type merge struct{ rank, id int32 }

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// newBPE builds the model. merges are (left, right) token pairs in rank
// order; where names each merge in errors ("model.merges[3]").
func newBPE(vocab map[string]int, merges [][2]string, where func(i int) string, unk string, prefix, suffix string) (*bpe, error) {
	m := &bpe{vocab: vocab, merges: make(map[uint64]merge, len(merges)), unk: -1, prefix: prefix, suffix: suffix,
		cache: newWordCache(), rawCache: newWordCache()}
	if unk != "" {
		id, ok := vocab[unk]
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocabulary", unk)
		}
		m.unk = id
	}
	for i, p := range merges {
		a, ok := vocab[p[0]]
		if !ok {
			return nil, fmt.Errorf("%s: merge %q %q: token %q is not in the vocabulary", where(i), p[0], p[1], p[0])
		}
		b, ok := vocab[p[1]]
		if !ok {
			return nil, fmt.Errorf("%s: merge %q %q: token %q is not in the vocabulary", where(i), p[0], p[1], p[1])
		}
		right := p[1]
		if len(prefix) > 0 && len(right) >= len(prefix) && right[:len(prefix)] == prefix {
			right = right[len(prefix):]
		}
		id, ok := vocab[p[0]+right]
		if !ok {
			return nil, fmt.Errorf("%s: merge %q %q: the merged token %q is not in the vocabulary", where(i), p[0], p[1], p[0]+right)
		}
		m.merges[pairKey(a, b)] = merge{int32(i), int32(id)}
	}
	for b := range m.byteIDs {
		id, ok := vocab[fmt.Sprintf("<0x%02X>", b)]
		if !ok {
			id = -1
		}
		m.byteIDs[b] = id
	}
	return m, nil
}

// encodeWord appends the ids of one pre-token to dst.
func (m *bpe) encodeWord(dst []int, word string) []int {
	if word == "" {
		return dst
	}
	if m.ignoreMerges {
		if id, ok := m.vocab[word]; ok {
			return append(dst, id)
		}
	}
	if ids, ok := m.cache.get(word); ok {
		return append(dst, ids...)
	}
	ids := m.merge(m.symbols(word))
	m.cache.put(word, ids)
	return append(dst, ids...)
}

// encodeRaw is encodeWord for a pre-token whose bytes still need mapping
// to the byte-level alphabet.
func (m *bpe) encodeRaw(dst []int, raw string) []int {
	if ids, ok := m.rawCache.get(raw); ok {
		return append(dst, ids...)
	}
	start := len(dst)
	dst = m.encodeWord(dst, byteLevelEncode(raw))
	m.rawCache.put(raw, append([]int(nil), dst[start:]...))
	return dst
}

// symbols is the word before merging: one id per character, byte-fallback
// ids for characters outside the vocabulary, and unk (fused when asked)
// for what is left. Characters with neither are dropped, as in Rust.
func (m *bpe) symbols(word string) []int {
	syms := make([]int, 0, len(word))
	pendingUnk := false
	for i := 0; i < len(word); {
		_, w := utf8.DecodeRuneInString(word[i:])
		s := word[i : i+w]
		if i > 0 && m.prefix != "" {
			s = m.prefix + s
		}
		if i+w == len(word) && m.suffix != "" {
			s += m.suffix
		}
		i += w
		if id, ok := m.vocab[s]; ok {
			if pendingUnk {
				syms = append(syms, m.unk)
				pendingUnk = false
			}
			syms = append(syms, id)
			continue
		}
		if m.byteFallback && m.allBytes(s) {
			// Rust adds the byte tokens without flushing a pending unk, so
			// the unk lands after them.
			for k := 0; k < len(s); k++ {
				syms = append(syms, m.byteIDs[s[k]])
			}
			continue
		}
		if m.unk >= 0 {
			if pendingUnk && !m.fuseUnk {
				syms = append(syms, m.unk)
			}
			pendingUnk = true
		}
	}
	if pendingUnk {
		syms = append(syms, m.unk)
	}
	return syms
}

func (m *bpe) allBytes(s string) bool {
	for k := 0; k < len(s); k++ {
		if m.byteIDs[s[k]] < 0 {
			return false
		}
	}
	return true
}

// merge applies merges lowest rank first, leftmost first among equal
// ranks: Rust's Word::merge_all with a binary heap of candidate pairs.
// It works in place on ids and returns the merged prefix of it.
func (m *bpe) merge(ids []int) []int {
	n := len(ids)
	if n < 2 {
		return ids
	}
	// next[i] is the symbol after i (-1 at the end), prev[i] the one
	// before; a merged-away symbol gets prev -2.
	links := make([]int32, 2*n)
	prev, next := links[:n], links[n:]
	for i := range n {
		prev[i], next[i] = int32(i-1), int32(i+1)
	}
	next[n-1] = -1
	h := make(mergeHeap, 0, n)
	for i := 0; i+1 < n; i++ {
		if mg, ok := m.merges[pairKey(ids[i], ids[i+1])]; ok {
			h.push(candidate{pos: int32(i), rank: mg.rank, id: mg.id})
		}
	}
	for len(h) > 0 {
		c := h.pop()
		pos := c.pos
		right := next[pos]
		if prev[pos] == -2 || right < 0 {
			continue
		}
		// Skip entries made stale by an earlier merge at either side.
		if mg, ok := m.merges[pairKey(ids[pos], ids[right])]; !ok || mg.id != c.id {
			continue
		}
		ids[pos] = int(c.id)
		prev[right] = -2
		next[pos] = next[right]
		if nx := next[pos]; nx >= 0 {
			prev[nx] = pos
			if mg, ok := m.merges[pairKey(ids[pos], ids[nx])]; ok {
				h.push(candidate{pos: pos, rank: mg.rank, id: mg.id})
			}
		}
		if p := prev[pos]; p >= 0 {
			if mg, ok := m.merges[pairKey(ids[p], ids[pos])]; ok {
				h.push(candidate{pos: p, rank: mg.rank, id: mg.id})
			}
		}
	}
	out := ids[:0]
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, ids[i])
	}
	return out
}

type candidate struct {
	pos, rank, id int32
}

func (a candidate) less(b candidate) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	return a.pos < b.pos
}

// mergeHeap is a min-heap of candidates (container/heap costs an
// interface call per comparison on the hottest loop of encoding).
type mergeHeap []candidate

func (h *mergeHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *mergeHeap) pop() candidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, r, min := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].less(s[min]) {
			min = l
		}
		if r < len(s) && s[r].less(s[min]) {
			min = r
		}
		if min == i {
			break
		}
		s[i], s[min] = s[min], s[i]
		i = min
	}
	*h = s
	return top
}
