// Package catalog loads model catalogs: JSON objects mapping a short key to
// an entry that names its backend and that backend's settings. It
// generalises Featherbench's models.json (whose entries, with no backend
// field, are OpenRouter models) and implements its selection rules.
package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/feather-eval/feather/internal/jsonpos"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
)

// DefaultBackend is the backend of an entry without one: Featherbench's
// models.json lists OpenRouter models.
const DefaultBackend = "openrouter"

// Sampling is an entry's declared sampling, the same type a request
// carries: only declared fields are sent.
type Sampling = lm.Sampling

// Entry is one model: the fields every backend shares, and the backend's
// own settings.
type Entry struct {
	Key string `json:"-"`
	// Dir is the directory of the catalog file; relative paths resolve from it.
	Dir string `json:"-"`

	Backend     string `json:"backend,omitempty"`
	Enabled     bool   `json:"enabled"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`

	// Defaults for requests that do not set their own, for the backends
	// that list them in Backend.Defaults.
	MaxTokens int       `json:"max_tokens,omitempty"`
	Sampling  *Sampling `json:"sampling,omitempty"`

	// Settings are the backend's own fields, parsed and validated by it.
	Settings Settings `json:"-"`
}

// ResolvePath returns p with ~ expanded and a relative path joined to the
// catalog's directory dir.
func ResolvePath(dir, p string) string {
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, p[2:])
		}
	}
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p
}

// Label is the entry's display name, falling back to its key.
func (e Entry) Label() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Key
}

// Catalog is a loaded, validated catalog in file order.
type Catalog struct {
	File    string
	Entries []Entry
}

// Load reads and validates a catalog file.
func Load(path string) (*Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("model catalog %s does not exist; pass another with the catalog option or create it (see models/ for examples)", path)
		}
		return nil, fmt.Errorf("reading model catalog: %w", err)
	}
	return Parse(path, data)
}

// Parse validates catalog JSON; name is used in messages and to resolve
// relative paths.
func Parse(name string, data []byte) (*Catalog, error) { return registry.Parse(name, data) }

// Parse validates catalog JSON with r's backends.
func (r *Registry) Parse(name string, data []byte) (*Catalog, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf(`%s: the file is empty; a catalog is a JSON object mapping model keys to entries, e.g. {"smoke": {"backend": "onnx", "builtin": "smoke", "enabled": true}}`, name)
	}
	raw, err := jsonpos.Members(name, data)
	if errors.Is(err, jsonpos.ErrNotObject) {
		return nil, fmt.Errorf("%s: the catalog must be a JSON object mapping model keys to entries, e.g. {\"smoke\": {...}}", name)
	}
	if err != nil {
		return nil, err
	}
	if i, first := jsonpos.Repeat(raw); i >= 0 {
		return nil, fmt.Errorf("%s:%d: duplicate model key %q (first defined on line %d); rename one of them", name, raw[i].Line, raw[i].Key, raw[first].Line)
	}
	if len(r.Names()) == 0 {
		// A program that forgot its blank imports would otherwise call
		// every field unknown.
		return nil, fmt.Errorf("%s: no backend is linked into this program; blank-import the backend packages (harness/backends/onnx, openai, httpapi)", name)
	}
	c := &Catalog{File: name}
	var errs []error
	for _, m := range raw {
		if strings.HasPrefix(m.Key, "_") {
			continue // "_comment" and friends document the file
		}
		e, err := r.decodeEntry(name, m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.Entries = append(c.Entries, e)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(c.Entries) == 0 {
		return nil, fmt.Errorf("%s: the catalog has no models; add an entry such as \"smoke\": {\"backend\": \"onnx\", \"builtin\": \"smoke\", \"enabled\": true}", name)
	}
	return c, nil
}

func (r *Registry) decodeEntry(name string, m jsonpos.Member) (Entry, error) {
	where := fmt.Sprintf("%s: model %q", name, m.Key)
	if len(bytes.TrimSpace(m.Value)) == 0 || m.Value[0] != '{' {
		return Entry{}, fmt.Errorf("%s: the entry must be a JSON object", where)
	}
	fs := r.entryFields()
	all := reflect.New(fs.all)
	if err := decodeStrict(m.Value, all.Interface()); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", where, wordDecodeError(err, m.Value, fs))
	}
	var e Entry
	if err := json.Unmarshal(m.Value, &e); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", where, err)
	}
	e.Key, e.Dir = m.Key, filepath.Dir(name)
	if e.Backend == "" {
		e.Backend = DefaultBackend
	}
	b, ok := r.backend(e.Backend)
	if !ok {
		return Entry{}, fmt.Errorf("%s: unknown backend %q; valid backends are %s", where, e.Backend, strings.Join(r.Names(), ", "))
	}
	if err := checkKey(m.Key); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", where, err)
	}
	if bad := fs.foreign(m.Value, all.Elem(), e.Backend); len(bad) > 0 {
		verb := map[bool]string{true: " is", false: " are"}[len(bad) == 1]
		return Entry{}, fmt.Errorf("%s: %s not used by backend %q; remove it or change the backend", where, strings.Join(bad, ", ")+verb, e.Backend)
	}
	s := b.Settings()
	if err := json.Unmarshal(m.Value, s); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", where, err)
	}
	if err := s.Validate(e); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", where, err)
	}
	e.Settings = s
	return e, nil
}

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// wordDecodeError says what is wrong with an entry's field in the
// catalog's terms.
func wordDecodeError(err error, entry []byte, fs *fieldSet) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		return fmt.Errorf("field %q must be %s, not a JSON %s", te.Field, typeName(te.Type.String()), te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.TrimPrefix(err.Error(), "json: unknown field ")
		if inSampling(entry, f) {
			return fmt.Errorf("unknown field %s in \"sampling\"; its fields are %s", f, strings.Join(samplingFields(), ", "))
		}
		return fmt.Errorf("unknown field %s; known fields are %s", f, strings.Join(fs.names, ", "))
	}
	return err
}

