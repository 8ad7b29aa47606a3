package corpustok

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is one file of a model folder.
type File struct {
	Name string // slash-separated, relative to the folder
	Data []byte
}

// WriteFiles writes files under dir in order (the smoke model writes its
// marker last), making the folders they name; the built-in smoke model and
// the test models write their folders with it.
func WriteFiles(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Files renders tokenizer_config.json, special_tokens_map.json and
// tokenizer.json with Hugging Face's field names. maxPositions is
// model_max_length; chatTemplate, when set, is the chat_template.
func (t *BPE) Files(maxPositions int, chatTemplate string) ([]File, error) {
	addedDecoder := map[string]any{}
	for id, s := range specialTokens {
		addedDecoder[fmt.Sprint(id)] = map[string]any{
			"content": s, "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true,
		}
	}
	tokCfg := map[string]any{
		"add_bos_token":                true,
		"add_eos_token":                false,
		"add_prefix_space":             false,
		"added_tokens_decoder":         addedDecoder,
		"additional_special_tokens":    []string{specialTokens[IMStartID], specialTokens[IMEndID]},
		"bos_token":                    specialTokens[BOSID],
		"eos_token":                    specialTokens[EOSID],
		"pad_token":                    specialTokens[EOSID],
		"unk_token":                    nil,
		"clean_up_tokenization_spaces": false,
		"model_max_length":             maxPositions,
		"tokenizer_class":              "PreTrainedTokenizerFast",
	}
	if chatTemplate != "" {
		tokCfg["chat_template"] = chatTemplate
	}
	specialMap := map[string]any{
		"additional_special_tokens": []string{specialTokens[IMStartID], specialTokens[IMEndID]},
		"bos_token":                 specialTokens[BOSID],
		"eos_token":                 specialTokens[EOSID],
		"pad_token":                 specialTokens[EOSID],
	}
	var out []File
	for _, f := range []struct {
		name string
		v    any
	}{
		{"tokenizer_config.json", tokCfg},
		{"special_tokens_map.json", specialMap},
	} {
		data, err := JSON(f.v)
		if err != nil {
			return nil, fmt.Errorf("corpustok: encoding %s: %w", f.name, err)
		}
		out = append(out, File{f.name, data})
	}
	tj, err := t.tokenizerJSON()
	if err != nil {
		return nil, fmt.Errorf("corpustok: encoding tokenizer.json: %w", err)
	}
	return append(out, File{"tokenizer.json", tj}), nil
}
