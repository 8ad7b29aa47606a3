package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// tokenValue is a special-token field of tokenizer_config.json or
// special_tokens_map.json: a string, null, or an AddedToken object.
type tokenValue struct {
	present bool // the key exists (a null value counts)
	null    bool
	token   addedToken
	// object reports whether the value carried its own flags.
	object bool
}

func (v *tokenValue) UnmarshalJSON(b []byte) error {
	v.present = true
	if isNull(b) {
		v.null = true
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		v.token = addedToken{Content: s}
		return nil
	}
	var obj struct {
		Content    *string `json:"content"`
		SingleWord bool    `json:"single_word"`
		LStrip     bool    `json:"lstrip"`
		RStrip     bool    `json:"rstrip"`
		Normalized bool    `json:"normalized"`
	}
	if err := json.Unmarshal(b, &obj); err != nil || obj.Content == nil {
		return fmt.Errorf("want a string, null or {\"content\": ...}, got %s", string(b))
	}
	v.object = true
	v.token = addedToken{Content: *obj.Content, SingleWord: obj.SingleWord, LStrip: obj.LStrip, RStrip: obj.RStrip, Normalized: obj.Normalized}
	return nil
}

// tokenList is additional_special_tokens: a list of tokenValues.
type tokenList []tokenValue

// specialNames are the transformers attributes that name special tokens.
var specialNames = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// folderConfig is what Load reads besides the tokenizer itself.
type folderConfig struct {
	named      map[string]tokenValue // bos_token, eos_token, ...
	additional []tokenValue          // additional_special_tokens, extra_special_tokens
	// addedDecoder is tokenizer_config.json's added_tokens_decoder, by id.
	addedDecoder []addedToken
	addBOS       *bool
	addEOS       *bool
	cleanUp      bool
	// modelIDs are config.json's bos/eos/pad_token_id, the last resort.
	modelIDs       map[string]int
	addPrefixSpace bool
}

type tokenizerConfigJSON struct {
	AddBOSToken               *bool                      `json:"add_bos_token"`
	AddEOSToken               *bool                      `json:"add_eos_token"`
	CleanUpTokenizationSpaces *bool                      `json:"clean_up_tokenization_spaces"`
	AddedTokensDecoder        map[string]addedTokenFlags `json:"added_tokens_decoder"`
	AdditionalSpecialTokens   tokenList                  `json:"additional_special_tokens"`
	ExtraSpecialTokens        json.RawMessage            `json:"extra_special_tokens"`
	AddPrefixSpace            *bool                      `json:"add_prefix_space"`
}

type addedTokenFlags struct {
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// readFolderConfig reads tokenizer_config.json, special_tokens_map.json
// and config.json from dir; each is optional.
func readFolderConfig(dir string) (*folderConfig, error) {
	fc := &folderConfig{named: map[string]tokenValue{}, modelIDs: map[string]int{}}

	var tc tokenizerConfigJSON
	var named map[string]json.RawMessage
	if data, ok, err := readOptional(filepath.Join(dir, "tokenizer_config.json")); err != nil {
		return nil, err
	} else if ok {
		if err := decodeJSON("tokenizer_config.json", data, &tc); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &named); err != nil {
			return nil, fmt.Errorf("tokenizer_config.json: %v", err)
		}
		if err := fc.takeNamed("tokenizer_config.json", named, false); err != nil {
			return nil, err
		}
		fc.addBOS, fc.addEOS = tc.AddBOSToken, tc.AddEOSToken
		fc.cleanUp = tc.CleanUpTokenizationSpaces != nil && *tc.CleanUpTokenizationSpaces
		fc.addPrefixSpace = tc.AddPrefixSpace != nil && *tc.AddPrefixSpace
		fc.additional = append(fc.additional, tc.AdditionalSpecialTokens...)
		extra, err := extraSpecialTokens(tc.ExtraSpecialTokens)
		if err != nil {
			return nil, err
		}
		fc.additional = append(fc.additional, extra...)
		for k, f := range tc.AddedTokensDecoder {
			id, err := strconv.Atoi(k)
			if err != nil || id < 0 {
				return nil, fmt.Errorf("tokenizer_config.json: added_tokens_decoder: key %q is not a token id", k)
			}
			fc.addedDecoder = append(fc.addedDecoder, addedToken{ID: id, Content: f.Content, SingleWord: f.SingleWord,
				LStrip: f.LStrip, RStrip: f.RStrip, Normalized: f.Normalized, Special: f.Special})
		}
		// transformers adds them in id order.
		sort.Slice(fc.addedDecoder, func(i, j int) bool { return fc.addedDecoder[i].ID < fc.addedDecoder[j].ID })
	}

	// special_tokens_map.json overrides tokenizer_config.json, as in
	// transformers' from_pretrained.
	var sm map[string]json.RawMessage
	if ok, err := readOptionalJSON(filepath.Join(dir, "special_tokens_map.json"), &sm); err != nil {
		return nil, err
	} else if ok {
		if err := fc.takeNamed("special_tokens_map.json", sm, true); err != nil {
			return nil, err
		}
		if raw, ok := sm["additional_special_tokens"]; ok {
			var list tokenList
			if err := json.Unmarshal(raw, &list); err != nil {
				return nil, fmt.Errorf("special_tokens_map.json: additional_special_tokens: %v", err)
			}
			fc.additional = append(fc.additional, list...)
		}
	}

	var mc map[string]json.RawMessage
	if ok, err := readOptionalJSON(filepath.Join(dir, "config.json"), &mc); err != nil {
		return nil, err
	} else if ok {
		for _, k := range []string{"bos_token_id", "eos_token_id", "pad_token_id"} {
			raw, ok := mc[k]
			if !ok || isNull(raw) {
				continue
			}
			var id int
			var ids []int
			switch {
			case json.Unmarshal(raw, &id) == nil:
			case json.Unmarshal(raw, &ids) == nil && len(ids) > 0:
				id = ids[0] // a list of EOS ids: the first is the main one
			default:
				return nil, fmt.Errorf("config.json: %s: want a token id or a list of ids, got %s", k, string(raw))
			}
			fc.modelIDs[k] = id
		}
	}
	return fc, nil
}

func (fc *folderConfig) takeNamed(file string, m map[string]json.RawMessage, override bool) error {
	for _, k := range specialNames {
		raw, ok := m[k]
		if !ok {
			continue
		}
		var v tokenValue
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("%s: %s: %v", file, k, err)
		}
		if _, seen := fc.named[k]; seen && !override {
			continue
		}
		fc.named[k] = v
	}
	return nil
}

// extraSpecialTokens reads extra_special_tokens: a list or a name → token map.
func extraSpecialTokens(raw json.RawMessage) ([]tokenValue, error) {
	if isNull(raw) {
		return nil, nil
	}
	var list tokenList
	if json.Unmarshal(raw, &list) == nil {
		return list, nil
	}
	var m map[string]tokenValue
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("tokenizer_config.json: extra_special_tokens: want a list or an object of tokens: %v", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]tokenValue, 0, len(m))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out, nil
}

// readOptional reads path; a missing file is not an error.
func readOptional(path string) ([]byte, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	return data, err == nil, err
}

// readOptionalJSON decodes path into v; a missing file is not an error.
func readOptionalJSON(path string, v any) (bool, error) {
	data, ok, err := readOptional(path)
	if !ok || err != nil {
		return false, err
	}
	return true, decodeJSON(filepath.Base(path), data, v)
}
