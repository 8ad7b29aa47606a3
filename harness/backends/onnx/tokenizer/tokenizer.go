// Package tokenizer turns text into the token ids a Hugging Face model was
// trained on, and back. It reads tokenizer.json (or the slow vocab.json +
// merges.txt pair) and runs the same pipeline as the Rust tokenizers
// library behind transformers: added tokens, normalizer, pre-tokenizer,
// BPE model, post-processor; and the decoder on the way back. Golden files
// from the Rust library and transformers.js pin the results.
package tokenizer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tokenizer is a loaded tokenizer. It is safe for concurrent use.
type Tokenizer struct {
	model   *bpe
	norm    normalizer
	pre     stages
	post    postProcessor
	dec     decoder
	added   *addedVocab
	idToTok []string // model vocabulary by id
	size    int
	cleanUp bool

	bos, eos, pad Special
	hasBOS        bool
	hasEOS        bool
	hasPAD        bool
	addsBOS       bool
	// named holds every named special token the folder resolves
	// (bos_token, unk_token, ...), for Vocabulary.
	named map[string]Special
}

// Special is a named special token and its id.
type Special struct {
	Token string
	ID    int
}

// Encode returns the ids of text. With addSpecialTokens the
// post-processor adds the model's special tokens (BOS for most models
// that use one). Special tokens written in the text are always recognised.
// Invalid UTF-8 is read as U+FFFD.
func (t *Tokenizer) Encode(text string, addSpecialTokens bool) []int {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	ids := make([]int, 0, len(text)/3+2)
	t.added.split(sc, text, t.norm, func(p piece) {
		if p.id >= 0 {
			ids = append(ids, p.id)
			return
		}
		for _, s := range t.pre.run(sc, p.text, p.first) {
			if s.raw {
				ids = t.model.encodeRaw(ids, s.text)
			} else {
				ids = t.model.encodeWord(ids, s.text)
			}
		}
	})
	if t.post != nil {
		ids = t.post.process(ids, addSpecialTokens)
	}
	return ids
}

// Decode turns ids back into text as transformers does: unknown ids are
// skipped, special tokens too when skipSpecialTokens, the decoder runs
// over every token, and clean_up_tokenization_spaces (from
// tokenizer_config.json, off when absent) tidies spaces before
// punctuation. An added token with normalized=true enters the decoder in
// its normalized form, as in the Rust library.
func (t *Tokenizer) Decode(ids []int, skipSpecialTokens bool) string {
	tokens := make([]string, 0, len(ids))
	for _, id := range ids {
		tok, ok := t.added.decodeAs[id]
		if !ok {
			tok, ok = t.IDToToken(id)
		}
		if !ok || (skipSpecialTokens && t.added.special[tok]) {
			continue
		}
		tokens = append(tokens, tok)
	}
	var s string
	if t.dec == nil {
		s = strings.Join(tokens, " ")
	} else {
		s = strings.Join(t.dec.decodeChain(tokens), "")
	}
	if t.cleanUp {
		s = cleanUpTokenization(s)
	}
	return s
}

