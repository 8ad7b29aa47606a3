package fakeserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
)

func post(t *testing.T, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Answer: Paris", []string{"Answer:", " Paris"}},
		{" leading space", []string{" leading", " space"}},
		{"a  b", []string{"a", " ", " b"}},
		{"line\nbreak", []string{"line\nbreak"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, fakeserver.Tokenize(tt.in), "%q", tt.in)
	}
}

func TestChatStreamWireFormat(t *testing.T) {
	s := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{
			Text:      "Hi there",
			ToolCalls: []fakeserver.ToolCall{{ID: "call_1", Name: "f", Arguments: `{"a":1}`}},
			Cost:      fakeserver.USD(0.25), NativeFinishReason: "tool_use",
		}
	})
	s.SetChunkDelay(0)
	resp, body := post(t, s.URL+"/chat/completions",
		`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"a b c"}]}`,
		"Authorization", "Bearer k")
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	const head = `"id":"fake-0","model":"m","object":"chat.completion.chunk"`
	want := ": OPENROUTER PROCESSING\n\n" +
		`data: {"choices":[{"delta":{"content":"","role":"assistant"},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"content":"Hi"},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"content":" there"},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"","name":"f"},"id":"call_1","index":0,"type":"function"}]},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\""},"index":0}]},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"a\""},"index":0}]},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"},"index":0}]},"finish_reason":null,"index":0}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"tool_calls","index":0,"native_finish_reason":"tool_use"}],"created":1700000000,` + head + "}\n\n" +
		`data: {"choices":[],"created":1700000000,` + head + `,"usage":{"completion_tokens":4,"cost":0.25,"prompt_tokens":3,"total_tokens":7}}` + "\n\n" +
		"data: [DONE]\n\n"
	assert.Equal(t, want, body)

	reqs := s.Requests()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer k", reqs[0].Header.Get("Authorization"))
	assert.Equal(t, []fakeserver.Message{{Role: "user", Content: "a b c"}}, reqs[0].Messages)
	assert.True(t, reqs[0].Stream)
	assert.Equal(t, "m", reqs[0].Model)
}

func TestFaults(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(
		fakeserver.Reply{Status: 429, RetryAfter: "3", ErrorMessage: "slow down"},
		fakeserver.Reply{Text: "cut", Truncate: true},
		fakeserver.Reply{Text: "x", StreamError: "upstream died"},
	))
	s.SetChunkDelay(0)
	const req = `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`

	resp, body := post(t, s.URL+"/chat/completions", req)
	assert.Equal(t, 429, resp.StatusCode)
	assert.Equal(t, "3", resp.Header.Get("Retry-After"))
	assert.JSONEq(t, `{"error":{"message":"slow down","code":429}}`, body)

	_, body = post(t, s.URL+"/chat/completions", req)
	assert.Contains(t, body, `"content":"cut"`)
	assert.NotContains(t, body, "finish_reason\":\"stop")
	assert.NotContains(t, body, "[DONE]")

	_, body = post(t, s.URL+"/chat/completions", req)
	assert.Contains(t, body, `"error":{"code":502,"message":"upstream died"}`)
	assert.Contains(t, body, `"finish_reason":"error"`)
	assert.NotContains(t, body, "[DONE]")
	assert.NotContains(t, body, `"usage"`, "usage comes only when asked for")

	reqs := s.Requests()
	assert.Equal(t, []int{0, 1, 2}, []int{reqs[0].Attempt, reqs[1].Attempt, reqs[2].Attempt}, "the same body counts as a repeat")
}

