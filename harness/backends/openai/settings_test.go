package openai_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
)

func parseEntry(fields string) (catalog.Entry, error) {
	c, err := catalog.Parse("m.json", []byte(`{"m": {`+fields+`}}`))
	if err != nil {
		return catalog.Entry{}, err
	}
	return c.Entries[0], nil
}

func TestSettingsValidate(t *testing.T) {
	const vllm = `"backend": "openai", "base_url": "http://h/v1", "model": "m", `
	const or = `"model": "a/b", "provider_order": ["a"], `
	for _, tc := range []struct{ name, fields, err string }{
		{"openai without base_url", `"backend": "openai", "model": "m"`,
			`"base_url" is missing: e.g. http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for ollama`},
		{"openai base_url not http", `"backend": "openai", "base_url": "localhost:8000", "model": "m"`,
			`"base_url" "localhost:8000" is not an http(s) URL: e.g. http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for ollama`},
		{"openai without model", `"backend": "openai", "base_url": "http://h/v1"`,
			`an openai model needs "model", the name the server knows it by`},
		{"key pasted into api_key_env", vllm + `"api_key_env": "sk-or-v1-abc"`,
			`"api_key_env" must be the name of the environment variable that holds the key (e.g. "VLLM_API_KEY"), not the key itself`},
		{"openai chat", vllm + `"chat": "auto"`, `"chat" must be one of yes, no, not "auto"`},
		{"openai max_tokens", vllm + `"max_tokens": -1`, `"max_tokens" must be positive, not -1`},
		{"openai sampling", vllm + `"sampling": {"top_k": -1}`, `"sampling.top_k" must be 0 or more, not -1`},
		{"openrouter without model", `"provider_order": ["a"]`,
			`an openrouter model needs "model", its OpenRouter slug such as "anthropic/claude-fable-5"`},
		{"slug without vendor", `"model": "gpt-5.5", "provider_order": ["openai"]`,
			`"model" "gpt-5.5" is not an OpenRouter slug (vendor/name, e.g. "openai/gpt-5.5")`},
		{"no routing pin", `"model": "a/b"`,
			`"provider_order" is missing: pin the upstream that serves the model (e.g. ["anthropic"]) so a run never scores a silent fallback`},
		{"empty provider", `"model": "a/b", "provider_order": ["a", " "]`, `"provider_order" has an empty provider name`},
		{"effort", or + `"effort": "max"`, `"effort" must be one of none, minimal, low, medium, high, xhigh, not "max"`},
		{"openrouter temperature", or + `"sampling": {"temperature": 2.5}`, `"sampling.temperature" must be between 0 and 2, not 2.5`},
		{"openrouter top_p", or + `"sampling": {"top_p": 0}`, `"sampling.top_p" must be in (0, 1], not 0`},
		{"headers belong to openai", or + `"headers": {"X": "y"}`, `"headers" is not used by backend "openrouter"; remove it or change the backend`},
		{"routing belongs to openrouter", vllm + `"effort": "low", "provider_order": ["a"]`,
			`"effort", "provider_order" are not used by backend "openai"; remove it or change the backend`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseEntry(tc.fields)
			require.Error(t, err)
			assert.Equal(t, `m.json: model "m": `+tc.err, err.Error())
		})
	}
}

func TestSettingsParsed(t *testing.T) {
	e, err := parseEntry(`"backend": "openai", "base_url": "http://h/v1/", "model": "m", "api_key_env": "K", "chat": "no", "headers": {"X": "${Y}"}, "structured_outputs": true, "max_tokens": 5`)
	require.NoError(t, err)
	assert.Equal(t, &openai.Settings{Model: "m", BaseURL: "http://h/v1/", APIKeyEnv: "K", Chat: "no", Headers: map[string]string{"X": "${Y}"}, StructuredOutputs: true}, e.Settings)
	assert.Equal(t, 5, e.MaxTokens)
	assert.Equal(t, "m @ http://h/v1/", e.Settings.Target())

	e, err = parseEntry(`"model": "a/b", "provider_order": ["a", "b"], "effort": "low", "structured_outputs": true`)
	require.NoError(t, err)
	assert.Equal(t, openai.OpenRouterName, e.Backend)
	assert.Equal(t, &openai.OpenRouterSettings{Model: "a/b", ProviderOrder: []string{"a", "b"}, Effort: "low", StructuredOutputs: true}, e.Settings)
	assert.Equal(t, "a/b", e.Settings.Target())
}

// An openai identity: the model, the endpoint as requests reach it,
// structured outputs, chat and a digest of the header templates; never
// api_key_env's name nor a header's value.
func TestSettingsIdentity(t *testing.T) {
	const secret = "literal-header-secret"
	s := &openai.Settings{Model: "m", BaseURL: "http://h/v1/", APIKeyEnv: "VLLM_API_KEY", Chat: "no", Headers: map[string]string{"X-Org": secret}, StructuredOutputs: true}
	id := s.Identity()
	assert.Equal(t, []catalog.Field{
		{Name: "model", Value: "m"}, {Name: "base_url", Value: "http://h/v1"}, {Name: "structured_outputs", Value: true},
		{Name: "chat", Value: "no"}, {Name: "headers_sha256", Value: catalog.HeadersSHA256(s.Headers)},
	}, id)
	for _, f := range id {
		assert.NotContains(t, fmt.Sprint(f.Value), "VLLM_API_KEY")
		assert.NotContains(t, fmt.Sprint(f.Value), secret)
	}
	assert.Len(t, catalog.HeadersSHA256(s.Headers), 64)
	assert.Equal(t, "", catalog.HeadersSHA256(nil))
}

// An openrouter identity keys on the endpoint its requests go to.
func TestOpenRouterIdentity(t *testing.T) {
	s := &openai.OpenRouterSettings{Model: "a/b", ProviderOrder: []string{"a"}, Effort: "high", StructuredOutputs: true}
	want := func(base string) []catalog.Field {
		return []catalog.Field{
			{Name: "model", Value: "a/b"}, {Name: "base_url", Value: base}, {Name: "provider_order", Value: []string{"a"}},
			{Name: "effort", Value: "high"}, {Name: "structured_outputs", Value: true},
		}
	}
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	assert.Equal(t, want(openai.OpenRouterBaseURL), s.Identity())
	t.Setenv(openai.OpenRouterBaseURLEnv, "http://127.0.0.1:9/v1/")
	assert.Equal(t, want("http://127.0.0.1:9/v1"), s.Identity())
}

// The package registers the openai backend; openai entries open with the
// api.* options as scoring models.
func TestOpenAIRegistered(t *testing.T) {
	assert.Subset(t, catalog.Names(), []string{openai.Name, openai.OpenRouterName})
	e, err := parseEntry(`"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"`)
	require.NoError(t, err)
	m, err := catalog.Open(context.Background(), e)
	require.NoError(t, err)
	defer m.Close()
	assert.IsType(t, &openai.ScoringModel{}, m)
	assert.Equal(t, "m", m.Info().Path)
}
