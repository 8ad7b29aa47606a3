package respcache_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
)

const goldenCanonical = `{"schema":1,"model":{"key":"fable","backend":"openrouter","model":"anthropic/claude-fable-5","base_url":"https://openrouter.ai/api/v1","provider_order":["anthropic","google-vertex"],"effort":"high","max_tokens":4096,"sampling":{"temperature":0.7,"seed":42},"structured_outputs":true},"request":{"messages":[{"role":"system","content":"Answer briefly."},{"role":"user","content":"Is 2 < 3 && 3 > 2? Reply \"yes\" or \"no\"."}],"tools":[{"name":"lookup","description":"Look a word up.","parameters":{"type":"object","properties":{"word":{"type":"string"}},"required":["word"]}}],"max_new_tokens":256,"sampling":{"temperature":0,"top_p":1},"response_format":{"title":"verdict","type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}},"trial":3}`

// The key of a fixed request is pinned: changing it (a new field without
// omitempty, another encoder) silently drops every stored answer, so it
// must be a deliberate Schema bump.
func TestKeyGolden(t *testing.T) {
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	k, err := respcache.NewKey(goldenEntry().CacheID(), goldenRequest(), 3)
	require.NoError(t, err)
	assert.Equal(t, goldenCanonical, string(k.Canonical()))
	assert.Equal(t, "a63a3a054c3e9f051cd2eb8f361d5b4025962134ceafd8417b4215dcda02525b", k.Hex())
	assert.Equal(t, k.Hex(), k.String())
	assert.Equal(t, "fable", k.Model())
}

