package respcache_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
)

const goldenCanonical = `{"schema":1,"model":{"key":"fable","backend":"openrouter","model":"anthropic/claude-fable-5","provider_order":["anthropic","google-vertex"],"effort":"high","max_tokens":4096,"sampling":{"temperature":0.7,"seed":42},"structured_outputs":true},"request":{"messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Is 2 < 3 && 3 > 2? Reply \"yes\" or \"no\"."}],"tools":[{"name":"lookup","description":"Look a word up.","parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}}],"max_new_tokens":256,"sampling":{"temperature":0,"top_p":1},"response_format":{"title":"verdict","type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}},"trial":3}`

// The key of a fixed request is pinned: changing it (a new field without
// omitempty, another encoder) silently drops every stored answer, so it
// must be a deliberate Schema bump.
func TestKeyGolden(t *testing.T) {
	k, err := respcache.NewKey(respcache.FromEntry(goldenEntry()), goldenRequest(), 3)
	require.NoError(t, err)
	assert.Equal(t, goldenCanonical, string(k.Canonical()))
	assert.Equal(t, "84c241681dfa382d728feb8bf4483dfa4a835e487b164b82b0f34a45f50472b6", k.Hex())
	assert.Equal(t, k.Hex(), k.String())
	assert.Equal(t, "fable", k.Model())
}

func TestFromEntry(t *testing.T) {
	t.Setenv("RESPCACHE_TEST_HEADER", "secret-header-value")
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		entry catalog.Entry
		want  respcache.ModelID
	}{
		{
			name: "openrouter, labels and enabled left out",
			entry: catalog.Entry{Key: "fable", Backend: catalog.OpenRouter, Enabled: true, Name: "Fable", Description: "d",
				Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic"}, Effort: "low"},
			want: respcache.ModelID{Key: "fable", Backend: "openrouter", Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic"}, Effort: "low"},
		},
		{
			name:  "no backend is openrouter, as the catalog reads it",
			entry: catalog.Entry{Key: "x", Model: "a/b", ProviderOrder: []string{"a"}},
			want:  respcache.ModelID{Key: "x", Backend: "openrouter", Model: "a/b", ProviderOrder: []string{"a"}},
		},
		{
			name: "openai: api_key_env left out, headers as a digest of their templates",
			entry: catalog.Entry{Key: "local", Backend: catalog.OpenAI, Model: "qwen", BaseURL: "http://localhost:8000/v1",
				APIKeyEnv: "VLLM_API_KEY", Chat: "no", Headers: map[string]string{"X-Team": "${RESPCACHE_TEST_HEADER}"}},
			want: respcache.ModelID{Key: "local", Backend: "openai", Model: "qwen", BaseURL: "http://localhost:8000/v1", Chat: "no",
				// sha256 of {"X-Team":"${RESPCACHE_TEST_HEADER}"}
				HeadersSHA256: "45488888529b43a6988634fd0156234e5f8b14a96030aceb313df324cf6b3098"},
		},
		{
			name: "onnx: path resolved, threads sessions and device left out",
			entry: catalog.Entry{Key: "tiny", Backend: catalog.ONNX, Dir: dir, Path: "models/tiny", Variant: "int8",
				Provider: "cuda", DeviceID: 1, Threads: 4, Sessions: 2},
			want: respcache.ModelID{Key: "tiny", Backend: "onnx", Path: filepath.Join(dir, "models/tiny"), Variant: "int8", Provider: "cuda"},
		},
		{
			name: "http",
			entry: catalog.Entry{Key: "srv", Backend: catalog.HTTP, URL: "http://localhost:9000/gen",
				RequestTemplate: json.RawMessage(`{"p": "{{prompt}}"}`), ResponsePath: "out.text"},
			want: respcache.ModelID{Key: "srv", Backend: "http", URL: "http://localhost:9000/gen",
				RequestTemplate: json.RawMessage(`{"p": "{{prompt}}"}`), ResponsePath: "out.text"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, respcache.FromEntry(tc.entry))
		})
	}
}

type endpoint string

func (e endpoint) BaseURL() string { return string(e) }

