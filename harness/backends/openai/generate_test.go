package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

const testKey = "sk-or-v1-0123456789abcdef-SECRET"

// sleeper records the waits between attempts instead of sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return nil
}

// env is a fixed environment for Options.Getenv.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }

// openRouter opens an openrouter entry against s with testKey.
func openRouter(t *testing.T, s *fakeserver.Server, e catalog.Entry, o openai.Options) *openai.Model {
	t.Helper()
	e.Backend = openai.OpenRouterName
	if e.Settings == nil {
		e.Settings = &openai.OpenRouterSettings{}
	}
	if rs := e.Settings.(*openai.OpenRouterSettings); rs.Model == "" {
		rs.Model = "anthropic/claude-fable-5"
	}
	if rs := e.Settings.(*openai.OpenRouterSettings); rs.ProviderOrder == nil {
		rs.ProviderOrder = []string{"anthropic"}
	}
	if o.Getenv == nil {
		o.Getenv = env(openai.OpenRouterBaseURLEnv, s.URL, openai.OpenRouterKeyEnv, testKey)
	}
	if o.Sleep == nil {
		o.Sleep = (&sleeper{}).sleep
	}
	m, err := openai.New(e, o)
	require.NoError(t, err)
	return m
}

func generate(t *testing.T, m *openai.Model, reqs ...lm.GenerateRequest) []lm.GenerateResult {
	t.Helper()
	out, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	require.Len(t, out, len(reqs))
	return out
}

func user(text string) []lm.Message { return []lm.Message{{Role: "user", Content: text}} }

func decode(t *testing.T, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

var weatherTool = lm.Tool{
	Name:        "get_weather",
	Description: "Get current weather for a location.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`),
}

func TestOpenRouterRequestBody(t *testing.T) {
	s := fakeserver.Start(t, nil)
	e := catalog.Entry{
		Key: "fable-5", MaxTokens: 64000, Settings: &openai.OpenRouterSettings{Effort: "high"},
		Sampling: &catalog.Sampling{Temperature: f64(0), Seed: intp(7)},
	}
	m := openRouter(t, s, e, openai.Options{})
	// The catalog's defaults fill the request, as catalog.Open's wrapper does.
	res := generate(t, m, e.Defaults().Apply(lm.GenerateRequest{Messages: user("What's the weather in Paris?"), Tools: []lm.Tool{weatherTool}}))
	require.NoError(t, res[0].Err)

	reqs := s.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/v1/chat/completions", reqs[0].Path)
	assert.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
	assert.Equal(t, map[string]any{
		"model":    "anthropic/claude-fable-5",
		"messages": []any{map[string]any{"role": "user", "content": "What's the weather in Paris?"}},
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{
			"name": "get_weather", "description": "Get current weather for a location.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}, "required": []any{"location"}},
		}}},
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		"provider":       map[string]any{"order": []any{"anthropic"}, "allow_fallbacks": false, "require_parameters": true},
		"reasoning":      map[string]any{"effort": "high"},
		"usage":          map[string]any{"include": true},
		"temperature":    0.0,
		"seed":           7.0,
		"max_tokens":     64000.0,
	}, decode(t, reqs[0].Body))
	assert.Equal(t, map[string]any{"temperature": 0.0, "seed": 7, "max_tokens": 64000, "reasoning": map[string]any{"effort": "high"}}, res[0].SamplingSent)
}