// cleanUpTokenization is transformers' clean_up_tokenization: the same
// replacements, one after another, in the same order.
func cleanUpTokenization(s string) string {
	for _, r := range [][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
		{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	return s
}

// TokenToID looks a token up among the added tokens, then the vocabulary.
func (t *Tokenizer) TokenToID(token string) (int, bool) {
	if id, ok := t.added.byContent[token]; ok {
		return id, true
	}
	id, ok := t.model.vocab[token]
	return id, ok
}

// IDToToken is the inverse of TokenToID.
func (t *Tokenizer) IDToToken(id int) (string, bool) {
	if a, ok := t.added.tokens[id]; ok {
		return a.Content, true
	}
	if id < 0 || id >= len(t.idToTok) {
		return "", false
	}
	tok := t.idToTok[id]
	if got, ok := t.model.vocab[tok]; !ok || got != id {
		return "", false
	}
	return tok, true
}

// VocabSize is the largest id plus one, added tokens included: the size
// a model's embedding must have at least.
func (t *Tokenizer) VocabSize() int { return t.size }

// BOS is the beginning-of-sequence token named by tokenizer_config.json or
// special_tokens_map.json, else config.json's bos_token_id.
func (t *Tokenizer) BOS() (Special, bool) { return t.bos, t.hasBOS }

// EOS is the end-of-sequence token, found as BOS is.
func (t *Tokenizer) EOS() (Special, bool) { return t.eos, t.hasEOS }

// PAD is the padding token, found as BOS is.
func (t *Tokenizer) PAD() (Special, bool) { return t.pad, t.hasPAD }

// AddsBOS reports whether Encode(text, true) starts with BOS by itself.
func (t *Tokenizer) AddsBOS() bool { return t.addsBOS }

// IsSpecial reports whether id is a special token (skipped by
// Decode(ids, true)).
func (t *Tokenizer) IsSpecial(id int) bool {
	a, ok := t.added.tokens[id]
	return ok && t.added.special[a.Content]
}

func (b *builder) build() (*Tokenizer, error) {
	fc := b.fc
	t := &Tokenizer{model: b.model, norm: b.norm, pre: b.pre, post: b.post, dec: b.dec, cleanUp: fc.cleanUp}

	// transformers adds tokenizer_config.json's added tokens that the
	// tokenizer lacks (or describes differently), then every named special
	// token not yet added.
	set := newAddedSet(b.model)
	for _, a := range b.added {
		set.add(a)
	}
	named := fc.specialContents()
	for _, a := range fc.addedDecoder {
		if set.has(a) {
			continue
		}
		if named[a.Content] {
			a.Special = true
		}
		set.add(a)
	}
	for _, v := range fc.allSpecial() {
		if _, ok := set.byContent[v.token.Content]; ok || v.token.Content == "" {
			continue
		}
		a := v.token
		a.Special = true
		if !v.object {
			a.Normalized = false
		}
		set.add(a)
	}
	t.added = newAddedVocab(set.list, b.norm)

	for tok, id := range b.model.vocab {
		if id < 0 {
			return nil, fmt.Errorf("tokenizer: token %q has negative id %d", tok, id)
		}
		t.size = max(t.size, id+1)
	}
	for id := range t.added.tokens {
		t.size = max(t.size, id+1)
	}
	t.idToTok = make([]string, t.size)
	for tok, id := range b.model.vocab {
		t.idToTok[id] = tok
	}

	var err error
	if t.bos, t.hasBOS, err = t.special(fc, "bos_token", "bos_token_id"); err != nil {
		return nil, err
	}
	if t.eos, t.hasEOS, err = t.special(fc, "eos_token", "eos_token_id"); err != nil {
		return nil, err
	}
	if t.pad, t.hasPAD, err = t.special(fc, "pad_token", "pad_token_id"); err != nil {
		return nil, err
	}
	// The other named tokens only inform Vocabulary: one the tokenizer
	// lacks is left out rather than failing the load, as transformers does.
	t.named = map[string]Special{}
	for _, name := range specialNames {
		if s, ok, err := t.special(fc, name, name+"_id"); err == nil && ok {
			t.named[name] = s
		}
	}

	// An explicit add_bos_token / add_eos_token rebuilds the template as
	// transformers' update_post_processor does.
	if fc.addBOS != nil || fc.addEOS != nil {
		var tpl template
		if fc.addBOS != nil && *fc.addBOS && t.hasBOS {
			tpl = append(tpl, []int{t.bos.ID})
		}
		tpl = append(tpl, nil)
		if fc.addEOS != nil && *fc.addEOS && t.hasEOS {
			tpl = append(tpl, []int{t.eos.ID})
		}
		t.post = tpl
	}
	if t.post != nil && t.hasBOS {
		if first := t.post.process(nil, true); len(first) > 0 && first[0] == t.bos.ID {
			t.addsBOS = true
		}
	}

	return t, nil
}

// special resolves a named special token to its id.
func (t *Tokenizer) special(fc *folderConfig, name, idKey string) (Special, bool, error) {
	if v, ok := fc.named[name]; ok {
		if v.null {
			return Special{}, false, nil
		}
		id, found := t.TokenToID(v.token.Content)
		if !found {
			return Special{}, false, fmt.Errorf("tokenizer: %s %q is neither an added token nor in the vocabulary", name, v.token.Content)
		}
		return Special{v.token.Content, id}, true, nil
	}
	if id, ok := fc.modelIDs[idKey]; ok {
		tok, found := t.IDToToken(id)
		if !found {
			return Special{}, false, fmt.Errorf("config.json: %s %d is not a token id of this tokenizer", idKey, id)
		}
		return Special{tok, id}, true, nil
	}
	return Special{}, false, nil
}

// allSpecial lists the named special tokens then the additional ones.
func (fc *folderConfig) allSpecial() []tokenValue {
	var out []tokenValue
	for _, k := range specialNames {
		if v, ok := fc.named[k]; ok && !v.null {
			out = append(out, v)
		}
	}
	for _, v := range fc.additional {
		if !v.null {
			out = append(out, v)
		}
	}
	return out
}

func (fc *folderConfig) specialContents() map[string]bool {
	m := map[string]bool{}
	for _, v := range fc.allSpecial() {
		m[v.token.Content] = true
	}
	return m
}

// addedSet collects added tokens as the Rust AddedVocabulary::add_tokens
// does, for tokenizer.json's own list too (Rust only checks the ids the
// file gives): a token already present by content keeps that id, one in
// the model's vocabulary takes its id there, and a new one gets the next
// id after the model's vocabulary and the added tokens.
type addedSet struct {
	model     *bpe
	list      []addedToken
	byContent map[string]int
	index     map[int]int // id → position in list
	maxID     int
}

func newAddedSet(model *bpe) *addedSet {
	return &addedSet{model: model, byContent: map[string]int{}, index: map[int]int{}, maxID: -1}
}

// has reports an added token with the same content and flags.
func (s *addedSet) has(a addedToken) bool {
	id, ok := s.byContent[a.Content]
	if !ok {
		return false
	}
	b := s.list[s.index[id]]
	a.ID = b.ID
	return a == b
}

func (s *addedSet) add(a addedToken) {
	if a.Content == "" {
		return
	}
	if id, ok := s.byContent[a.Content]; ok {
		a.ID = id
	} else if id, ok := s.model.vocab[a.Content]; ok {
		a.ID = id
	} else if n := len(s.model.vocab); s.maxID >= n {
		a.ID = s.maxID + 1
	} else {
		a.ID = n
	}
	s.maxID = max(s.maxID, a.ID)
	s.byContent[a.Content] = a.ID
	if i, ok := s.index[a.ID]; ok {
		// Rust never forgets that a content was special.
		a.Special = a.Special || (s.list[i].Special && s.list[i].Content == a.Content)
		s.list[i] = a
		return
	}
	s.index[a.ID] = len(s.list)
	s.list = append(s.list, a)
}
