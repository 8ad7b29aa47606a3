// Package respcache keeps generations on disk so that rescoring a run
// (after a checker changed, say) does not ask a paid model again.
//
// An entry is one lm.GenerateResult keyed by a SHA-256 over a canonical
// JSON document of the schema version, the model's identity (ModelID: its
// catalog key and every catalog setting that can change the answer), the
// whole lm.GenerateRequest and the trial number. The catalog key is part of
// the identity, so two models never share an entry even when their slug and
// request are identical.
//
// Layout: <dir>/<model key>/<hash[:2]>/<hash>.json, where <model key> is the
// catalog key made safe as a folder name. Each file holds the canonical key
// document (for people, and to catch a file that does not belong to its
// name) and the result. Files are written whole or not at all (temporary
// file and rename), so a crash never leaves half an entry.
//
// Only complete answers are stored: a result with Err set or stop reason
// "error", a failed batch, and a call whose context ended are not. An entry
// that cannot be read back (truncated, edited, another schema) is a miss:
// Get returns an error wrapping ErrCorrupt, and Generate reports it through
// Cache.Report and asks the backend again, replacing the entry.
//
// No credential is ever read: backends keep api_key_env's name out of
// their identity and header templates only as a digest, so neither a key
// read from the environment nor a literal header value appears in an
// entry.
package respcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
)

// Schema versions the key document and the entry file. Bumping it changes
// every key, so old entries are simply never found again.
const Schema = 1

// ModelID is everything about a catalog entry that can change a model's
// answer. The catalog builds it (catalog.Entry.CacheID); the JSON names
// are the catalog's.
//
// Included: the catalog key (entries are never shared across models), the
// backend, the catalog defaults max_tokens and sampling (backends fill in
// undeclared request fields from them), and the backend settings'
// Identity: what the backend says can change an answer, resolved as it
// resolves it (an openrouter entry's endpoint comes from
// OPENROUTER_BASE_URL, so a test server's answers are never served for the
// real endpoint).
//
// Excluded: name and description (labels), enabled, the catalog's folder
// (backends resolve paths from it), and whatever a backend leaves out of
// its Identity (credentials always: api_key_env's name, header values).
type ModelID struct {
	Key       string
	Backend   string
	MaxTokens int
	Sampling  *lm.Sampling
	// Settings is the backend settings' Identity.
	Settings []Field
}

// Field is one setting of a model's identity under its catalog name. Empty
// values (as encoding/json's omitempty sees them) count as unset.
type Field struct {
	Name  string
	Value any
}

// keyOrder is the order of the identity's members after key and backend
// in the key document, fixed when the identity was one flat struct so that
// stored keys keep matching. Members it does not name follow in the
// backend's order.
var keyOrder = []string{
	"model", "base_url", "provider_order", "effort", "max_tokens", "sampling",
	"structured_outputs", "chat", "path", "builtin", "variant", "provider", "url",
	"request_template", "response_path", "headers_sha256",
}

// MarshalJSON writes the identity as one flat object in keyOrder, leaving
// out empty members as omitempty would (key and backend always).
func (id ModelID) MarshalJSON() ([]byte, error) {
	fields := append([]Field{{Name: "max_tokens", Value: id.MaxTokens}, {Name: "sampling", Value: id.Sampling}}, id.Settings...)
	rank := func(name string) int { return slices.Index(keyOrder, name) }
	fields = slices.DeleteFunc(fields, func(f Field) bool { return isEmpty(f.Value) })
	slices.SortStableFunc(fields, func(a, b Field) int {
		ra, rb := rank(a.Name), rank(b.Name)
		switch {
		case ra < 0 && rb < 0:
			return 0
		case ra < 0:
			return 1
		case rb < 0:
			return -1
		}
		return ra - rb
	})
	fields = append([]Field{{Name: "key", Value: id.Key}, {Name: "backend", Value: id.Backend}}, fields...)
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := canonicalJSON(f.Name)
		value, err := canonicalJSON(f.Value)
		if err != nil {
			return nil, fmt.Errorf("identity field %s: %w", f.Name, err)
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return r.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return r.IsNil()
	}
	return r.IsZero()
}

// keyDoc is the document hashed. Field order is fixed by the struct and
// map keys are sorted by encoding/json, so the bytes are canonical. Raw
// JSON (tool parameters, response format, request template) is compacted
// but keeps its member order: a structured-output model writes properties
// in schema order, so reordering a schema can change the answer.
type keyDoc struct {
	Schema  int                `json:"schema"`
	Model   ModelID            `json:"model"`
	Request lm.GenerateRequest `json:"request"`
	Trial   int                `json:"trial"`
}

// Key identifies one entry: a model, a request and a trial.
type Key struct {
	model     string
	sum       [sha256.Size]byte
	canonical []byte
}

// NewKey computes the key of req's trial on the model id. It fails when
// the identity lacks its catalog key or backend, the trial is negative, or
// the request holds raw JSON that is not valid (tool parameters, response
// format).
func NewKey(id ModelID, req lm.GenerateRequest, trial int) (Key, error) {
	switch {
	case id.Key == "":
		return Key{}, errors.New("respcache: the model identity has no catalog key; build it with catalog.Entry.CacheID from a loaded catalog entry")
	case id.Backend == "":
		return Key{}, fmt.Errorf("respcache: model %q: the identity has no backend; build it with catalog.Entry.CacheID from a loaded catalog entry", id.Key)
	case trial < 0:
		return Key{}, fmt.Errorf("respcache: model %q: trial %d is negative; trials are numbered from 1", id.Key, trial)
	}
	b, err := canonicalJSON(keyDoc{Schema: Schema, Model: id, Request: req, Trial: trial})
	if err != nil {
		return Key{}, fmt.Errorf("respcache: model %q trial %d: encoding the request key: %w (check the tools' parameters and the response format are valid JSON)", id.Key, trial, err)
	}
	return Key{model: id.Key, sum: sha256.Sum256(b), canonical: b}, nil
}

// Hex is the key's SHA-256 in lower-case hex: the entry's file name.
func (k Key) Hex() string { return hex.EncodeToString(k.sum[:]) }

// String is Hex.
func (k Key) String() string { return k.Hex() }

// Model is the catalog key of the model the key belongs to.
func (k Key) Model() string { return k.model }

// Canonical is a copy of the JSON document the key hashes.
func (k Key) Canonical() []byte { return bytes.Clone(k.canonical) }

// canonicalJSON encodes v without HTML escaping (entries stay readable; the
// choice is fixed, so keys are stable) and without the trailing newline.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// modelDir makes a catalog key safe as one folder name: characters outside
// letters, digits, '-', '_' and '.' become '_', a leading '.' is prefixed
// (no hidden folders, no "." or ".."), and long keys are cut. Distinct keys
// may share a folder; their hashes still differ.
func modelDir(key string) string {
	const maxLen = 100
	var b strings.Builder
	for _, r := range key {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= maxLen {
			break
		}
	}
	s := b.String()
	if s == "" || s[0] == '.' {
		s = "_" + s
	}
	return s
}