// ForModel keys on the endpoint the backend resolved (an openrouter entry's
// comes from OPENROUTER_BASE_URL), so a test server's answers are never
// served for the real endpoint.
func TestForModelUsesTheBackendsEndpoint(t *testing.T) {
	e := catalog.Entry{Key: "x", Backend: catalog.OpenRouter, Model: "a/b", ProviderOrder: []string{"a"}}
	assert.Equal(t, "", respcache.FromEntry(e).BaseURL)
	assert.Equal(t, "http://127.0.0.1:5555/v1", respcache.ForModel(e, endpoint("http://127.0.0.1:5555/v1")).BaseURL)
	assert.Equal(t, respcache.FromEntry(e), respcache.ForModel(e, struct{}{}), "a backend that does not say keeps the catalog's")
	real, err := respcache.NewKey(respcache.ForModel(e, endpoint("https://openrouter.ai/api/v1")), lm.GenerateRequest{}, 1)
	require.NoError(t, err)
	test, err := respcache.NewKey(respcache.ForModel(e, endpoint("http://127.0.0.1:5555/v1")), lm.GenerateRequest{}, 1)
	require.NoError(t, err)
	assert.NotEqual(t, real.Hex(), test.Hex())
}

// Anything that can change the answer changes the key.
func TestKeyChanges(t *testing.T) {
	base, err := respcache.NewKey(respcache.FromEntry(goldenEntry()), goldenRequest(), 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		entry func(*catalog.Entry)
		req   func(*lm.GenerateRequest)
		trial int
	}{
		{name: "trial", trial: 4},
		{name: "catalog key", entry: func(e *catalog.Entry) { e.Key = "fable-2" }},
		{name: "slug", entry: func(e *catalog.Entry) { e.Model = "anthropic/claude-fable-5.1" }},
		{name: "provider order", entry: func(e *catalog.Entry) { e.ProviderOrder = []string{"google-vertex", "anthropic"} }},
		{name: "effort", entry: func(e *catalog.Entry) { e.Effort = "low" }},
		{name: "entry max tokens", entry: func(e *catalog.Entry) { e.MaxTokens = 8192 }},
		{name: "entry sampling", entry: func(e *catalog.Entry) { e.Sampling = &lm.Sampling{Temperature: ptr(0.7), Seed: ptr(43)} }},
		{name: "structured outputs", entry: func(e *catalog.Entry) { e.StructuredOutputs = false }},
		{name: "base url", entry: func(e *catalog.Entry) { e.BaseURL = "http://localhost:1/v1" }},
		{name: "headers", entry: func(e *catalog.Entry) { e.Headers = map[string]string{"X-Version": "2"} }},
		{name: "message", req: func(r *lm.GenerateRequest) { r.Messages[1].Content += " " }},
		{name: "role", req: func(r *lm.GenerateRequest) { r.Messages[0].Role = "developer" }},
		{name: "prompt instead", req: func(r *lm.GenerateRequest) { r.Messages, r.Prompt = nil, "Is 2 < 3?" }},
		{name: "tool description", req: func(r *lm.GenerateRequest) { r.Tools[0].Description = "Look up a word." }},
		{name: "tool parameters", req: func(r *lm.GenerateRequest) { r.Tools[0].Parameters = json.RawMessage(`{"type":"object"}`) }},
		{name: "no tools", req: func(r *lm.GenerateRequest) { r.Tools = nil }},
		{name: "max new tokens", req: func(r *lm.GenerateRequest) { r.MaxNewTokens = 257 }},
		{name: "temperature", req: func(r *lm.GenerateRequest) { r.Sampling.Temperature = ptr(0.0001) }},
		{name: "temperature undeclared", req: func(r *lm.GenerateRequest) { r.Sampling.Temperature = nil }},
		{name: "top_k declared", req: func(r *lm.GenerateRequest) { r.Sampling.TopK = ptr(0) }},
		{name: "seed", req: func(r *lm.GenerateRequest) { r.Sampling.Seed = ptr(1) }},
		{name: "response format", req: func(r *lm.GenerateRequest) { r.ResponseFormat = nil }},
		{name: "schema member order", req: func(r *lm.GenerateRequest) {
			r.ResponseFormat = json.RawMessage(`{"title":"verdict","type":"object","properties":{"a":{"type":"number"},"z":{"type":"string"}}}`)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, req, trial := goldenEntry(), goldenRequest(), 3
			if tc.entry != nil {
				tc.entry(&e)
			}
			if tc.req != nil {
				tc.req(&req)
			}
			if tc.trial != 0 {
				trial = tc.trial
			}
			k, err := respcache.NewKey(respcache.FromEntry(e), req, trial)
			require.NoError(t, err)
			assert.NotEqual(t, base.Hex(), k.Hex())
		})
	}
}

