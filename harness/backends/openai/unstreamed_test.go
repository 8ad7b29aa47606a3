package openai_test

// Servers that answer "stream": true without streaming: a whole JSON
// completion is an answer like a stream's, without a time to first
// token; a body that is neither is an error showing what came.

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

// plainServer opens an "openai" entry (not OpenRouter) against s; chat
// "no" sends raw prompts to the completions endpoint.
func plainServer(t *testing.T, s *fakeserver.Server, chat string, o openai.Options) *openai.Model {
	t.Helper()
	e := s.Entry("local", "qwen3")
	fakeserver.Settings(e).Chat = chat
	if o.Getenv == nil {
		o.Getenv = env()
	}
	if o.Sleep == nil {
		o.Sleep = (&sleeper{}).sleep
	}
	m, err := openai.New(e, o)
	require.NoError(t, err)
	return m
}

func TestRepliesThatWereNotStreamed(t *testing.T) {
	tools := []lm.Tool{{Name: "search_flights"}, {Name: "book_flight"}}
	tests := []struct {
		name     string
		chat     string // the entry's "chat"; "no": the completions endpoint
		reply    fakeserver.Reply
		req      lm.GenerateRequest
		wantPath string
		want     lm.GenerateResult // Wall and SamplingSent are not compared
	}{
		{"chat text with usage.cost", "",
			fakeserver.Reply{Text: "The answer is B.", PromptTokens: 42, CompletionTokens: 5, Cost: fakeserver.USD(0.000093)},
			lm.GenerateRequest{Messages: user("q")}, "/v1/chat/completions",
			lm.GenerateResult{Text: "The answer is B.", StopReason: lm.StopEOS, InputTokens: 42, OutputTokens: 5, CostUSD: f64(0.000093)}},
		{"chat tool calls", "",
			fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{
				{ID: "call_a", Name: "search_flights", Arguments: `{"from": "LHR", "to": "CDG"}`},
				{Name: "book_flight", Arguments: `{"flight": "AF1081"`}, // cut off: not JSON
			}, PromptTokens: 30, CompletionTokens: 12, Cost: fakeserver.USD(0.0004)},
			lm.GenerateRequest{Messages: user("q"), Tools: tools}, "/v1/chat/completions",
			lm.GenerateResult{ToolCalls: []lm.ToolCall{
				{Name: "search_flights", Args: map[string]any{"from": "LHR", "to": "CDG"}, RawArgs: `{"from": "LHR", "to": "CDG"}`},
				{Name: "book_flight", RawArgs: `{"flight": "AF1081"`},
			}, StopReason: lm.StopToolCalls, InputTokens: 30, OutputTokens: 12, CostUSD: f64(0.0004)}},
		{"chat refusal with its category", "",
			fakeserver.Reply{Refusal: "I can't help with that.", NativeFinishReason: "refusal", RefusalCategory: "cyber", PromptTokens: 9, CompletionTokens: 6},
			lm.GenerateRequest{Messages: user("q")}, "/v1/chat/completions",
			lm.GenerateResult{Text: "I can't help with that.", StopReason: lm.StopRefusal, RefusalCategory: "cyber", InputTokens: 9, OutputTokens: 6}},
		{"completions text cut at the cap, no cost", "no",
			fakeserver.Reply{Text: " Paris", FinishReason: "length", PromptTokens: 7, CompletionTokens: 1},
			lm.GenerateRequest{Prompt: "Capital of France:"}, "/v1/completions",
			lm.GenerateResult{Text: " Paris", PromptSent: "Capital of France:", StopReason: lm.StopLength, InputTokens: 7, OutputTokens: 1}},
		{"completions with usage.cost", "no",
			fakeserver.Reply{Text: " 4", PromptTokens: 6, CompletionTokens: 1, Cost: fakeserver.USD(0.00002)},
			lm.GenerateRequest{Prompt: "2+2="}, "/v1/completions",
			lm.GenerateResult{Text: " 4", PromptSent: "2+2=", StopReason: lm.StopEOS, InputTokens: 6, OutputTokens: 1, CostUSD: f64(0.00002)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.reply.NoStream = true
			s := fakeserver.Start(t, fakeserver.Sequence(tt.reply))
			res := generate(t, plainServer(t, s, tt.chat, openai.Options{}), tt.req)[0]
			require.NoError(t, res.Err)
			assert.Positive(t, res.Wall)
			res.Wall, res.SamplingSent = 0, nil
			// TTFT stays zero: unknown, neither 0 s nor the wall time.
			assert.Equal(t, tt.want, res)

			reqs := s.Requests()
			require.Len(t, reqs, 1, "an answer: no retry")
			assert.Equal(t, tt.wantPath, reqs[0].Path)
			assert.True(t, reqs[0].Stream, "the request asked for a stream")
		})
	}
}