// The identity document of each backend: what is in, what is out. Labels,
// enabled, the folder, api_key_env, threads, sessions and device_id are
// out; headers are in as a digest of their templates.
func TestCacheIDOfEntries(t *testing.T) {
	t.Setenv("RESPCACHE_TEST_HEADER", "secret-header-value")
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	dir := t.TempDir()
	for _, tc := range []struct{ name, entry, want string }{
		{
			name:  "openrouter, labels and enabled left out, the endpoint resolved",
			entry: `{"enabled": true, "name": "Fable", "description": "d", "model": "anthropic/claude-fable-5", "provider_order": ["anthropic"], "effort": "low"}`,
			want:  `{"key":"k","backend":"openrouter","model":"anthropic/claude-fable-5","base_url":"https://openrouter.ai/api/v1","provider_order":["anthropic"],"effort":"low"}`,
		},
		{
			name:  "openai: api_key_env left out, headers as a digest of their templates",
			entry: `{"backend": "openai", "model": "qwen", "base_url": "http://localhost:8000/v1/", "api_key_env": "VLLM_API_KEY", "chat": "no", "headers": {"X-Team": "${RESPCACHE_TEST_HEADER}"}, "max_tokens": 7}`,
			// sha256 of {"X-Team":"${RESPCACHE_TEST_HEADER}"}
			want: `{"key":"k","backend":"openai","model":"qwen","base_url":"http://localhost:8000/v1","max_tokens":7,"chat":"no","headers_sha256":"45488888529b43a6988634fd0156234e5f8b14a96030aceb313df324cf6b3098"}`,
		},
		{
			name:  "onnx: path resolved, threads sessions and device left out",
			entry: `{"backend": "onnx", "path": "models/tiny", "variant": "int8", "provider": "cuda", "device_id": 1, "threads": 4, "sessions": 2}`,
			want:  `{"key":"k","backend":"onnx","path":` + string(must(json.Marshal(filepath.Join(dir, "models/tiny")))) + `,"variant":"int8","provider":"cuda","engine":2}`,
		},
		{
			name:  "http",
			entry: `{"backend": "http", "url": "http://localhost:9000/gen", "request_template": {"p": "{{prompt}}"}, "response_path": "out.text", "api_key_env": "HTTP_KEY"}`,
			want:  `{"key":"k","backend":"http","url":"http://localhost:9000/gen","request_template":{"p":"{{prompt}}"},"response_path":"out.text"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.Parse(filepath.Join(dir, "models.json"), []byte(`{"k": `+tc.entry+`}`))
			require.NoError(t, err)
			got, err := json.Marshal(c.Entries[0].CacheID())
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Keys written before backends owned their identity keep matching: the
// documents and hashes below were computed by the flat identity (for API
// models as opened, with the endpoint the backend resolved). The onnx
// backend's keys changed on purpose when its identity gained the engine's
// revision (2: sliding-window models batched without padding inside rows,
// which moved their answers): a local model's answers are recomputed
// rather than served from an engine that computed them wrong.
func TestKeysOfEarlierVersions(t *testing.T) {
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	for _, tc := range []struct {
		name  string
		entry catalog.Entry
		want  string
	}{
		{"openrouter", goldenEntry(), "a63a3a054c3e9f051cd2eb8f361d5b4025962134ceafd8417b4215dcda02525b"},
		{"openai", catalog.Entry{Key: "local", Backend: openai.Name, MaxTokens: 7, Sampling: &lm.Sampling{Seed: ptr(1)},
			Settings: &openai.Settings{Model: "qwen", BaseURL: "http://localhost:8000/v1/", APIKeyEnv: "VLLM_API_KEY", Chat: "no", Headers: map[string]string{"X-Team": "${T}"}, StructuredOutputs: true}},
			"8c234e283a69b51a88e43f8e7fc0006a88ced995a6c24c9fb065681af2056030"},
		{"onnx folder", onnxEntry(t, "tiny", "/cat", `"path": "models/tiny", "variant": "int8", "provider": "cuda", "device_id": 1, "threads": 4, "sessions": 2, "chat": "yes", "max_tokens": 64`),
			"64683f83dee1a7811b58e09446c6e4d805115fa7249701d6d0350d8e4e85659c"},
		{"onnx built-in", catalog.Entry{Key: "smoke", Backend: onnx.Name, Settings: &onnx.Settings{Builtin: "smoke"}},
			"0d5ff07a2987062437d721a1d9a103568754c624e8c857f48905b18d5066b9fb"},
		{"http", catalog.Entry{Key: "srv", Backend: httpapi.Name, Settings: &httpapi.Settings{URL: "http://localhost:9000/gen",
			RequestTemplate: json.RawMessage(`{"p": "{{prompt}}", "n": "<&>"}`), ResponsePath: "out.text", Headers: map[string]string{"A": "b"}}},
			"6f831531ca8e8a90af6dea2acf326da56ab21227ddbb1674db3ec88139b26ad7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := respcache.NewKey(tc.entry.CacheID(), goldenRequest(), 3)
			require.NoError(t, err)
			assert.Equal(t, tc.want, k.Hex(), string(k.Canonical()))
		})
	}
}

// onnxEntry is an onnx entry with fields as the catalog in dir loads it.
func onnxEntry(t *testing.T, key, dir, fields string) catalog.Entry {
	t.Helper()
	c, err := catalog.Parse(filepath.Join(dir, "models.json"), []byte(`{"`+key+`": {"backend": "onnx", `+fields+`}}`))
	require.NoError(t, err)
	return c.Entries[0]
}

// The endpoint an openrouter entry keys on is the one its requests go to
// (OPENROUTER_BASE_URL when set), so a test server's answers are never
// served for the real endpoint.
func TestOpenRouterKeysOnItsEndpoint(t *testing.T) {
	e := goldenEntry()
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	real, err := respcache.NewKey(e.CacheID(), lm.GenerateRequest{}, 1)
	require.NoError(t, err)
	t.Setenv(openai.OpenRouterBaseURLEnv, "http://127.0.0.1:5555/v1/")
	test, err := respcache.NewKey(e.CacheID(), lm.GenerateRequest{}, 1)
	require.NoError(t, err)
	assert.NotEqual(t, real.Hex(), test.Hex())
	assert.Contains(t, string(test.Canonical()), `"base_url":"http://127.0.0.1:5555/v1"`)
}

// Anything that can change the answer changes the key.
func TestKeyChanges(t *testing.T) {
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	base, err := respcache.NewKey(goldenEntry().CacheID(), goldenRequest(), 3)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		entry func(*catalog.Entry)
		req   func(*lm.GenerateRequest)
		trial int
		env   string // OPENROUTER_BASE_URL
	}{
		{name: "trial", trial: 4},
		{name: "catalog key", entry: func(e *catalog.Entry) { e.Key = "fable-2" }},
		{name: "slug", entry: func(e *catalog.Entry) { goldenSettings(e).Model = "anthropic/claude-fable-5.1" }},
		{name: "provider order", entry: func(e *catalog.Entry) { goldenSettings(e).ProviderOrder = []string{"google-vertex", "anthropic"} }},
		{name: "effort", entry: func(e *catalog.Entry) { goldenSettings(e).Effort = "low" }},
		{name: "entry max tokens", entry: func(e *catalog.Entry) { e.MaxTokens = 8192 }},
		{name: "entry sampling", entry: func(e *catalog.Entry) { e.Sampling = &lm.Sampling{Temperature: ptr(0.7), Seed: ptr(43)} }},
		{name: "structured outputs", entry: func(e *catalog.Entry) { goldenSettings(e).StructuredOutputs = false }},
		{name: "base url", env: "http://localhost:1/v1"},
		{name: "headers", entry: func(e *catalog.Entry) {
			e.Backend, e.Settings = openai.Name, &openai.Settings{Model: "anthropic/claude-fable-5", BaseURL: openai.OpenRouterBaseURL, Headers: map[string]string{"X-Version": "2"}}
		}},
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
			if tc.env != "" {
				t.Setenv(openai.OpenRouterBaseURLEnv, tc.env)
			}
			k, err := respcache.NewKey(e.CacheID(), req, trial)
			require.NoError(t, err)
			assert.NotEqual(t, base.Hex(), k.Hex())
		})
	}
}

// What cannot change the answer leaves the key alone.
func TestKeyIgnores(t *testing.T) {
	base, err := respcache.NewKey(goldenEntry().CacheID(), goldenRequest(), 3)
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
			k, err := respcache.NewKey(e.CacheID(), req, 3)
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
			want: "respcache: the model identity has no catalog key; build it with catalog.Entry.CacheID from a loaded catalog entry"},
		{name: "no backend", id: respcache.ModelID{Key: "m"}, trial: 1,
			want: `respcache: model "m": the identity has no backend; build it with catalog.Entry.CacheID from a loaded catalog entry`},
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

// The cache never reads the key variable; this guards CacheID against
// learning to.
func TestKeyHoldsNoCredential(t *testing.T) {
	const secret = "sk-respcache-sentinel-0123456789"
	t.Setenv("RESPCACHE_TEST_API_KEY", secret)
	e := catalog.Entry{Key: "local", Backend: openai.Name, Settings: &openai.Settings{Model: "qwen", BaseURL: "http://localhost:8000/v1",
		APIKeyEnv: "RESPCACHE_TEST_API_KEY", Headers: map[string]string{"Authorization": "Bearer " + os.Getenv("RESPCACHE_TEST_API_KEY")}}}
	k, err := respcache.NewKey(e.CacheID(), lm.GenerateRequest{Prompt: "hi"}, 1)
	require.NoError(t, err)
	assert.NotContains(t, string(k.Canonical()), secret)
	assert.NotContains(t, string(k.Canonical()), "RESPCACHE_TEST_API_KEY")
}

// A backend's identity members go in the fixed order; members the order
// does not name follow in the backend's own order, and empty ones are
// left out.
func TestModelIDDocument(t *testing.T) {
	id := respcache.ModelID{Key: "k", Backend: "new", MaxTokens: 8, Settings: []respcache.Field{
		{Name: "zeta", Value: 1}, {Name: "model", Value: "m"}, {Name: "alpha", Value: "<a>"}, {Name: "effort", Value: ""}, {Name: "flags", Value: []string{}},
	}}
	got, err := json.Marshal(id)
	require.NoError(t, err)
	assert.Equal(t, `{"key":"k","backend":"new","model":"m","max_tokens":8,"zeta":1,"alpha":"\u003ca\u003e"}`, string(got))
	k, err := respcache.NewKey(id, lm.GenerateRequest{}, 1)
	require.NoError(t, err)
	assert.Contains(t, string(k.Canonical()), `"model":{"key":"k","backend":"new","model":"m","max_tokens":8,"zeta":1,"alpha":"<a>"}`, "keys are written without HTML escaping")
}