func TestOpenAIRequestBody(t *testing.T) {
	tests := []struct {
		name     string
		entry    catalog.Entry
		req      lm.GenerateRequest
		wantBody map[string]any // the sampling part of the body
	}{
		{
			name:     "nothing declared sends no sampling",
			req:      lm.GenerateRequest{Messages: user("hi")},
			wantBody: map[string]any{},
		},
		{
			name:     "greedy sends temperature 0",
			req:      lm.GenerateRequest{Messages: user("hi"), Sampling: lm.Greedy(), MaxNewTokens: 20},
			wantBody: map[string]any{"temperature": 0.0, "top_p": 1.0, "max_tokens": 20.0},
		},
		{
			name:     "entry sampling and max_tokens",
			entry:    catalog.Entry{MaxTokens: 512, Sampling: &catalog.Sampling{Temperature: f64(0.7), TopP: f64(0.9)}},
			req:      lm.GenerateRequest{Messages: user("hi")},
			wantBody: map[string]any{"temperature": 0.7, "top_p": 0.9, "max_tokens": 512.0},
		},
		{
			name:     "request fields win over the entry's",
			entry:    catalog.Entry{MaxTokens: 512, Sampling: &catalog.Sampling{Temperature: f64(0.7), Seed: intp(1)}},
			req:      lm.GenerateRequest{Messages: user("hi"), Sampling: lm.Sampling{Temperature: f64(0)}, MaxNewTokens: 20},
			wantBody: map[string]any{"temperature": 0.0, "seed": 1.0, "max_tokens": 20.0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, nil)
			e := tt.entry
			e.Key, e.Backend, e.Settings = "local", openai.Name, &openai.Settings{BaseURL: s.URL, Model: "qwen3-0.6b"}
			m, err := openai.New(e, openai.Options{Getenv: env()})
			require.NoError(t, err)
			res := generate(t, m, e.Defaults().Apply(tt.req)) // as catalog.Open's wrapper does
			require.NoError(t, res[0].Err)
			assert.Equal(t, "ok", res[0].Text)

			r := s.Requests()[0]
			assert.Empty(t, r.Header.Get("Authorization"), "no api_key_env means no Authorization header")
			want := map[string]any{
				"model":          "qwen3-0.6b",
				"messages":       []any{map[string]any{"role": "user", "content": "hi"}},
				"stream":         true,
				"stream_options": map[string]any{"include_usage": true},
			}
			for k, v := range tt.wantBody {
				want[k] = v
			}
			assert.Equal(t, want, decode(t, r.Body))
			// What was recorded is what was sent (JSON numbers aside).
			sent := decode(t, mustJSON(t, res[0].SamplingSent))
			assert.Equal(t, tt.wantBody, sent)
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestAPIKeyFromVariableAtCallTime(t *testing.T) {
	s := fakeserver.Start(t, nil)
	key := "first-key"
	e := s.Entry("local", "m")
	fakeserver.Settings(e).APIKeyEnv = "VLLM_API_KEY"
	m, err := openai.New(e, openai.Options{Getenv: func(k string) string {
		if k == "VLLM_API_KEY" {
			return key
		}
		return ""
	}})
	require.NoError(t, err)
	generate(t, m, lm.GenerateRequest{Prompt: "hi"})
	key = "second-key"
	generate(t, m, lm.GenerateRequest{Prompt: "hi"})
	key = ""
	res := generate(t, m, lm.GenerateRequest{Prompt: "hi"})

	reqs := s.Requests()
	require.Len(t, reqs, 2, "a missing key sends nothing")
	assert.Equal(t, "Bearer first-key", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, "Bearer second-key", reqs[1].Header.Get("Authorization"))
	require.Error(t, res[0].Err)
	assert.Equal(t, lm.StopError, res[0].StopReason)
	assert.Contains(t, res[0].Err.Error(), "the key variable VLLM_API_KEY (api_key_env) is not set")
}

func TestBaseURL(t *testing.T) {
	m, err := openai.New(catalog.Entry{Key: "k", Backend: openai.Name, Settings: &openai.Settings{BaseURL: "http://127.0.0.1:8000/v1/", Model: "m"}}, openai.Options{})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8000/v1", m.BaseURL())
	for override, want := range map[string]string{"": openai.OpenRouterBaseURL, "http://127.0.0.1:5555/v1/": "http://127.0.0.1:5555/v1"} {
		m, err := openai.New(catalog.Entry{Key: "k", Backend: openai.OpenRouterName, Settings: &openai.OpenRouterSettings{Model: "a/b"}}, openai.Options{Getenv: env(openai.OpenRouterBaseURLEnv, override)})
		require.NoError(t, err)
		assert.Equal(t, want, m.BaseURL(), "OPENROUTER_BASE_URL=%q", override)
	}
}

func TestOpenRouterMissingKey(t *testing.T) {
	s := fakeserver.Start(t, nil)
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Getenv: env(openai.OpenRouterBaseURLEnv, s.URL)})
	res := generate(t, m, lm.GenerateRequest{Messages: user("hi")})
	require.Error(t, res[0].Err)
	assert.Contains(t, res[0].Err.Error(), "OPENROUTER_API_KEY is not set")
	assert.Empty(t, s.Requests())
}

func TestStreamingResult(t *testing.T) {
	s := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{Text: "The answer is B.", PromptTokens: 42, CompletionTokens: 5, Cost: fakeserver.USD(0.000093), NativeFinishReason: "end_turn"}
	})
	s.SetChunkDelay(2 * time.Millisecond)
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.NoError(t, res.Err)
	assert.Equal(t, "The answer is B.", res.Text)
	assert.Equal(t, lm.StopEOS, res.StopReason)
	assert.Equal(t, 42, res.InputTokens)
	assert.Equal(t, 5, res.OutputTokens)
	require.NotNil(t, res.CostUSD)
	assert.Equal(t, 0.000093, *res.CostUSD)
	assert.Positive(t, res.TTFT)
	assert.Less(t, res.TTFT, res.Wall, "the first token arrives before the stream ends")
	assert.Zero(t, res.Retries)
}