// TestOpenRouterReplyNotStreamed: OpenRouter's cost and native finish
// reason are read from a whole reply as from a stream.
func TestOpenRouterReplyNotStreamed(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{NoStream: true, Text: "B", NativeFinishReason: "end_turn",
		PromptTokens: 10, CompletionTokens: 1, Cost: fakeserver.USD(0.0001)}))
	res := generate(t, openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{}), lm.GenerateRequest{Messages: user("q")})[0]
	require.NoError(t, res.Err)
	assert.Equal(t, "B", res.Text)
	assert.Equal(t, lm.StopEOS, res.StopReason)
	require.NotNil(t, res.CostUSD)
	assert.Equal(t, 0.0001, *res.CostUSD)
	assert.Zero(t, res.TTFT)
	assert.Positive(t, res.Wall)
	assert.Len(t, s.Requests(), 1)
}

func TestRepliesThatAreNeitherStreamNorCompletion(t *testing.T) {
	const page = "<!doctype html>\n<html><head><title>Open WebUI</title></head><body></body></html>\n"
	const fix = `): check "base_url", which must be the API's address (it usually ends in /v1)`
	tests := []struct {
		name     string
		chat     string
		reply    fakeserver.Reply
		wantErr  string // after the model's prefix
		attempts int
	}{
		{"a web page", "", fakeserver.Reply{Body: page},
			`the reply is neither a stream of server-sent events nor a JSON completion (Content-Type "text/html; charset=utf-8"; ` +
				`it begins "<!doctype html>\n<html><head><title>Open WebUI</title></head><body></body></html>"` + fix, 1},
		{"a web page from the completions endpoint", "no", fakeserver.Reply{Body: page},
			`the reply is neither a stream of server-sent events nor a JSON completion (Content-Type "text/html; charset=utf-8"; ` +
				`it begins "<!doctype html>\n<html><head><title>Open WebUI</title></head><body></body></html>"` + fix, 1},
		{"JSON that is not a completion", "", fakeserver.Reply{Body: `{"detail":"Not Found"}`, ContentType: "application/json"},
			`the reply is neither a stream of server-sent events nor a JSON completion (Content-Type "application/json"; it begins "{\"detail\":\"Not Found\"}"` + fix, 1},
		{"text called a stream", "", fakeserver.Reply{Body: "hello\nworld\n", ContentType: "text/event-stream"},
			`the reply is neither a stream of server-sent events nor a JSON completion (Content-Type "text/event-stream"; it begins "hello\nworld"` + fix, 1},
		{"a long page is shortened", "", fakeserver.Reply{Body: "<p>" + string(make([]byte, 400)) + "</p>"},
			`the reply is neither a stream of server-sent events nor a JSON completion (Content-Type "text/html; charset=utf-8"; it begins "<p>` +
				strings.Repeat(`\x00`, 297) + `…"` + fix, 1},
		{"an error object with status 200", "", fakeserver.Reply{Body: `{"error":{"message":"model is loading","code":503}}`, ContentType: "application/json"},
			"the server replied with an error: model is loading (code 503)", 1},
		// Cut short of its Content-Length: a dropped connection, retried.
		{"a whole reply cut halfway", "", fakeserver.Reply{NoStream: true, Text: "half", Truncate: true},
			"gave up after 2 attempts (the api.attempts option): the reply ended before it finished: the connection dropped or the server cut the response off", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(tt.reply))
			m := plainServer(t, s, tt.chat, openai.Options{MaxAttempts: 2})
			req := lm.GenerateRequest{Messages: user("q")}
			if tt.chat == "no" {
				req = lm.GenerateRequest{Prompt: "q"}
			}
			res := generate(t, m, req)[0]
			require.Error(t, res.Err)
			assert.Equal(t, `openai model "qwen3" at `+s.URL+": "+tt.wantErr, res.Err.Error())
			assert.Equal(t, lm.StopError, res.StopReason)
			assert.Len(t, s.Requests(), tt.attempts)
			assert.Equal(t, tt.attempts-1, res.Retries)
		})
	}
}

// TestStreamUnderAJSONContentType: the body decides, not the label: a
// stream sent as application/json is read as a stream, with its timing.
func TestStreamUnderAJSONContentType(t *testing.T) {
	body := `data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":2,"completion_tokens":1,"cost":0.5}}` + "\n\n" +
		"data: [DONE]\n\n"
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Body: body, ContentType: "application/json"}))
	res := generate(t, plainServer(t, s, "", openai.Options{}), lm.GenerateRequest{Messages: user("q")})[0]
	require.NoError(t, res.Err)
	assert.Equal(t, "Hi", res.Text)
	assert.Equal(t, [2]int{2, 1}, [2]int{res.InputTokens, res.OutputTokens})
	require.NotNil(t, res.CostUSD)
	assert.Equal(t, 0.5, *res.CostUSD)
	assert.Positive(t, res.TTFT, "a stream has a time to first token")
	assert.Len(t, s.Requests(), 1)
}