func TestEchoLogProbs(t *testing.T) {
	s := fakeserver.Start(t, nil)
	_, body := post(t, s.URL+"/completions", `{"model":"m","prompt":"The cat","echo":true,"logprobs":1,"max_tokens":1}`)
	var r struct {
		Choices []struct {
			Text     string
			Logprobs struct {
				Tokens        []string             `json:"tokens"`
				TokenLogprobs []*float64           `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
				TextOffset    []int                `json:"text_offset"`
			}
		}
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &r))
	lp := r.Choices[0].Logprobs
	assert.Equal(t, "The cat the", r.Choices[0].Text)
	assert.Equal(t, []string{"<s>", "The", " cat", " the"}, lp.Tokens)
	assert.Equal(t, []int{0, 3, 6, 10}, lp.TextOffset)
	require.Nil(t, lp.TokenLogprobs[0])
	assert.Equal(t, []float64{-0.75, -1, -1}, []float64{*lp.TokenLogprobs[1], *lp.TokenLogprobs[2], *lp.TokenLogprobs[3]})
	assert.Equal(t, []map[string]float64{nil, {"The": -0.75, " the": -1}, {" cat": -1, " the": -1}, {" the": -1}}, lp.TopLogprobs)
	assert.Equal(t, 3, r.Usage.PromptTokens)
}

// TestConnectionFaults checks each connection-level fault on the wire, as
// a plain HTTP client sees it.
func TestConnectionFaults(t *testing.T) {
	const req = `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`
	tests := []struct {
		name       string
		reply      fakeserver.Reply
		wantStatus int    // 0: no answer at all
		wantBody   string // what the body holds before it breaks off
		wantErr    error  // how the response or its body ends; nil: cleanly
		plain      bool   // ask for a non-streamed answer
	}{
		{"proxy page", fakeserver.Reply{Status: 502, RetryAfter: "0", ErrorBody: "<html>502 Bad Gateway</html>"}, 502, "<html>502 Bad Gateway</html>", nil, false},
		{"hang", fakeserver.Reply{Hang: true}, 0, "", context.DeadlineExceeded, false},
		{"dropped before answering", fakeserver.Reply{DropConnection: true}, 0, "", io.EOF, false},
		{"reset before answering", fakeserver.Reply{Reset: true}, 0, "", syscall.ECONNRESET, false},
		{"stall after a token", fakeserver.Reply{Text: "one", Stall: true, Partial: "data: {\"cho"}, 200, `"content":"one"`, context.DeadlineExceeded, false},
		{"dropped mid-event", fakeserver.Reply{Text: "one", Truncate: true, DropConnection: true, Partial: "data: {\"cho"}, 200, "data: {\"cho", io.ErrUnexpectedEOF, false},
		{"non-streamed answer cut halfway", fakeserver.Reply{Text: "one", Truncate: true}, 200, `{"choices":[{"finish_reason":"stop"`, io.ErrUnexpectedEOF, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(tt.reply))
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			body := req
			if tt.plain {
				body = strings.Replace(req, `"stream":true`, `"stream":false`, 1)
			}
			hr, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/chat/completions", strings.NewReader(body))
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(hr)
			if tt.wantStatus == 0 {
				require.Error(t, err)
				assert.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tt.wantStatus, resp.StatusCode)
			b, err := io.ReadAll(resp.Body)
			assert.Contains(t, string(b), tt.wantBody)
			if tt.wantErr == nil {
				assert.NoError(t, err)
				assert.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
				assert.Equal(t, "0", resp.Header.Get("Retry-After"))
				return
			}
			assert.ErrorIs(t, err, tt.wantErr)
			assert.NotContains(t, string(b), "[DONE]")
		})
	}
}

// TestRepliesWithoutAStream: NoStream answers a streamed request with the
// whole completion as JSON; Body answers with anything at all.
func TestRepliesWithoutAStream(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(
		fakeserver.Reply{NoStream: true, Text: "Hi there", ToolCalls: []fakeserver.ToolCall{{Name: "f", Arguments: `{"a":1}`}}, Cost: fakeserver.USD(0.25)},
		fakeserver.Reply{NoStream: true, Text: " Paris", FinishReason: "length"},
		fakeserver.Reply{Body: "<html>Open WebUI</html>"},
		fakeserver.Reply{Body: `{"detail":"Not Found"}`, ContentType: "application/json"},
	))
	resp, body := post(t, s.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"a b c"}]}`)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"id":"fake","object":"chat.completion","created":1700000000,"model":"m",
		"choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Hi there",
			"tool_calls":[{"id":"call_0","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}}],
		"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"cost":0.25}}`, body)

	resp, body = post(t, s.URL+"/completions", `{"model":"m","stream":true,"prompt":"Capital of France:"}`)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"id":"fake","object":"text_completion","created":1700000000,"model":"m",
		"choices":[{"index":0,"text":" Paris","finish_reason":"length","logprobs":null}],
		"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`, body)

	resp, body = post(t, s.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	assert.Equal(t, "<html>Open WebUI</html>", body)

	resp, body = post(t, s.URL+"/chat/completions", `{"model":"m","stream":true,"messages":[]}`)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, `{"detail":"Not Found"}`, body)

	for _, r := range s.Requests() {
		assert.True(t, r.Stream, "every request asked for a stream")
	}
}

// TestStreamFaults: a wrong usage object goes out verbatim, a malformed
// event sits halfway through the content, and a slow drip paces one
// answer's chunks without slowing the others.
func TestStreamFaults(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(
		fakeserver.Reply{Text: "a b", Usage: json.RawMessage(`{"prompt_tokens":3.0,"completion_tokens":"2"}`)},
		fakeserver.Reply{Text: "a b c d", Malformed: "data: {\"choices\": [{\"delt\n\n"},
		fakeserver.Reply{Text: "a b c", ChunkDelay: 40 * time.Millisecond},
		fakeserver.Reply{Text: "a b c"},
	))
	s.SetChunkDelay(0)
	const req = `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"q"}]}`

	_, body := post(t, s.URL+"/chat/completions", req)
	assert.Contains(t, body, `"usage":{"prompt_tokens":3.0,"completion_tokens":"2"}`)

	_, body = post(t, s.URL+"/chat/completions", req)
	events := strings.Split(strings.TrimSuffix(body, "\n\n"), "\n\n")
	require.Len(t, events, 10, "keep-alive, role, 4 pieces, the malformed event, finish, usage, [DONE]:\n%s", body)
	assert.Contains(t, events[3], `"content":" b"`)
	assert.Equal(t, `data: {"choices": [{"delt`, events[4], "halfway through the content")
	assert.Contains(t, events[5], `"content":" c"`)

	for _, want := range []time.Duration{5 * 40 * time.Millisecond, 0} {
		start := time.Now()
		post(t, s.URL+"/chat/completions", req)
		took := time.Since(start)
		assert.GreaterOrEqual(t, took, want, "role, 3 pieces, finish and usage: 5 pauses")
		assert.Less(t, took, want+150*time.Millisecond)
	}
}

// TestKeepRequests: with the log off the server keeps no request, but
// still counts them and still counts repeats for Attempt.
func TestKeepRequests(t *testing.T) {
	var attempts []int
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		attempts = append(attempts, r.Attempt)
		return fakeserver.Reply{Text: "ok"}
	})
	s.SetChunkDelay(0)
	s.KeepRequests(false)
	const req = `{"model":"m","stream":true,"messages":[{"role":"user","content":"q"}]}`
	post(t, s.URL+"/chat/completions", req)
	post(t, s.URL+"/chat/completions", req)
	assert.Empty(t, s.Requests())
	assert.Equal(t, 2, s.Count())
	assert.Equal(t, []int{0, 1}, attempts)
}
