package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/lm"
)

// haikuServer is a custom endpoint: it records each request and answers
// with the reply its handler gives.
type haikuServer struct {
	URL     string
	mu      sync.Mutex
	bodies  []string
	headers []http.Header
}

func startServer(t *testing.T, status int, reply func(body map[string]any) string) *haikuServer {
	t.Helper()
	hs := &haikuServer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hs.mu.Lock()
		hs.bodies = append(hs.bodies, string(b))
		hs.headers = append(hs.headers, r.Header.Clone())
		hs.mu.Unlock()
		var body map[string]any
		json.Unmarshal(b, &body)
		w.WriteHeader(status)
		io.WriteString(w, reply(body))
	}))
	t.Cleanup(srv.Close)
	hs.URL = srv.URL + "/generate"
	return hs
}

func entry(url, tmpl, path string) catalog.Entry {
	return catalog.Entry{Key: "haiku", Backend: httpapi.Name, Settings: &httpapi.Settings{URL: url, RequestTemplate: json.RawMessage(tmpl), ResponsePath: path}}
}

// settings are e's http settings, to adjust.
func settings(e catalog.Entry) *httpapi.Settings { return e.Settings.(*httpapi.Settings) }

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func f64(v float64) *float64 { return &v }

func TestTemplateSubstitution(t *testing.T) {
	tests := []struct {
		name     string
		tmpl     string
		req      lm.GenerateRequest
		wantBody string
		wantSent map[string]any
	}{
		{
			name:     "characters that need escaping",
			tmpl:     `{"model": "haiku-1", "input": "{{prompt}}", "n": 1.50}`,
			req:      lm.GenerateRequest{Prompt: "Say \"hi\"\n\tthen <stop> & café ☕ \\ done"},
			wantBody: `{"model":"haiku-1","input":"Say \"hi\"\n\tthen <stop> & café ☕ \\ done","n":1.50}`,
			wantSent: map[string]any{},
		},
		{
			name:     "prompt inside a longer string and a nested message",
			tmpl:     `{"messages": [{"role": "user", "content": "Q: {{prompt}}\nA:"}], "stream": false}`,
			req:      lm.GenerateRequest{Messages: []lm.Message{{Role: "user", Content: "2+2?"}}},
			wantBody: `{"messages":[{"role":"user","content":"Q: 2+2?\nA:"}],"stream":false}`,
			wantSent: map[string]any{},
		},
		{
			name:     "declared sampling fills whole-value placeholders",
			tmpl:     `{"prompt": "{{prompt}}", "max_new_tokens": "{{max_tokens}}", "params": {"temperature": "{{temperature}}", "seed": "{{seed}}"}}`,
			req:      lm.GenerateRequest{Prompt: "p", MaxNewTokens: 20, Sampling: lm.Sampling{Temperature: f64(0)}},
			wantBody: `{"prompt":"p","max_new_tokens":20,"params":{"temperature":0}}`,
			wantSent: map[string]any{"max_tokens": 20, "temperature": 0.0},
		},
		{
			name:     "undeclared placeholders are left out",
			tmpl:     `{"prompt": "{{prompt}}", "max_tokens": "{{max_tokens}}", "list": ["{{top_p}}", 1]}`,
			req:      lm.GenerateRequest{Prompt: "p"},
			wantBody: `{"prompt":"p","list":[null,1]}`,
			wantSent: map[string]any{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := startServer(t, 200, func(map[string]any) string { return `{"choices": [{"message": {"content": "four"}}]}` })
			m, err := httpapi.New(entry(hs.URL, tt.tmpl, "choices.0.message.content"))
			require.NoError(t, err)
			res, err := m.Generate(context.Background(), []lm.GenerateRequest{tt.req})
			require.NoError(t, err)
			require.NoError(t, res[0].Err)
			assert.Equal(t, "four", res[0].Text)
			assert.Equal(t, lm.StopEOS, res[0].StopReason)
			assert.Positive(t, res[0].Wall)
			assert.Zero(t, res[0].TTFT, "a whole answer has no time to first token")
			assert.Equal(t, tt.wantBody, hs.bodies[0])
			assert.Equal(t, tt.wantSent, res[0].SamplingSent)
		})
	}
}

