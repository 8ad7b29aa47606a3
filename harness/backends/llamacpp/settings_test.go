package llamacpp_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/lm"
)

func parse(t *testing.T, entry string) (*catalog.Catalog, error) {
	t.Helper()
	return catalog.Parse(filepath.Join("/cat", "models.json"), []byte(`{"m": `+entry+`}`))
}

// TestSettings: a llamacpp entry's fields, how they are resolved, and
// what identifies the model for the response cache.
func TestSettings(t *testing.T) {
	t.Setenv("HF_HUB_CACHE", t.TempDir())
	c, err := parse(t, `{"backend": "llamacpp", "path": "gguf/tiny.gguf", "n_ctx": 512, "threads": 2, "batch": 64, "chat": "no", "max_tokens": 100}`)
	require.NoError(t, err)
	s := c.Entries[0].Settings.(*llamacpp.Settings)
	assert.Equal(t, "/cat/gguf/tiny.gguf", s.ResolvedPath())
	assert.Equal(t, "gguf/tiny.gguf", s.Target())
	assert.Equal(t, []catalog.Field{
		{Name: "chat", Value: "no"}, {Name: "path", Value: "/cat/gguf/tiny.gguf"}, {Name: "hf", Value: ""},
		{Name: "commit", Value: ""}, {Name: "file", Value: ""}, {Name: "n_ctx", Value: 512},
	}, s.Identity(), "threads and batch change speed, not answers")

	c, err = parse(t, `{"backend": "llamacpp", "hf": "org/tiny-GGUF@v1", "file": "*Q8_0.gguf"}`)
	require.NoError(t, err)
	s = c.Entries[0].Settings.(*llamacpp.Settings)
	assert.Equal(t, "hf:org/tiny-GGUF@v1:*Q8_0.gguf", s.Target())
	assert.Equal(t, []catalog.Field{
		{Name: "chat", Value: ""}, {Name: "path", Value: ""}, {Name: "hf", Value: "org/tiny-GGUF@v1"},
		{Name: "commit", Value: ""}, {Name: "file", Value: "*Q8_0.gguf"}, {Name: "n_ctx", Value: 0},
	}, s.Identity())
}

// TestSettingsErrors: a wrong entry names the field and the fix.
func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct{ entry, err string }{
		{`{"backend": "llamacpp"}`, `a llamacpp model needs "path" (a .gguf file) or "hf" (a Hub repository, ORG/NAME[@REVISION]) with "file" (a glob naming its GGUF file, e.g. "*Q8_0.gguf")`},
		{`{"backend": "llamacpp", "path": "a.gguf", "hf": "org/m"}`, `set one of "path" and "hf", not both`},
		{`{"backend": "llamacpp", "path": "a.gguf", "file": "*Q8_0.gguf"}`, `"file" picks a file of the "hf" repository; with "path", name the .gguf file itself (e.g. "path": "models/model-Q8_0.gguf")`},
		{`{"backend": "llamacpp", "hf": "org/m"}`, `"hf" needs "file", a glob naming one GGUF file of org/m, e.g. "*Q8_0.gguf"`},
		{`{"backend": "llamacpp", "hf": "org", "file": "*.gguf"}`, `"hf": "org" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main`},
		{`{"backend": "llamacpp", "hf": "org/m", "file": "[Q8"}`, `"file": "[Q8" is not a glob (syntax error in pattern); use * and ? as in "*Q8_0.gguf"`},
		{`{"backend": "llamacpp", "path": "a.gguf", "n_ctx": -1}`, `"n_ctx" must be 0 (the model's training context, at most 4096) or more, not -1`},
		{`{"backend": "llamacpp", "path": "a.gguf", "threads": -2}`, `"threads" must be 0 (all cores) or more, not -2`},
		{`{"backend": "llamacpp", "path": "a.gguf", "batch": -3}`, `"batch" must be 0 (512 tokens) or more, not -3`},
		{`{"backend": "llamacpp", "path": "a.gguf", "chat": "maybe"}`, `"chat" must be one of yes, no, auto, not "maybe"`},
		{`{"backend": "llamacpp", "path": "a.gguf", "max_tokens": -1}`, `"max_tokens" must be positive, not -1`},
		{`{"backend": "llamacpp", "path": "a.gguf", "variant": "q4"}`, `unknown field "variant"; known fields are backend, batch, chat, description, enabled, file, hf, max_tokens, n_ctx, name, path, sampling, threads`},
	} {
		_, err := parse(t, tc.entry)
		require.EqualError(t, err, `/cat/models.json: model "m": `+tc.err, tc.entry)
	}
}

// TestCatalogOpen opens an entry through the registry, as the suites do.
func TestCatalogOpen(t *testing.T) {
	path := smol(t)
	c, err := catalog.Parse(filepath.Join(filepath.Dir(path), "models.json"), []byte(`{"tiny": {"backend": "llamacpp", "path": "smol.gguf", "threads": 1, "n_ctx": 256}}`))
	require.NoError(t, err)
	m, err := catalog.Open(context.Background(), c.Entries[0])
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, lm.Info{Key: "tiny", Name: "smol", Backend: "llamacpp", Path: path, Params: 3_168_992, ContextLength: 256}, m.Info())
	_, ok := m.(lm.Scorer)
	assert.True(t, ok)
	_, ok = m.(lm.Generator)
	assert.True(t, ok)
}
