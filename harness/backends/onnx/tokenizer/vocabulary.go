package tokenizer

import "slices"

// Vocabulary is a tokenizer's vocabulary as its files define it, for
// writing the tokenizer in another format (a GGUF file's tokenizer.ggml.*
// keys).
type Vocabulary struct {
	// Tokens holds every token by id, added tokens included; an id that
	// no token has is "".
	Tokens []string
	// Merges are the BPE merges in rank order. A merge the file lists
	// twice appears once, at the rank encoding uses.
	Merges [][2]string
	// Added are the added tokens in id order.
	Added []AddedToken
	// Special maps each named special token the folder resolves
	// (bos_token, eos_token, unk_token, sep_token, pad_token, cls_token,
	// mask_token) to the token and its id.
	Special map[string]Special
	// Unk is the BPE model's unk_token id, -1 when it has none.
	Unk int
	// ByteFallback: unknown characters become <0xXX> byte tokens
	// (SentencePiece-style BPE). ByteLevel: tokens are spelled in GPT-2's
	// byte-level alphabet (the decoder is ByteLevel). IgnoreMerges: a word
	// that is itself a token is not split.
	ByteFallback, ByteLevel, IgnoreMerges bool
}

// AddedToken is an added token as tokenizer.json (or tokenizer_config.json)
// describes it.
type AddedToken struct {
	ID         int
	Content    string
	Special    bool
	Normalized bool
}

// Vocabulary returns the tokenizer's vocabulary, merges and added tokens.
func (t *Tokenizer) Vocabulary() Vocabulary {
	v := Vocabulary{Tokens: make([]string, t.size), Special: map[string]Special{}, Unk: t.model.unk,
		ByteFallback: t.model.byteFallback, IgnoreMerges: t.model.ignoreMerges, ByteLevel: hasByteLevel(t.dec)}
	for id := range v.Tokens {
		v.Tokens[id], _ = t.IDToToken(id)
	}
	v.Merges = make([][2]string, 0, len(t.model.merges))
	ranked := make([]uint64, 0, len(t.model.merges))
	for pair := range t.model.merges {
		ranked = append(ranked, pair)
	}
	slices.SortFunc(ranked, func(a, b uint64) int { return int(t.model.merges[a].rank - t.model.merges[b].rank) })
	for _, pair := range ranked {
		v.Merges = append(v.Merges, [2]string{t.idToTok[pair>>32], t.idToTok[uint32(pair)]})
	}
	for _, a := range t.added.tokens {
		v.Added = append(v.Added, AddedToken{ID: a.ID, Content: a.Content, Special: t.added.special[a.Content], Normalized: a.Normalized})
	}
	slices.SortFunc(v.Added, func(a, b AddedToken) int { return a.ID - b.ID })
	for name, s := range t.named {
		v.Special[name] = s
	}
	return v
}

// hasByteLevel reports whether d is, or chains, the ByteLevel decoder.
func hasByteLevel(d decoder) bool {
	switch d := d.(type) {
	case byteLevelDecoder:
		return true
	case decoderSeq:
		return slices.ContainsFunc(d, hasByteLevel)
	}
	return false
}