func TestResponsePath(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		path    string
		want    string
		wantErr string
	}{
		{"nested", `{"choices": [{"message": {"content": "a haiku"}}]}`, "choices.0.message.content", "a haiku", ""},
		{"top level", `{"output": "text"}`, "output", "text", ""},
		{"list index", `{"outputs": ["x", "y"]}`, "outputs.1", "y", ""},
		{"missing key", `{"choices": [{"delta": {}, "index": 0}]}`, "choices.0.message.content", "",
			`the response has no "choices.0.message.content": "message" is missing at "choices.0" (keys there: delta, index)`},
		{"index out of range", `{"choices": []}`, "choices.0.text", "", `index 0 is out of range at "choices" (the list has 0 items)`},
		{"not a list", `{"choices": {"text": "x"}}`, "choices.0.text", "", `"0" is missing at "choices" (keys there: text)`},
		{"not text", `{"output": 42}`, "output", "", `"output" in the response is a number, not text`},
		{"not JSON", `<html>busy</html>`, "output", "", `the response is not JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := startServer(t, 200, func(map[string]any) string { return tt.reply })
			m, err := httpapi.New(entry(hs.URL, `{"p": "{{prompt}}"}`, tt.path))
			require.NoError(t, err)
			res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "x"}})
			require.NoError(t, err)
			if tt.wantErr == "" {
				require.NoError(t, res[0].Err)
				assert.Equal(t, tt.want, res[0].Text)
				return
			}
			require.Error(t, res[0].Err)
			assert.Equal(t, lm.StopError, res[0].StopReason)
			assert.Contains(t, res[0].Err.Error(), `http model "haiku": POST `+hs.URL+": ")
			assert.Contains(t, res[0].Err.Error(), tt.wantErr)
		})
	}
}

func TestHeadersAndKeyNeverLeak(t *testing.T) {
	const key, team = "hk-very-secret-key", "team-secret-7"
	hs := startServer(t, 401, func(map[string]any) string { return `{"error": "bad key hk-very-secret-key for team-secret-7"}` })
	e := entry(hs.URL, `{"p": "{{prompt}}"}`, "output")
	settings(e).APIKeyEnv = "HAIKU_API_KEY"
	settings(e).Headers = map[string]string{"X-Team": "${TEAM_ID}", "X-Client": "feather"}
	m, err := httpapi.New(e)
	require.NoError(t, err)
	m.Getenv = env(map[string]string{"HAIKU_API_KEY": key, "TEAM_ID": team})
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "x"}})
	require.NoError(t, err)
	require.Error(t, res[0].Err)
	assert.Equal(t, "Bearer "+key, hs.headers[0].Get("Authorization"))
	assert.Equal(t, team, hs.headers[0].Get("X-Team"))
	assert.Equal(t, "feather", hs.headers[0].Get("X-Client"))
	assert.Contains(t, res[0].Err.Error(), "HTTP 401 Unauthorized")
	assert.NotContains(t, res[0].Err.Error(), key)
	assert.NotContains(t, res[0].Err.Error(), team)

	m.Getenv = env(map[string]string{"HAIKU_API_KEY": key})
	res, _ = m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "x"}})
	require.Error(t, res[0].Err)
	assert.Contains(t, res[0].Err.Error(), `header "X-Team": variable TEAM_ID is not set`)
	assert.Len(t, hs.bodies, 1, "nothing is sent without its variables")
}

func TestRequestsTheEndpointCannotCarry(t *testing.T) {
	hs := startServer(t, 200, func(map[string]any) string { return `{"output": "x"}` })
	m, err := httpapi.New(entry(hs.URL, `{"p": "{{prompt}}"}`, "output"))
	require.NoError(t, err)
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{
		{Messages: []lm.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}},
		{Prompt: "p", Tools: []lm.Tool{{Name: "f"}}},
		{Prompt: "ok"},
	})
	require.NoError(t, err)
	assert.ErrorContains(t, res[0].Err, "the endpoint takes one prompt but the request has 2 messages (system, user)")
	assert.NotErrorIs(t, res[0].Err, lm.ErrUnsupported, "a malformed request is not a capability mismatch")
	assert.EqualError(t, res[1].Err, `http model "haiku": POST `+hs.URL+`: the request offers tools, which a request_template cannot carry; use an openai backend for tool use: not supported by this backend`)
	assert.ErrorIs(t, res[1].Err, lm.ErrUnsupported, "tools are a capability the backend lacks by design: suites skip, not fail")
	assert.Equal(t, lm.StopError, res[1].StopReason)
	assert.NoError(t, res[2].Err)
	assert.Equal(t, "ok", res[2].PromptSent)
	assert.Len(t, hs.bodies, 1)
}

func TestNewRejectsBadEntries(t *testing.T) {
	tests := []struct {
		name  string
		entry catalog.Entry
		want  string
	}{
		{"bad url", entry("localhost:8080", `{"p": "{{prompt}}"}`, "output"), `"url" "localhost:8080" is not an http(s) URL`},
		{"bad template", entry("http://x/", `{"p": "{{prompt}}"`, "output"), `"request_template": it is not valid JSON`},
		{"no prompt", entry("http://x/", `{"p": "hi"}`, "output"), `has no "{{prompt}}" placeholder`},
		{"bad path", entry("http://x/", `{"p": "{{prompt}}"}`, "choices..text"), `"response_path" "choices..text" has an empty segment`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := httpapi.New(tt.entry)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