func TestToolCallsAssembledFromFragments(t *testing.T) {
	s := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{
			{Name: "search_flights", Arguments: `{"from": "LHR", "to": "Paris, France", "passengers": 2}`},
			{Name: "book_flight", Arguments: `{"flight": "AF1081"`}, // cut off: not JSON
			{Name: "list_airports"},
		}}
	})
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q"), Tools: []lm.Tool{{Name: "search_flights"}, {Name: "book_flight"}, {Name: "list_airports"}}})[0]
	require.NoError(t, res.Err)
	assert.Equal(t, lm.StopToolCalls, res.StopReason)
	assert.Equal(t, []lm.ToolCall{
		{Name: "search_flights", Args: map[string]any{"from": "LHR", "to": "Paris, France", "passengers": 2.0}, RawArgs: `{"from": "LHR", "to": "Paris, France", "passengers": 2}`},
		{Name: "book_flight", RawArgs: `{"flight": "AF1081"`},
		{Name: "list_airports", Args: map[string]any{}},
	}, res.ToolCalls)
	// A tool without parameters is still sent as a valid function schema.
	tools := decode(t, s.Requests()[0].Body)["tools"].([]any)
	assert.Equal(t, map[string]any{"type": "function", "function": map[string]any{
		"name": "list_airports", "parameters": map[string]any{"type": "object", "properties": map[string]any{}},
	}}, tools[2])
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		name         string
		reply        fakeserver.Reply
		wantStop     string
		wantCategory string
		wantText     string
	}{
		{"stop", fakeserver.Reply{Text: "hi", FinishReason: "stop"}, lm.StopEOS, "", "hi"},
		{"length", fakeserver.Reply{Text: "hi", FinishReason: "length"}, lm.StopLength, "", "hi"},
		{"content filter", fakeserver.Reply{FinishReason: "content_filter"}, lm.StopRefusal, "", ""},
		{"native refusal with category", fakeserver.Reply{FinishReason: "stop", NativeFinishReason: "refusal", RefusalCategory: "cyber"}, lm.StopRefusal, "cyber", ""},
		{"refusal delta", fakeserver.Reply{Refusal: "I can't help with that."}, lm.StopRefusal, "", "I can't help with that."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(tt.reply))
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			require.NoError(t, res.Err)
			assert.Equal(t, tt.wantStop, res.StopReason)
			assert.Equal(t, tt.wantCategory, res.RefusalCategory)
			assert.Equal(t, tt.wantText, res.Text)
		})
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	now := time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)
	tests := []struct {
		name       string
		retryAfter string
		want       time.Duration
	}{
		{"seconds", "7", 7 * time.Second},
		{"HTTP date", now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(
				fakeserver.Reply{Status: 429, RetryAfter: tt.retryAfter, ErrorMessage: "rate limited"},
				fakeserver.Reply{Text: "ok"},
			))
			sl := &sleeper{}
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Sleep: sl.sleep, Now: func() time.Time { return now }})
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			require.NoError(t, res.Err)
			assert.Equal(t, "ok", res.Text)
			assert.Equal(t, 1, res.Retries)
			assert.Equal(t, []time.Duration{tt.want}, sl.waits)
			assert.Len(t, s.Requests(), 2)
		})
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Status: 429, RetryAfter: "3600", ErrorMessage: "daily limit"}))
	sl := &sleeper{}
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Sleep: sl.sleep})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "the server asked to retry after 1h0m0s, longer than the 5m0s this backend waits")
	assert.Contains(t, res.Err.Error(), "HTTP 429 Too Many Requests: daily limit")
	assert.Empty(t, sl.waits)
}