// What cannot change the answer leaves the key alone.
func TestKeyIgnores(t *testing.T) {
	base, err := respcache.NewKey(respcache.FromEntry(goldenEntry()), goldenRequest(), 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		entry func(*catalog.Entry)
		req   func(*lm.GenerateRequest)
	}{
		{name: "display name", entry: func(e *catalog.Entry) { e.Name, e.Description = "Other", "words" }},
		{name: "disabled", entry: func(e *catalog.Entry) { e.Enabled = false }},
		{name: "catalog folder", entry: func(e *catalog.Entry) { e.Dir = "/elsewhere" }},
		{name: "whitespace in a schema", req: func(r *lm.GenerateRequest) {
			r.ResponseFormat = json.RawMessage("{\n  \"title\": \"verdict\",\n  \"type\": \"object\",\n  \"properties\": {\"z\": {\"type\": \"string\"}, \"a\": {\"type\": \"number\"}}\n}")
		}},
		{name: "fresh sampling pointers", req: func(r *lm.GenerateRequest) { r.Sampling = lm.Sampling{Temperature: ptr(0.0), TopP: ptr(1.0)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, req := goldenEntry(), goldenRequest()
			if tc.entry != nil {
				tc.entry(&e)
			}
			if tc.req != nil {
				tc.req(&req)
			}
			k, err := respcache.NewKey(respcache.FromEntry(e), req, 3)
			require.NoError(t, err)
			assert.Equal(t, base.Hex(), k.Hex())
		})
	}
}

func TestNewKeyErrors(t *testing.T) {
	id := respcache.ModelID{Key: "m", Backend: "onnx"}
	for _, tc := range []struct {
		name  string
		id    respcache.ModelID
		req   lm.GenerateRequest
		trial int
		want  string
	}{
		{name: "no key", id: respcache.ModelID{Backend: "onnx"}, trial: 1,
			want: "respcache: the model identity has no catalog key; build it with FromEntry from a loaded catalog entry"},
		{name: "no backend", id: respcache.ModelID{Key: "m"}, trial: 1,
			want: `respcache: model "m": the identity has no backend; build it with FromEntry from a loaded catalog entry`},
		{name: "negative trial", id: id, trial: -1,
			want: `respcache: model "m": trial -1 is negative; trials are numbered from 1`},
		{name: "invalid tool parameters", id: id, trial: 2,
			req:  lm.GenerateRequest{Prompt: "p", Tools: []lm.Tool{{Name: "t", Parameters: json.RawMessage(`{"type":`)}}},
			want: `respcache: model "m" trial 2: encoding the request key: json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input (check the tools' parameters and the response format are valid JSON)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := respcache.NewKey(tc.id, tc.req, tc.trial)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// The cache never reads the key variable; this guards FromEntry against
// learning to.
func TestKeyHoldsNoCredential(t *testing.T) {
	const secret = "sk-respcache-sentinel-0123456789"
	t.Setenv("RESPCACHE_TEST_API_KEY", secret)
	e := catalog.Entry{Key: "local", Backend: catalog.OpenAI, Model: "qwen", BaseURL: "http://localhost:8000/v1",
		APIKeyEnv: "RESPCACHE_TEST_API_KEY", Headers: map[string]string{"Authorization": "Bearer " + os.Getenv("RESPCACHE_TEST_API_KEY")}}
	k, err := respcache.NewKey(respcache.FromEntry(e), lm.GenerateRequest{Prompt: "hi"}, 1)
	require.NoError(t, err)
	assert.NotContains(t, string(k.Canonical()), secret)
	assert.NotContains(t, string(k.Canonical()), "RESPCACHE_TEST_API_KEY")
}
