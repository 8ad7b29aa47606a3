package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/feather-eval/feather/internal/jsonpos"
)

// specialTokenFields are the tokens transformers passes to every template
// (its special_tokens_map), each only when the tokenizer has it.
var specialTokenFields = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// Load reads the chat template of a tokenizer folder as transformers does:
// tokenizer_config.json's chat_template (a string, or a list of
// {"name", "template"}), overridden by chat_template.jinja when present
// (newer exports), else by chat_template.json's "chat_template"; files in
// additional_chat_templates/ add named templates. Special tokens come
// from tokenizer_config.json, as strings or {"content": ...} objects.
// A folder with no template gives an error wrapping ErrNoTemplate.
func Load(dir string) (*Template, error) {
	cfgPath := filepath.Join(dir, "tokenizer_config.json")
	cfg := map[string]json.RawMessage{}
	data, cfgErr := os.ReadFile(cfgPath)
	switch {
	case cfgErr == nil:
		if err := json.Unmarshal(data, &cfg); err != nil {
			return nil, jsonpos.SyntaxError(cfgPath, data, err)
		}
	case errors.Is(cfgErr, fs.ErrNotExist):
		// chat_template.jinja alone is still a template; tokens are then unset.
	default:
		return nil, cfgErr
	}

	t := &Template{special: map[string]string{}}
	for _, field := range specialTokenFields {
		tok, err := tokenContent(cfg[field])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", cfgPath, field, err)
		}
		if tok != "" {
			t.special[field] = tok
		}
	}

	sources, err := templateSources(dir, cfgPath, cfg)
	if err != nil {
		return nil, err
	}
	if len(sources) == 0 {
		if cfgErr != nil {
			return nil, cfgErr // not a tokenizer folder at all
		}
		return nil, fmt.Errorf("%s: %w", cfgPath, ErrNoTemplate)
	}
	if src, ok := sources[""]; ok && len(sources) == 1 {
		t.origin = src.origin
		if t.single, err = compile(src.origin, src.text); err != nil {
			return nil, err
		}
		return t, nil
	}
	t.origin = dir
	t.named = map[string]*compiled{}
	for name, src := range sources {
		label := src.origin
		if !strings.HasSuffix(label, name+".jinja") {
			label = fmt.Sprintf("%s (template %q)", label, name)
		}
		c, err := compile(label, src.text)
		if err != nil {
			return nil, err
		}
		t.named[name] = c
	}
	return t, nil
}

// templateSource is one template's text and the file it came from.
type templateSource struct{ text, origin string }

// templateSources returns the template(s) by name ("" for a lone one).
func templateSources(dir, cfgPath string, cfg map[string]json.RawMessage) (map[string]templateSource, error) {
	sources := map[string]templateSource{}
	if raw, ok := cfg["chat_template"]; ok {
		if err := parseTemplateField(raw, cfgPath, sources); err != nil {
			return nil, fmt.Errorf("%s: chat_template: %v", cfgPath, err)
		}
	}

	jsonPath := filepath.Join(dir, "chat_template.json")
	if data, err := os.ReadFile(jsonPath); err == nil {
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, jsonpos.SyntaxError(jsonPath, data, err)
		}
		raw, ok := doc["chat_template"]
		if !ok {
			return nil, fmt.Errorf("%s: no \"chat_template\" field; the file should be {\"chat_template\": \"...\"}", jsonPath)
		}
		sources = map[string]templateSource{}
		if err := parseTemplateField(raw, jsonPath, sources); err != nil {
			return nil, fmt.Errorf("%s: chat_template: %v", jsonPath, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	jinjaPath := filepath.Join(dir, "chat_template.jinja")
	if data, err := os.ReadFile(jinjaPath); err == nil {
		// The file clobbers any template in the config, as in transformers.
		sources = map[string]templateSource{"": {string(data), jinjaPath}}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}

	extra, err := filepath.Glob(filepath.Join(dir, "additional_chat_templates", "*.jinja"))
	if err != nil {
		return nil, err
	}
	sort.Strings(extra)
	for _, p := range extra {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if src, ok := sources[""]; ok {
			delete(sources, "")
			sources["default"] = src
		}
		sources[strings.TrimSuffix(filepath.Base(p), ".jinja")] = templateSource{string(data), p}
	}
	return sources, nil
}

// parseTemplateField reads a chat_template value: a string, a list of
// {"name", "template"}, or null (no template).
func parseTemplateField(raw json.RawMessage, origin string, into map[string]templateSource) error {
	raw = bytes.TrimSpace(raw)
	if bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		into[""] = templateSource{s, origin}
		return nil
	}
	var list []struct {
		Name     *string `json:"name"`
		Template *string `json:"template"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return errors.New(`must be a string or a list of {"name": ..., "template": ...}`)
	}
	for i, e := range list {
		if e.Name == nil || e.Template == nil {
			return fmt.Errorf(`item %d needs both "name" and "template" strings`, i)
		}
		if _, dup := into[*e.Name]; dup {
			return fmt.Errorf("item %d: the name %q is used twice", i, *e.Name)
		}
		into[*e.Name] = templateSource{*e.Template, origin}
	}
	return nil
}

// tokenContent reads a special token: a string, an AddedToken object
// {"content": ..., ...} (with or without "__type"), or null/absent.
func tokenContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
		return "", errors.New(`must be a string or an object with a "content" string`)
	}
	return *obj.Content, nil
}