func TestServerErrorsUntilRetriesRunOut(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Status: 503, ErrorMessage: "no provider available"}))
	sl := &sleeper{}
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{MaxAttempts: 3, Sleep: sl.sleep, Rand: func() float64 { return 0.5 }})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.Error(t, res.Err)
	assert.Equal(t, lm.StopError, res.StopReason)
	assert.Equal(t, 2, res.Retries)
	assert.Len(t, s.Requests(), 3)
	assert.Equal(t, `openrouter model "anthropic/claude-fable-5" at `+s.URL+
		`: gave up after 3 attempts (the api.attempts option): HTTP 503 Service Unavailable: no provider available`, res.Err.Error())
	// Backoff from 1s, doubling, half fixed and half jitter (0.5 here).
	assert.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, sl.waits)
}

func TestEachRequestOfABatchRetriesOnItsOwn(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.FailFirst(2, fakeserver.Reply{Status: 502, ErrorMessage: "bad gateway"},
		func(r fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{Text: r.Messages[0].Content} }))
	sl := &sleeper{}
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Sleep: sl.sleep})
	res := generate(t, m, lm.GenerateRequest{Messages: user("a")}, lm.GenerateRequest{Messages: user("b")}, lm.GenerateRequest{Messages: user("c")})
	for i, want := range []string{"a", "b", "c"} {
		require.NoError(t, res[i].Err)
		assert.Equal(t, want, res[i].Text)
		assert.Equal(t, 2, res[i].Retries)
	}
	assert.Len(t, s.Requests(), 9)
	assert.Len(t, sl.waits, 6)
}

func TestClientErrorsAreNotRetried(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Status: 401, ErrorMessage: "No auth credentials found"}))
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.Error(t, res.Err)
	assert.Contains(t, res.Err.Error(), "HTTP 401 Unauthorized: No auth credentials found; check the key in OPENROUTER_API_KEY")
	assert.Len(t, s.Requests(), 1)
}

func TestErrorInsideStream(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Text: "partial answer", StreamError: "Provider disconnected unexpectedly"}))
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.Error(t, res.Err)
	assert.Equal(t, lm.StopError, res.StopReason)
	assert.Contains(t, res.Err.Error(), "the provider reported an error inside the stream: Provider disconnected unexpectedly (code 502)")
	assert.Equal(t, "partial answer", res.Text, "what arrived is kept")
	assert.Len(t, s.Requests(), 1, "a failed stream may be billed: not retried")
}

func TestTruncatedStream(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Text: "half an", Truncate: true}))
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{})
	res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
	require.Error(t, res.Err)
	assert.Equal(t, lm.StopError, res.StopReason)
	assert.Contains(t, res.Err.Error(), "the stream ended before it finished")
	assert.Equal(t, "half an", res.Text)
}

