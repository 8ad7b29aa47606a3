package catalog_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/openai"
)

// The shipped backends register themselves; these tests load catalogs
// with all of them, as the binaries do.
var _ = httpapi.Name

const sample = `{
  "_comment": "keys starting with _ are notes",
  "fable-5": {"enabled": true, "model": "anthropic/claude-fable-5", "provider_order": ["anthropic"], "effort": "high", "max_tokens": 64000, "structured_outputs": true},
  "glm-5.3": {"enabled": true, "model": "z-ai/glm-5.3", "provider_order": ["z-ai/fp8"], "sampling": {"temperature": 0, "seed": 7}},
  "haiku-4-5": {"enabled": false, "model": "anthropic/claude-haiku-4-5", "provider_order": ["anthropic"]},
  "smoke": {"backend": "onnx", "builtin": "smoke"},
  "local-vllm": {"backend": "openai", "base_url": "http://localhost:8000/v1", "model": "Qwen/Qwen2.5-0.5B-Instruct", "api_key_env": "VLLM_API_KEY", "structured_outputs": true},
  "chathaiku": {"backend": "http", "url": "http://localhost:9000/chat", "request_template": {"input": "{{prompt}}"}, "response_path": "output.text"}
}`

func TestSelection(t *testing.T) {
	c, err := catalog.Parse("models.json", []byte(sample))
	require.NoError(t, err)
	keys := func(es []catalog.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Key)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		sel  []string
		want []string
		err  string
	}{
		{name: "default is the enabled set", sel: nil, want: []string{"fable-5", "glm-5.3"}},
		{name: "explicit keys even if disabled, in the order given", sel: []string{"smoke", "haiku-4-5"}, want: []string{"smoke", "haiku-4-5"}},
		{name: "repeats collapse", sel: []string{"smoke", "smoke"}, want: []string{"smoke"}},
		{name: "all is the whole catalog", sel: []string{"all"}, want: []string{"fable-5", "glm-5.3", "haiku-4-5", "smoke", "local-vllm", "chathaiku"}},
		{name: "unknown key lists valid keys", sel: []string{"gpt-9"}, err: `unknown model "gpt-9" in models.json; valid keys: fable-5, glm-5.3, haiku-4-5, smoke, local-vllm, chathaiku (or all)`},
		{name: "several unknown keys", sel: []string{"smoke", "a", "b"}, err: `unknown models "a", "b" in models.json; valid keys: fable-5, glm-5.3, haiku-4-5, smoke, local-vllm, chathaiku (or all)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Select(tc.sel)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, keys(got))
		})
	}
}

func TestEntriesDecoded(t *testing.T) {
	c, err := catalog.Parse("models/models.json", []byte(sample))
	require.NoError(t, err)
	fable, err := c.Get("fable-5")
	require.NoError(t, err)
	assert.Equal(t, openai.OpenRouterName, fable.Backend, "entries without a backend are OpenRouter models, as in Featherbench's models.json")
	assert.Equal(t, &openai.OpenRouterSettings{Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic"}, Effort: "high", StructuredOutputs: true}, fable.Settings)
	assert.Equal(t, 64000, fable.MaxTokens)
	glm, _ := c.Get("glm-5.3")
	require.NotNil(t, glm.Sampling)
	assert.Equal(t, 0.0, *glm.Sampling.Temperature, "a declared zero temperature is kept")
	assert.Nil(t, glm.Sampling.TopP, "undeclared sampling stays undeclared")
	vllm, _ := c.Get("local-vllm")
	assert.Equal(t, &openai.Settings{Model: "Qwen/Qwen2.5-0.5B-Instruct", BaseURL: "http://localhost:8000/v1", APIKeyEnv: "VLLM_API_KEY", StructuredOutputs: true}, vllm.Settings,
		"openai entries may declare structured outputs")
	assert.False(t, glm.Settings.(*openai.OpenRouterSettings).StructuredOutputs, "structured outputs are opt-in")
	haiku, _ := c.Get("chathaiku")
	assert.Equal(t, &httpapi.Settings{URL: "http://localhost:9000/chat", RequestTemplate: []byte(`{"input": "{{prompt}}"}`), ResponsePath: "output.text"}, haiku.Settings)
	assert.Equal(t, "local-vllm", vllm.Label(), "the key labels an entry without a name")
}

func TestNoEnabledModel(t *testing.T) {
	c, err := catalog.Parse("m.json", []byte(`{"smoke": {"backend": "onnx", "builtin": "smoke"}}`))
	require.NoError(t, err)
	_, err = c.Select(nil)
	assert.EqualError(t, err, `no model in m.json is enabled; set "enabled": true on one, or name models with the models option (valid keys: smoke)`)
}

func TestMalformedCatalogs(t *testing.T) {
	for _, tc := range []struct{ name, json, err string }{
		{"bad JSON with line and column", "{\n  \"a\": {\"backend\": \"onnx\",, \"builtin\": \"smoke\"}\n}",
			`m.json:2:27: invalid JSON: invalid character ',' looking for beginning of object key string`},
		{"truncated file", "{\n  \"a\": {\"backend\": \"onnx\"",
			`m.json:2:26: invalid JSON: unexpected end of input (a missing closing brace or bracket?)`},
		{"not an object", `["fable-5"]`,
			`m.json: the catalog must be a JSON object mapping model keys to entries, e.g. {"smoke": {...}}`},
		{"empty catalog", `{}`,
			`m.json: the catalog has no models; add an entry such as "smoke": {"backend": "onnx", "builtin": "smoke", "enabled": true}`},
		{"entry not an object", `{"a": "anthropic/claude-fable-5"}`,
			`m.json: model "a": the entry must be a JSON object`},
		{"duplicate key", "{\n\"a\": {\"backend\": \"onnx\", \"builtin\": \"smoke\"},\n\"a\": {\"backend\": \"onnx\", \"builtin\": \"smoke\"}\n}",
			`m.json:3: duplicate model key "a" (first defined on line 2); rename one of them`},
		{"unknown backend", `{"a": {"backend": "llamacpp", "path": "x"}}`,
			`m.json: model "a": unknown backend "llamacpp"; valid backends are http, onnx, openai, openrouter`},
		{"unknown field", `{"a": {"backend": "onnx", "builtin": "smoke", "enabeld": true}}`,
			`m.json: model "a": unknown field "enabeld"; known fields are api_key_env, backend, base_url, builtin, chat, description, device_id, dtype, effort, enabled, headers, hf, max_tokens, model, name, path, provider, provider_order, request_template, response_path, revision, sampling, sessions, structured_outputs, threads, url, variant`},
		{"missing slug", `{"a": {"provider_order": ["anthropic"]}}`,
			`m.json: model "a": an openrouter model needs "model", its OpenRouter slug such as "anthropic/claude-fable-5"`},
		{"slug without vendor", `{"a": {"model": "gpt-5.5", "provider_order": ["openai"]}}`,
			`m.json: model "a": "model" "gpt-5.5" is not an OpenRouter slug (vendor/name, e.g. "openai/gpt-5.5")`},
		{"missing routing pin", `{"a": {"model": "openai/gpt-5.5"}}`,
			`m.json: model "a": "provider_order" is missing: pin the upstream that serves the model (e.g. ["anthropic"]) so a run never scores a silent fallback`},
		{"bad effort", `{"a": {"model": "openai/gpt-5.5", "provider_order": ["openai"], "effort": "maximum"}}`,
			`m.json: model "a": "effort" must be one of none, minimal, low, medium, high, xhigh, not "maximum"`},
		{"missing folder", `{"a": {"backend": "onnx"}}`,
			`m.json: model "a": an onnx model needs "path" (a Hugging Face ONNX export folder), "hf" (a Hub repository, ORG/NAME[@REVISION]) or "builtin" (e.g. "smoke")`},
		{"wrong type", `{"a": {"backend": "onnx", "builtin": "smoke", "threads": "four"}}`,
			`m.json: model "a": field "threads" must be a number, not a JSON string`},
		{"field of another backend", `{"a": {"backend": "onnx", "path": "m", "provider_order": ["x"], "effort": "high"}}`,
			`m.json: model "a": "provider_order", "effort" are not used by backend "onnx"; remove it or change the backend`},
		{"structured_outputs on a backend without it", `{"a": {"backend": "http", "url": "http://h/x", "request_template": {"q": "{{prompt}}"}, "response_path": "a", "structured_outputs": true}}`,
			`m.json: model "a": "structured_outputs" is not used by backend "http"; remove it or change the backend`},
		{"structured_outputs not a boolean", `{"a": {"model": "x/y", "provider_order": ["x"], "structured_outputs": "yes"}}`,
			`m.json: model "a": field "structured_outputs" must be true or false, not a JSON string`},
		{"key pasted into api_key_env", `{"a": {"backend": "openai", "base_url": "http://h/v1", "model": "m", "api_key_env": "sk-or-v1-abc"}}`,
			`m.json: model "a": "api_key_env" must be the name of the environment variable that holds the key (e.g. "VLLM_API_KEY"), not the key itself`},
		{"openai without base_url", `{"a": {"backend": "openai", "model": "m"}}`,
			`m.json: model "a": "base_url" is missing: e.g. http://localhost:8000/v1 for vLLM or http://localhost:11434/v1 for ollama`},
		{"http template without placeholder", `{"a": {"backend": "http", "url": "http://h/x", "request_template": {"q": "hi"}, "response_path": "a"}}`,
			`m.json: model "a": "request_template" has no "{{prompt}}" placeholder; put it in the string field that carries the prompt`},
		{"negative answer cap", `{"a": {"backend": "onnx", "builtin": "smoke", "max_tokens": -5}}`,
			`m.json: model "a": "max_tokens" must be positive, not -5`},
		{"negative sessions", `{"a": {"backend": "onnx", "builtin": "smoke", "sessions": -1}}`,
			`m.json: model "a": "sessions" must be 0 (one) or more, not -1`},
		{"sampling not an object", `{"a": {"model": "x/y", "provider_order": ["x"], "sampling": "hot"}}`,
			`m.json: model "a": field "sampling" must be an object, not a JSON string`},
		{"bad chat value", `{"a": {"backend": "onnx", "path": "m", "chat": "maybe"}}`,
			`m.json: model "a": "chat" must be one of yes, no, auto, not "maybe"`},
		{"sampling out of range", `{"a": {"model": "x/y", "provider_order": ["x"], "sampling": {"top_p": 1.5}}}`,
			`m.json: model "a": "sampling.top_p" must be in (0, 1], not 1.5`},
		{"reserved key", `{"all": {"backend": "onnx", "builtin": "smoke"}}`,
			`m.json: model "all": "all" is reserved: it selects the whole catalog`},
		{"key unusable as a subtest name", `{"my model": {"backend": "onnx", "builtin": "smoke"}}`,
			`m.json: model "my model": key characters must be letters, digits, '-', '_' or '.' (they name subtests); ' ' is not`},
		{"every bad entry is reported", `{"a": {"backend": "onnx"}, "b": {"model": "x/y"}}`,
			"m.json: model \"a\": an onnx model needs \"path\" (a Hugging Face ONNX export folder), \"hf\" (a Hub repository, ORG/NAME[@REVISION]) or \"builtin\" (e.g. \"smoke\")\n" +
				"m.json: model \"b\": \"provider_order\" is missing: pin the upstream that serves the model (e.g. [\"anthropic\"]) so a run never scores a silent fallback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalog.Parse("m.json", []byte(tc.json))
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

func TestLoadMissingFileAndRelativePaths(t *testing.T) {
	_, err := catalog.Load("/nonexistent/models.json")
	assert.EqualError(t, err, "model catalog /nonexistent/models.json does not exist; pass another with the catalog option or create it (see models/ for examples)")

	dir := t.TempDir()
	f := filepath.Join(dir, "local.json")
	require.NoError(t, os.WriteFile(f, []byte(`{"m": {"backend": "onnx", "path": "onnx-models/smollm"}}`), 0o644))
	c, err := catalog.Load(f)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "onnx-models/smollm"), c.Entries[0].Settings.(*onnx.Settings).ResolvedPath(), "relative paths resolve from the catalog's folder")
}
