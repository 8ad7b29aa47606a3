package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
)

// scripted is a test backend's settings.
type scripted struct {
	Answer string   `json:"answer,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Token  string   `json:"token_env,omitempty"`
	dir    string
}

func (s *scripted) Validate(e Entry) error {
	s.dir = e.Dir
	if s.Answer == "" {
		return errors.New(`a scripted model needs "answer"`)
	}
	return CheckDefaults(e)
}

func (s *scripted) Identity() []Field { return []Field{{Name: "answer", Value: s.Answer}} }
func (s *scripted) Target() string    { return s.Answer }

// tagged is another backend's settings, sharing "tags".
type tagged struct {
	Tags []string `json:"tags,omitempty"`
	Mode string   `json:"mode,omitempty"`
}

func (s *tagged) Validate(Entry) error { return OneOf("mode", s.Mode, "", "fast", "slow") }
func (s *tagged) Identity() []Field    { return []Field{{Name: "mode", Value: s.Mode}} }
func (s *tagged) Target() string       { return s.Mode }

func testRegistry() *Registry {
	r := &Registry{}
	r.Register("scripted", Backend{
		Settings: func() Settings { return new(scripted) },
		Defaults: []string{"max_tokens", "sampling"},
		Open: func(_ context.Context, e Entry) (lm.Model, error) {
			return &fake.Model{ModelInfo: lm.Info{Key: e.Key, Backend: e.Backend, Path: e.Settings.Target()}}, nil
		},
	})
	r.Register("tagged", Backend{Settings: func() Settings { return new(tagged) }, Unavailable: "live calls need -tags tagged"})
	return r
}

func TestRegistryOpen(t *testing.T) {
	r := testRegistry()
	c, err := r.Parse("m.json", []byte(`{"k": {"backend": "scripted", "answer": "B"}, "t": {"backend": "tagged", "mode": "fast"}}`))
	require.NoError(t, err)

	m, err := r.Open(context.Background(), c.Entries[0])
	require.NoError(t, err)
	assert.Equal(t, lm.Info{Key: "k", Backend: "scripted", Path: "B"}, m.Info())

	_, err = r.Open(context.Background(), c.Entries[1])
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.EqualError(t, err, `model "t": backend unavailable in this build: live calls need -tags tagged`)

	_, err = r.Open(context.Background(), Entry{Key: "k", Backend: "nope"})
	assert.EqualError(t, err, `model "k": backend "nope" is not registered (known: scripted, tagged)`)
	assert.Equal(t, []string{"scripted", "tagged"}, r.Names())
}

func TestRegisterMistakesPanic(t *testing.T) {
	r := testRegistry()
	assert.PanicsWithValue(t, "catalog: backend scripted registered twice", func() {
		r.Register("scripted", Backend{Settings: func() Settings { return new(scripted) }})
	})
	assert.PanicsWithValue(t, "catalog: backend bare registered without Settings", func() { r.Register("bare", Backend{}) })

	assert.PanicsWithValue(t, `catalog: field "tags" is []string in backend scripted but string in clash`, func() {
		r.Register("clash", Backend{Settings: func() Settings { return new(clashing) }})
	})
	assert.Equal(t, []string{"scripted", "tagged"}, r.Names(), "a registration that panics changes nothing")
	assert.PanicsWithValue(t, "catalog: settings must be a pointer to a struct, not catalog.byValue", func() {
		r.Register("by-value", Backend{Settings: func() Settings { return byValue{} }})
	})
}

// byValue are settings that could not be decoded into.
type byValue struct{}

func (byValue) Validate(Entry) error { return nil }
func (byValue) Identity() []Field    { return nil }
func (byValue) Target() string       { return "" }

// clashing declares "tags" with another type than the other backends.
type clashing struct {
	Tags string `json:"tags"`
}

func (s *clashing) Validate(Entry) error { return nil }
func (s *clashing) Identity() []Field    { return nil }
func (s *clashing) Target() string       { return "" }

func TestRegistryParse(t *testing.T) {
	r := testRegistry()
	for _, tc := range []struct{ name, json, err string }{
		{"unknown backend lists the registered ones", `{"a": {"backend": "onnx"}}`,
			`m.json: model "a": unknown backend "onnx"; valid backends are scripted, tagged`},
		{"known fields are every backend's and the common ones", `{"a": {"backend": "tagged", "moed": "fast"}}`,
			`m.json: model "a": unknown field "moed"; known fields are answer, backend, description, enabled, max_tokens, mode, name, sampling, tags, token_env`},
		{"a backend's field type is checked before the backend is known", `{"a": {"backend": "nope", "tags": "x"}}`,
			`m.json: model "a": field "tags" must be a list, not a JSON string`},
		{"another backend's fields, in the entry's order", `{"a": {"backend": "tagged", "token_env": "X", "answer": "B", "tags": ["t"]}}`,
			`m.json: model "a": "token_env", "answer" are not used by backend "tagged"; remove it or change the backend`},
		{"a default the backend does not apply", `{"a": {"backend": "tagged", "max_tokens": 5}}`,
			`m.json: model "a": "max_tokens" is not used by backend "tagged"; remove it or change the backend`},
		{"an empty foreign value is let through, then validated", `{"a": {"backend": "tagged", "answer": "", "mode": "warp"}}`,
			`m.json: model "a": "mode" must be one of fast, slow, not "warp"`},
		{"names match as encoding/json matches them", `{"a": {"backend": "tagged", "Answer": "B"}}`,
			`m.json: model "a": "answer" is not used by backend "tagged"; remove it or change the backend`},
		{"the backend validates with the common fields", `{"a": {"backend": "scripted", "answer": "B", "max_tokens": -1}}`,
			`m.json: model "a": "max_tokens" must be positive, not -1`},
		{"no backend is the default backend", `{"a": {"answer": "B"}}`,
			`m.json: model "a": unknown backend "openrouter"; valid backends are scripted, tagged`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Parse("m.json", []byte(tc.json))
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

func TestRegistryParseSettings(t *testing.T) {
	r := testRegistry()
	c, err := r.Parse("cat/m.json", []byte(`{"k": {"backend": "scripted", "answer": "B", "tags": ["x"], "max_tokens": 9, "name": "K"}}`))
	require.NoError(t, err)
	e := c.Entries[0]
	assert.Equal(t, &scripted{Answer: "B", Tags: []string{"x"}, dir: "cat"}, e.Settings, "the backend decodes its fields and keeps the folder")
	assert.Equal(t, Entry{Key: "k", Dir: "cat", Backend: "scripted", Name: "K", MaxTokens: 9, Settings: e.Settings}, e)
}

func TestParseWithoutBackends(t *testing.T) {
	_, err := (&Registry{}).Parse("m.json", []byte(`{"a": {"backend": "onnx", "builtin": "smoke"}}`))
	assert.EqualError(t, err, "m.json: no backend is linked into this program; blank-import the backend packages (harness/backends/onnx, openai, httpapi)")
}

// TestOpenAppliesTheDefaults: a model's max_tokens and sampling reach
// every request that does not set its own, whatever the backend, because
// Open wraps the model in them; a request's own settings win.
func TestOpenAppliesTheDefaults(t *testing.T) {
	r := &Registry{}
	inner := &fake.Model{Reply: fake.Text("ok")}
	r.Register("scripted", Backend{
		Settings: func() Settings { return new(scripted) },
		Defaults: []string{"max_tokens", "sampling"},
		Open:     func(context.Context, Entry) (lm.Model, error) { return inner, nil },
	})
	c, err := r.Parse("m.json", []byte(`{"k": {"backend": "scripted", "answer": "B", "max_tokens": 300, "sampling": {"temperature": 0.5, "seed": 7}}}`))
	require.NoError(t, err)
	m, err := r.Open(context.Background(), c.Entries[0])
	require.NoError(t, err)
	_, err = m.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "a"}, {Prompt: "b", MaxNewTokens: 20, Sampling: lm.Greedy()}})
	require.NoError(t, err)
	calls := inner.Calls().Generate
	require.Len(t, calls, 2)
	assert.Equal(t, 300, calls[0].MaxNewTokens)
	assert.Equal(t, 0.5, *calls[0].Sampling.Temperature)
	assert.Equal(t, 7, *calls[0].Sampling.Seed)
	assert.Equal(t, 20, calls[1].MaxNewTokens, "the request's own cap wins")
	assert.Equal(t, 0.0, *calls[1].Sampling.Temperature, "and its own sampling")
	assert.Equal(t, 7, *calls[1].Sampling.Seed, "undeclared fields still come from the catalog")
	_, scores := m.(lm.Scorer)
	assert.True(t, scores, "the wrapped model keeps its capabilities")
}
