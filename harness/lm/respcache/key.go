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
// No credential is ever read: the identity keeps api_key_env's name out and
// header templates only as a digest, so neither a key read from the
// environment nor a literal header value appears in an entry.
package respcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
)

// Schema versions the key document and the entry file. Bumping it changes
// every key, so old entries are simply never found again.
const Schema = 1

// ModelID is everything about a catalog entry that can change a model's
// answer. Build it with ForModel (or FromEntry); the JSON names are the
// catalog's.
//
// Included: the catalog key (entries are never shared across models), the
// backend, the model name or slug, the endpoint (base_url and url; under
// ForModel, the one the backend resolved, such as OPENROUTER_BASE_URL),
// routing (provider_order), reasoning effort, max_tokens and sampling
// (backends fill in undeclared request fields from them), structured_outputs, chat mode, the local
// model (resolved path or built-in, variant, execution provider: CPU and
// CUDA kernels may round differently and flip a greedy token), the http
// backend's request template and response path, and a SHA-256 of the
// header templates (a custom header may select a model version; literal
// values stay out of the entry, ${NAME} references are never expanded).
//
// Excluded: api_key_env (which account pays does not change the answer,
// and its value is never read), name and description (labels), enabled,
// the catalog's folder (only used to resolve path, which is included
// resolved), and threads, sessions and device_id (speed and placement).
type ModelID struct {
	Key               string          `json:"key"`
	Backend           string          `json:"backend"`
	Model             string          `json:"model,omitempty"`
	BaseURL           string          `json:"base_url,omitempty"`
	ProviderOrder     []string        `json:"provider_order,omitempty"`
	Effort            string          `json:"effort,omitempty"`
	MaxTokens         int             `json:"max_tokens,omitempty"`
	Sampling          *lm.Sampling    `json:"sampling,omitempty"`
	StructuredOutputs bool            `json:"structured_outputs,omitempty"`
	Chat              string          `json:"chat,omitempty"`
	Path              string          `json:"path,omitempty"`
	Builtin           string          `json:"builtin,omitempty"`
	Variant           string          `json:"variant,omitempty"`
	Provider          string          `json:"provider,omitempty"`
	URL               string          `json:"url,omitempty"`
	RequestTemplate   json.RawMessage `json:"request_template,omitempty"`
	ResponsePath      string          `json:"response_path,omitempty"`
	HeadersSHA256     string          `json:"headers_sha256,omitempty"`
}

// Endpointer is a backend that reports the endpoint it resolved (the
// openai backend: base_url, OpenRouter's, or OPENROUTER_BASE_URL).
type Endpointer interface{ BaseURL() string }

// ForModel is the identity of an opened model: FromEntry, with the
// endpoint the backend resolved when it reports one (Endpointer), so an
// answer from a test server is never served for the real endpoint. The
// backend, not this package, knows where its requests go.
func ForModel(e catalog.Entry, m any) ModelID {
	id := FromEntry(e)
	if ep, ok := m.(Endpointer); ok {
		id.BaseURL = ep.BaseURL()
	}
	return id
}

// FromEntry is the identity of a loaded catalog entry, with the catalog's
// base_url (ForModel uses the one the backend resolved).
func FromEntry(e catalog.Entry) ModelID {
	id := ModelID{
		Key:               e.Key,
		Backend:           e.Backend,
		Model:             e.Model,
		BaseURL:           e.BaseURL,
		ProviderOrder:     e.ProviderOrder,
		Effort:            e.Effort,
		MaxTokens:         e.MaxTokens,
		Sampling:          e.Sampling,
		StructuredOutputs: e.StructuredOutputs,
		Chat:              e.Chat,
		Builtin:           e.Builtin,
		Variant:           e.Variant,
		Provider:          e.Provider,
		URL:               e.URL,
		RequestTemplate:   e.RequestTemplate,
		ResponsePath:      e.ResponsePath,
	}
	if id.Backend == "" {
		id.Backend = catalog.OpenRouter // as the catalog loader defaults it
	}
	if e.Path != "" {
		id.Path = e.ResolvedPath()
	}
	if len(e.Headers) > 0 {
		b, _ := json.Marshal(e.Headers) // a map of strings always encodes; keys sorted
		sum := sha256.Sum256(b)
		id.HeadersSHA256 = hex.EncodeToString(sum[:])
	}
	return id
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
		return Key{}, errors.New("respcache: the model identity has no catalog key; build it with FromEntry from a loaded catalog entry")
	case id.Backend == "":
		return Key{}, fmt.Errorf("respcache: model %q: the identity has no backend; build it with FromEntry from a loaded catalog entry", id.Key)
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
