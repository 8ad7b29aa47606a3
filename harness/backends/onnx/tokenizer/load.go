package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         *modelJSON       `json:"model"`
}

// addedTokenJSON defaults normalized to true when absent, like Rust's
// AddedToken.
type addedTokenJSON struct {
	ID         *int    `json:"id"`
	Content    *string `json:"content"`
	SingleWord bool    `json:"single_word"`
	LStrip     bool    `json:"lstrip"`
	RStrip     bool    `json:"rstrip"`
	Normalized *bool   `json:"normalized"`
	Special    bool    `json:"special"`
}

type modelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   json.RawMessage `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 bool            `json:"fuse_unk"`
	ByteFallback            bool            `json:"byte_fallback"`
	IgnoreMerges            bool            `json:"ignore_merges"`
}

// Load reads the tokenizer in dir: tokenizer.json, or else the slow pair
// vocab.json + merges.txt (GPT-2 style byte-level BPE, built as
// transformers converts it). tokenizer_config.json, special_tokens_map.json,
// added_tokens.json and config.json are read when present: they add the
// tokens and special-token names transformers adds, and may rebuild the
// BOS/EOS template (add_bos_token, add_eos_token). Truncation and padding
// in tokenizer.json are ignored, as transformers does by default.
func Load(dir string) (*Tokenizer, error) {
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("tokenizer folder: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("tokenizer folder %s is not a directory", dir)
	}
	fc, err := readFolderConfig(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	b := &builder{fc: fc}
	jsonPath := filepath.Join(dir, "tokenizer.json")
	_, err = os.Stat(jsonPath)
	switch {
	case err == nil:
		err = b.readTokenizerJSON(jsonPath)
	case errors.Is(err, os.ErrNotExist):
		err = b.readSlowFiles(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	t, err := b.build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return t, nil
}

// builder assembles a Tokenizer from the files of a folder.
type builder struct {
	fc    *folderConfig
	model *bpe
	norm  normalizer
	pre   stages
	post  postProcessor
	dec   decoder
	added []addedToken
}

func (b *builder) readTokenizerJSON(path string) error {
	var f fileJSON
	if err := readJSON(path, &f); err != nil {
		return err
	}
	const file = "tokenizer.json: "
	if f.Model == nil {
		return errors.New(file + "model: missing (want a BPE model)")
	}
	var err error
	if b.model, err = parseModel(f.Model); err != nil {
		return errors.New(file + err.Error())
	}
	if b.norm, err = parseNormalizer(f.Normalizer, "normalizer"); err != nil {
		return errors.New(file + err.Error())
	}
	if b.pre, err = parsePreTokenizers(f.PreTokenizer, "pre_tokenizer"); err != nil {
		return errors.New(file + err.Error())
	}
	if b.post, err = parsePostProcessor(f.PostProcessor, "post_processor"); err != nil {
		return errors.New(file + err.Error())
	}
	if b.dec, err = parseDecoder(f.Decoder, "decoder"); err != nil {
		return errors.New(file + err.Error())
	}
	for i, a := range f.AddedTokens {
		if a.ID == nil || a.Content == nil || *a.ID < 0 {
			return fmt.Errorf("%sadded_tokens[%d]: want an \"id\" (>= 0) and a \"content\"", file, i)
		}
		b.added = append(b.added, addedToken{ID: *a.ID, Content: *a.Content, SingleWord: a.SingleWord,
			LStrip: a.LStrip, RStrip: a.RStrip, Normalized: orTrue(a.Normalized), Special: a.Special})
	}
	return nil
}

func parseModel(m *modelJSON) (*bpe, error) {
	typ := m.Type
	if typ == "" && len(m.Merges) > 0 {
		typ = "BPE" // files older than the "type" field
	}
	if typ != "BPE" {
		return nil, unsupported("model", typ, "BPE")
	}
	var vocab map[string]int
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil || vocab == nil {
		return nil, fmt.Errorf("model.vocab: want an object of token → id: %v", err)
	}
	merges, err := parseMerges(m.Merges)
	if err != nil {
		return nil, err
	}
	unk := ""
	if m.UnkToken != nil {
		unk = *m.UnkToken
	}
	prefix, suffix := "", ""
	if m.ContinuingSubwordPrefix != nil {
		prefix = *m.ContinuingSubwordPrefix
	}
	if m.EndOfWordSuffix != nil {
		suffix = *m.EndOfWordSuffix
	}
	model, err := newBPE(vocab, merges, func(i int) string { return fmt.Sprintf("model.merges[%d]", i) }, unk, prefix, suffix)
	if err != nil {
		if strings.HasPrefix(err.Error(), "unk_token") {
			return nil, fmt.Errorf("model.%v", err)
		}
		return nil, err
	}
	model.fuseUnk, model.byteFallback, model.ignoreMerges = m.FuseUnk, m.ByteFallback, m.IgnoreMerges
	return model, nil
}

// parseMerges reads merges as "a b" strings (tokenizers < 0.20) or as
// ["a", "b"] pairs. A string must hold exactly one space.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	// The common shapes decode in one pass (the first item says which);
	// anything else is examined item by item to say which one is wrong.
	pairsFirst := strings.HasPrefix(strings.TrimLeft(strings.TrimPrefix(strings.TrimSpace(string(raw[:min(len(raw), 64)])), "["), " \t\r\n"), "[")
	var strs []string
	if !pairsFirst && json.Unmarshal(raw, &strs) == nil {
		out := make([][2]string, 0, len(strs))
		for i, s := range strs {
			if strings.HasPrefix(s, "#version") {
				continue
			}
			a, c, ok := strings.Cut(s, " ")
			if !ok || strings.Contains(c, " ") {
				return nil, fmt.Errorf("model.merges[%d]: %q: want two tokens separated by one space", i, s)
			}
			out = append(out, [2]string{a, c})
		}
		return out, nil
	}
	var pairs [][]string
	if json.Unmarshal(raw, &pairs) == nil {
		out := make([][2]string, len(pairs))
		for i, p := range pairs {
			if len(p) != 2 {
				return nil, fmt.Errorf("model.merges[%d]: want a pair of tokens, got %d", i, len(p))
			}
			out[i] = [2]string{p[0], p[1]}
		}
		return out, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("model.merges: want a list: %v", err)
	}
	for i, it := range items {
		var s string
		var pair []string
		if json.Unmarshal(it, &s) != nil && json.Unmarshal(it, &pair) != nil {
			return nil, fmt.Errorf("model.merges[%d]: want \"a b\" or [\"a\", \"b\"], got %s", i, string(it))
		}
	}
	return nil, errors.New("model.merges: mixes \"a b\" strings and [\"a\", \"b\"] pairs")
}