func TestBatchOrderAndConcurrency(t *testing.T) {
	var inFlight, peak atomic.Int32
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		return fakeserver.Reply{Text: "echo " + r.Messages[0].Content}
	})
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Concurrency: 3})
	var reqs []lm.GenerateRequest
	for i := range 10 {
		reqs = append(reqs, lm.GenerateRequest{Messages: user(fmt.Sprint(i))})
	}
	res := generate(t, m, reqs...)
	for i, r := range res {
		require.NoError(t, r.Err)
		assert.Equal(t, fmt.Sprintf("echo %d", i), r.Text)
	}
	assert.LessOrEqual(t, peak.Load(), int32(3))
}

func TestRawPrompts(t *testing.T) {
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{Text: " A", FinishReason: "length"}
	})
	t.Run("chat no uses the completions endpoint", func(t *testing.T) {
		e := s.Entry("base", "smollm2-135m")
		fakeserver.Settings(e).Chat = "no"
		m, err := openai.New(e, openai.Options{Getenv: env()})
		require.NoError(t, err)
		assert.False(t, m.Info().Chat)
		res := generate(t, m, lm.GenerateRequest{Prompt: "Question: 2+2?\nAnswer:", Sampling: lm.Greedy(), MaxNewTokens: 20})[0]
		require.NoError(t, res.Err)
		assert.Equal(t, " A", res.Text)
		assert.Equal(t, "Question: 2+2?\nAnswer:", res.PromptSent)
		assert.Equal(t, lm.StopLength, res.StopReason)
		r := s.Requests()[len(s.Requests())-1]
		assert.Equal(t, "/v1/completions", r.Path)
		assert.Equal(t, map[string]any{
			"model": "smollm2-135m", "prompt": "Question: 2+2?\nAnswer:", "stream": true,
			"stream_options": map[string]any{"include_usage": true},
			"temperature":    0.0, "top_p": 1.0, "max_tokens": 20.0,
		}, decode(t, r.Body))

		res = generate(t, m, lm.GenerateRequest{Messages: user("hi")})[0]
		require.Error(t, res.Err)
		assert.Contains(t, res.Err.Error(), `"chat": "no"`)
	})
	t.Run("otherwise a user message", func(t *testing.T) {
		m, err := openai.New(s.Entry("chat", "qwen3"), openai.Options{Getenv: env()})
		require.NoError(t, err)
		assert.True(t, m.Info().Chat)
		res := generate(t, m, lm.GenerateRequest{Prompt: "Question: 2+2?\nAnswer:"})[0]
		require.NoError(t, res.Err)
		r := s.Requests()[len(s.Requests())-1]
		assert.Equal(t, "/v1/chat/completions", r.Path)
		assert.Equal(t, []fakeserver.Message{{Role: "user", Content: "Question: 2+2?\nAnswer:"}}, r.Messages)
	})
}

func TestOpenCapabilities(t *testing.T) {
	s := fakeserver.Start(t, nil)
	m, err := openai.Open(s.Entry("local", "m"), openai.Options{})
	require.NoError(t, err)
	_, scores := m.(lm.Scorer)
	assert.True(t, scores, "an openai entry scores through the completions endpoint")
	_, generates := m.(lm.Generator)
	assert.True(t, generates)
	assert.Equal(t, lm.Info{Key: "local", Backend: "openai", Path: "m", Chat: true}, m.Info())

	m, err = openai.Open(catalog.Entry{Key: "or", Backend: openai.OpenRouterName, Settings: &openai.OpenRouterSettings{Model: "a/b", ProviderOrder: []string{"a"}}}, openai.Options{Getenv: env()})
	require.NoError(t, err)
	_, scores = m.(lm.Scorer)
	assert.False(t, scores, "OpenRouter returns no prompt log-probs")
}