// checkKey keeps keys usable as subtest names and in -run patterns.
func checkKey(k string) error {
	if k == "" {
		return errors.New("the key is empty")
	}
	if k == "all" {
		return errors.New(`"all" is reserved: it selects the whole catalog`)
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("key characters must be letters, digits, '-', '_' or '.' (they name subtests); %q is not", r)
		}
	}
	return nil
}

func typeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "*"), strings.Contains(goType, "."):
		return "an object"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case goType == "int", goType == "float64":
		return "a number"
	}
	return goType
}

// inSampling reports whether the unknown field quoted (as the decoder
// quotes it) is inside the entry's "sampling" object rather than the
// entry itself: the decoder's error does not say which.
func inSampling(entry json.RawMessage, quoted string) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(entry, &top) != nil {
		return false
	}
	var f string
	if json.Unmarshal([]byte(quoted), &f) != nil {
		return false
	}
	if _, ok := top[f]; ok {
		return false
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(top["sampling"], &s) != nil {
		return false
	}
	_, ok := s[f]
	return ok
}

func samplingFields() []string {
	t := reflect.TypeOf(Sampling{})
	out := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		if n := jsonName(t.Field(i)); n != "" {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Keys lists the catalog's keys in file order.
func (c *Catalog) Keys() []string {
	out := make([]string, len(c.Entries))
	for i, e := range c.Entries {
		out[i] = e.Key
	}
	return out
}

// Get returns the entry for key, or an error listing the valid keys.
func (c *Catalog) Get(key string) (Entry, error) {
	for _, e := range c.Entries {
		if e.Key == key {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("unknown model %q in %s; valid keys: %s", key, c.File, strings.Join(c.Keys(), ", "))
}

// Select applies the selection rules: an empty list is the enabled set;
// "all" is the whole catalog; otherwise exactly the named keys, in the order
// given, even if disabled.
func (c *Catalog) Select(keys []string) ([]Entry, error) {
	switch {
	case len(keys) == 0:
		var out []Entry
		for _, e := range c.Entries {
			if e.Enabled {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no model in %s is enabled; set \"enabled\": true on one, or name models with the models option (valid keys: %s)", c.File, strings.Join(c.Keys(), ", "))
		}
		return out, nil
	case len(keys) == 1 && keys[0] == "all":
		return append([]Entry(nil), c.Entries...), nil
	}
	var out []Entry
	var unknown []string
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		e, err := c.Get(k)
		if err != nil {
			unknown = append(unknown, fmt.Sprintf("%q", k))
			continue
		}
		out = append(out, e)
	}
	if len(unknown) > 0 {
		noun := "model"
		if len(unknown) > 1 {
			noun = "models"
		}
		return nil, fmt.Errorf("unknown %s %s in %s; valid keys: %s (or all)", noun, strings.Join(unknown, ", "), c.File, strings.Join(c.Keys(), ", "))
	}
	return out, nil
}

// BuiltIn reports whether the entry names a model shipped inside feather
// (the smoke model): its settings say so with a BuiltIn method.
func (e Entry) BuiltIn() bool {
	b, ok := e.Settings.(interface{ BuiltIn() bool })
	return ok && b.BuiltIn()
}

// Defaults are the entry's max_tokens and sampling as lm applies them to
// requests that do not set their own. Open wraps every model in them, so
// they have one owner whatever the backend and the suite.
func (e Entry) Defaults() lm.Defaults {
	d := lm.Defaults{MaxNewTokens: e.MaxTokens}
	if e.Sampling != nil {
		d.Sampling = *e.Sampling
	}
	return d
}

// CacheID is the entry's identity for the response cache: the key, the
// backend, the catalog defaults and the backend settings' Identity.
func (e Entry) CacheID() respcache.ModelID {
	id := respcache.ModelID{Key: e.Key, Backend: e.Backend, MaxTokens: e.MaxTokens, Sampling: e.Sampling}
	if id.Backend == "" {
		id.Backend = DefaultBackend // as the loader defaults it
	}
	if e.Settings != nil {
		id.Settings = e.Settings.Identity()
	}
	return id
}

// Info is m's own description, with the entry's key and name filling
// what the backend left empty, for results files.
func (e Entry) Info(m lm.Model) lm.Info {
	info := m.Info()
	if info.Key == "" {
		info.Key = e.Key
	}
	if info.Name == "" {
		info.Name = e.Name
	}
	return info
}
