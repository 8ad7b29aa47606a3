package tokenizer

import (
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens (or one that
// tokenizer_config.json adds).
type addedToken struct {
	ID         int
	Content    string
	SingleWord bool
	LStrip     bool
	RStrip     bool
	Normalized bool
	Special    bool
}

// addedVocab finds added tokens in input text the way the Rust
// AddedVocabulary does: tokens with normalized=false are matched on the
// raw text first; the text between them is normalized and then searched
// for the normalized=true tokens (by their normalized content). Matching
// is leftmost-longest and non-overlapping.
type addedVocab struct {
	tokens    map[int]addedToken // by id
	byContent map[string]int
	raw       *trie           // normalized=false tokens
	normed    *trie           // normalized=true tokens, normalized content
	special   map[string]bool // contents of special tokens
	// decodeAs holds the normalized content of normalized tokens whose
	// normalizer output differs: Rust decodes those by that form.
	decodeAs map[int]string
}

// piece is a run of input: either an added token (id >= 0) or normalized
// text still to be pre-tokenized.
type piece struct {
	id    int
	text  string
	first bool
}

func newAddedVocab(tokens []addedToken, n normalizer) *addedVocab {
	v := &addedVocab{tokens: map[int]addedToken{}, byContent: map[string]int{}, raw: newTrie(), normed: newTrie(),
		special: map[string]bool{}, decodeAs: map[int]string{}}
	for _, t := range tokens {
		v.tokens[t.ID] = t
		v.byContent[t.Content] = t.ID
		if t.Special {
			v.special[t.Content] = true
		}
	}
	for _, t := range tokens {
		if t.Content == "" {
			continue
		}
		if !t.Normalized {
			v.raw.add(t.Content, t.ID)
			continue
		}
		c := t.Content
		if n != nil {
			c = n.normalize(c)
		}
		if c != t.Content {
			v.decodeAs[t.ID] = c
		}
		if c != "" {
			v.normed.add(c, t.ID)
		}
	}
	return v
}

// split cuts text into added tokens and normalized text pieces, calling
// emit for each in order. Empty pieces never come out: Rust drops them
// before normalizing.
func (v *addedVocab) split(sc *scratch, text string, n normalizer, emit func(piece)) {
	sc.raw = v.find(sc.raw[:0], text, v.raw, true)
	for _, p := range sc.raw {
		if p.id >= 0 {
			emit(p)
			continue
		}
		s := p.text
		if n != nil {
			s = n.normalize(s)
		}
		sc.normed = v.find(sc.normed[:0], s, v.normed, p.first)
		for _, q := range sc.normed {
			emit(q)
		}
	}
}

// find is Rust's AddedVocabulary::find_matches: single_word tokens must
// not touch word characters, lstrip/rstrip tokens swallow the whitespace
// beside them. A discarded match is not retried at a later offset.
func (v *addedVocab) find(out []piece, s string, t *trie, first bool) []piece {
	if s == "" {
		return out
	}
	if t.empty() {
		return append(out, piece{id: -1, text: s, first: first})
	}
	startOffset := 0
	for i := 0; i < len(s); {
		if !t.firstByte[s[i]] {
			i++
			continue
		}
		id, n := t.longest(s, i)
		if n == 0 {
			i++
			continue
		}
		start, stop := i, i+n
		i = stop
		tok := v.tokens[id]
		if tok.SingleWord {
			if (start > 0 && endsWithWord(s[:start])) || (stop < len(s) && startsWithWord(s[stop:])) {
				continue
			}
		}
		if tok.LStrip {
			ns := len(trimRightSpace(s[:start]))
			start = max(ns, startOffset)
		}
		if tok.RStrip {
			stop += len(s[stop:]) - len(trimLeftSpace(s[stop:]))
		}
		if stop <= startOffset {
			// Wholly inside whitespace the previous token's rstrip took
			// (Rust panics here).
			continue
		}
		start = max(start, startOffset)
		if startOffset < start {
			out = append(out, piece{id: -1, text: s[startOffset:start], first: first && startOffset == 0})
		}
		out = append(out, piece{id: id, text: s[start:stop]})
		startOffset = stop
	}
	if startOffset < len(s) {
		out = append(out, piece{id: -1, text: s[startOffset:], first: first && startOffset == 0})
	}
	return out
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordRune(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordRune(r)
}

func trimRightSpace(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if !isS(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

func trimLeftSpace(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if !isS(r) {
			break
		}
		s = s[n:]
	}
	return s
}

// trie is a byte trie over token contents for longest-match lookups.
type trie struct {
	nodes []trieNode
	// firstByte says whether any token starts with the byte, so most
	// positions are skipped without touching the trie.
	firstByte [256]bool
}

type trieNode struct {
	next map[byte]int32
	id   int32 // token ending here, or -1
}

func newTrie() *trie { return &trie{nodes: []trieNode{{id: -1}}} }

func (t *trie) empty() bool { return len(t.nodes) == 1 }

func (t *trie) add(s string, id int) {
	t.firstByte[s[0]] = true
	cur := int32(0)
	for i := 0; i < len(s); i++ {
		nx, ok := t.nodes[cur].next[s[i]]
		if !ok {
			nx = int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{id: -1})
			if t.nodes[cur].next == nil {
				t.nodes[cur].next = map[byte]int32{}
			}
			t.nodes[cur].next[s[i]] = nx
		}
		cur = nx
	}
	// The first token added with a given content wins, as in the Rust
	// matcher where duplicates never get a longer match.
	if t.nodes[cur].id < 0 {
		t.nodes[cur].id = int32(id)
	}
}

// longest returns the id and length of the longest token starting at i,
// or length 0.
func (t *trie) longest(s string, i int) (int, int) {
	best, bestLen := -1, 0
	cur := int32(0)
	for j := i; j < len(s); j++ {
		nx, ok := t.nodes[cur].next[s[j]]
		if !ok {
			break
		}
		cur = nx
		if id := t.nodes[cur].id; id >= 0 {
			best, bestLen = int(id), j+1-i
		}
	}
	return best, bestLen
}