func TestNewRejectsBadEntries(t *testing.T) {
	tests := []struct {
		name  string
		entry catalog.Entry
		env   func(string) string
		want  string
	}{
		{"other backend", catalog.Entry{Backend: "onnx"}, env(), `not "onnx"`},
		{"no model", catalog.Entry{Backend: openai.Name, Settings: &openai.Settings{BaseURL: "http://x/v1"}}, env(), `"model" is missing`},
		{"bad base_url", catalog.Entry{Backend: openai.Name, Settings: &openai.Settings{Model: "m", BaseURL: "localhost:8000"}}, env(), `"base_url" "localhost:8000" is not an http(s) URL`},
		{"bad OpenRouter URL", catalog.Entry{Backend: openai.OpenRouterName, Settings: &openai.OpenRouterSettings{Model: "a/b"}}, env(openai.OpenRouterBaseURLEnv, "ftp://x"), `OPENROUTER_BASE_URL "ftp://x" is not an http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openai.New(tt.entry, openai.Options{Getenv: tt.env})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestKeyNeverLeaks makes the server fail in every way, echoing the
// Authorization header it received, and checks the key reaches no error,
// no text and no recorded sampling.
func TestKeyNeverLeaks(t *testing.T) {
	echo := func(r fakeserver.Request) string {
		return "got " + r.Header.Get("Authorization") + " and " + r.Header.Get("X-Team-Key")
	}
	faults := []struct {
		name  string
		reply func(r fakeserver.Request) fakeserver.Reply
	}{
		{"401", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 401, ErrorMessage: echo(r)}
		}},
		{"429", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 429, RetryAfter: "1", ErrorMessage: echo(r)}
		}},
		{"500", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 500, ErrorMessage: echo(r)}
		}},
		{"stream error", func(r fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{StreamError: echo(r)} }},
		{"truncated", func(r fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{Text: echo(r), Truncate: true} }},
		{"text", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: echo(r), ToolCalls: []fakeserver.ToolCall{{Name: "f", Arguments: `{"k": "` + echo(r) + `"}`}}}
		}},
		{"dropped log-probs", func(r fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{DropPromptLogprobs: true} }},
	}
	const teamKey = "team-secret-42"
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			s := fakeserver.Start(t, f.reply)
			e := s.Entry("local", "m")
			fakeserver.Settings(e).APIKeyEnv = "LOCAL_KEY"
			fakeserver.Settings(e).Headers = map[string]string{"X-Team-Key": "${TEAM_KEY}"}
			sm, err := openai.Open(e, openai.Options{MaxAttempts: 2, Sleep: (&sleeper{}).sleep, Getenv: env("LOCAL_KEY", testKey, "TEAM_KEY", teamKey)})
			require.NoError(t, err)
			res, err := sm.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Messages: user("q"), Sampling: lm.Greedy()}})
			require.NoError(t, err)
			ll, err := sm.(lm.Scorer).LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a", Continuation: " b"}}, lm.ScoreOptions{})
			require.NoError(t, err)
			assert.Equal(t, "Bearer "+testKey, s.Requests()[0].Header.Get("Authorization"), "the key is sent")
			assert.Equal(t, teamKey, s.Requests()[0].Header.Get("X-Team-Key"))

			seen := fmt.Sprintf("%v %v %+v", res[0].Err, ll[0].Err, res[0])
			assert.NotContains(t, seen, testKey)
			assert.NotContains(t, seen, teamKey)
			assert.NotContains(t, string(mustJSON(t, res[0])), testKey)
		})
	}
}

// TestStructuredOutputs: a request's JSON Schema reaches the wire as
// response_format only when the entry declares structured_outputs, since
// OpenRouter's require_parameters would refuse providers without it.
func TestStructuredOutputs(t *testing.T) {
	schema := json.RawMessage(`{"title":"judgement","type":"object","properties":{"score":{"type":"integer"}},"required":["score"],"additionalProperties":false}`)
	wantSchema := map[string]any{"title": "judgement", "type": "object", "properties": map[string]any{"score": map[string]any{"type": "integer"}}, "required": []any{"score"}, "additionalProperties": false}
	tests := []struct {
		name       string
		backend    string
		declared   bool
		chat       string
		format     json.RawMessage
		want       any // the body's response_format; nil: absent
		wantErrMsg string
	}{
		{name: "declared openai entry", backend: openai.Name, declared: true, format: schema,
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "judgement", "strict": true, "schema": wantSchema}}},
		{name: "declared openrouter entry", backend: openai.OpenRouterName, declared: true, format: schema,
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "judgement", "strict": true, "schema": wantSchema}}},
		{name: "a schema without a usable title is named response", backend: openai.Name, declared: true, format: json.RawMessage(`{"title":"a judgement!","type":"object"}`),
			want: map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "response", "strict": true, "schema": map[string]any{"title": "a judgement!", "type": "object"}}}},
		{name: "undeclared openai entry", backend: openai.Name, format: schema},
		{name: "undeclared openrouter entry", backend: openai.OpenRouterName, format: schema},
		{name: "no schema asked for", backend: openai.Name, declared: true},
		{name: "completions endpoint", backend: openai.Name, declared: true, chat: "no", format: schema},
		{name: "not a schema object", backend: openai.Name, declared: true, format: json.RawMessage(`["score"]`),
			wantErrMsg: "the request's response format is not a JSON Schema object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, nil)
			req := lm.GenerateRequest{Messages: user("grade this"), ResponseFormat: tt.format}
			var m *openai.Model
			if tt.backend == openai.OpenRouterName {
				m = openRouter(t, s, catalog.Entry{Key: "judge", Settings: &openai.OpenRouterSettings{StructuredOutputs: tt.declared}}, openai.Options{})
			} else {
				e := s.Entry("judge", "m")
				fakeserver.Settings(e).StructuredOutputs, fakeserver.Settings(e).Chat = tt.declared, tt.chat
				var err error
				m, err = openai.New(e, openai.Options{Getenv: env()})
				require.NoError(t, err)
				if tt.chat == "no" {
					req = lm.GenerateRequest{Prompt: "grade this", ResponseFormat: tt.format}
				}
			}
			res := generate(t, m, req)
			if tt.wantErrMsg != "" {
				require.Error(t, res[0].Err)
				assert.Contains(t, res[0].Err.Error(), tt.wantErrMsg)
				assert.Empty(t, s.Requests(), "nothing is sent")
				return
			}
			require.NoError(t, res[0].Err)
			body := decode(t, s.Requests()[0].Body)
			got, ok := body["response_format"]
			if tt.want == nil {
				assert.False(t, ok, "response_format must be absent: %v", got)
				return
			}
			assert.Equal(t, tt.want, got)
			if tt.backend == openai.OpenRouterName {
				assert.Equal(t, map[string]any{"order": []any{"anthropic"}, "allow_fallbacks": false, "require_parameters": true}, body["provider"])
			}
		})
	}
}

// TestConnectionsOutlastTheBatchConcurrency: a caller with more single
// requests in flight than Options.Concurrency (Featherbench's pool at
// -fb.concurrency 16, with -api.concurrency at its default 4) still has
// its connections reused, round after round, rather than redialled.
func TestConnectionsOutlastTheBatchConcurrency(t *testing.T) {
	const inFlight, rounds = 16, 3
	var arrived sync.WaitGroup
	var round atomic.Int64
	gates := make([]chan struct{}, rounds)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		arrived.Done()
		// Hold each answer until the round's requests are all in flight,
		// so each needs a connection of its own.
		<-gates[round.Load()]
		return fakeserver.Reply{Text: "ok"}
	})
	m, err := openai.New(s.Entry("fake", "m"), openai.Options{Sleep: (&sleeper{}).sleep})
	require.NoError(t, err)
	defer m.Close()
	for r := range rounds {
		round.Store(int64(r))
		arrived.Add(inFlight)
		var done sync.WaitGroup
		for range inFlight {
			done.Go(func() {
				res, err := lm.GenerateOne(context.Background(), m, lm.GenerateRequest{Prompt: "hi"})
				assert.NoError(t, err)
				assert.NoError(t, res.Err)
			})
		}
		arrived.Wait()
		close(gates[r])
		done.Wait()
	}
	assert.Equal(t, inFlight, s.Conns(), "connections opened for %d rounds of %d requests in flight", rounds, inFlight)
}
