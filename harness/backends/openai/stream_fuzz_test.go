package openai

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/iotest"

	"github.com/feather-eval/feather/harness/lm"
)

// maxStream bounds a fuzzed body: the reader's work is linear in it, and
// a bound keeps every run quick.
const maxStream = 64 << 10

// streamSeeds are streamed answers in the fake server's shapes (and
// OpenRouter's and vLLM's): keep-alive comments, role and content deltas,
// refusals, tool calls split across chunks, finish chunks with native
// reasons and stop details, usage with cost, error chunks, truncations.
var streamSeeds = []string{
	": OPENROUTER PROCESSING\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"content":" world"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7,"cost":0.00012}}` + "\n\n" +
		"data: [DONE]\n\n",
	`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_0","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"loc"}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ation\": \"Paris\"}"}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","function":{"name":"b","arguments":"[1]"}}]},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" +
		"data: [DONE]\n\n",
	`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"refusal":"I can't"},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop","native_finish_reason":"refusal","stop_details":{"type":"refusal","category":"cyber"}}]}` + "\n\n" +
		"data: [DONE]\n\n",
	`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"par"},"finish_reason":null}]}` + "\n\n" +
		`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"code":502,"message":"upstream failed"}}` + "\n\n",
	`data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"cut"},"finish_reason":null}]}` + "\n\n",
	`data: {"object":"text_completion","choices":[{"index":0,"text":"Once","finish_reason":null,"logprobs":null}]}` + "\n\n" +
		`data: {"object":"text_completion","choices":[{"index":0,"text":"","finish_reason":"length","logprobs":null}]}` + "\n\n" +
		"data: [DONE]",
	`data: {"object":"error","message":"model not loaded","type":"BadRequestError","code":400}` + "\n\n",
	"event: message\r\nid: 7\r\ndata: {\"choices\":[{\"index\":1,\"delta\":{\"content\":\"x\"}},\r\ndata: {\"index\":0,\"error\":{\"code\":\"x\"}}]}\r\n\r\n: ping\r\ndata:[DONE]\r\n\r\n",
	`data: {"choices":[{"index":0,"delta":{},"finish_reason":"abort"}]}` + "\n\ndata: [DONE]\n\n",
	"data: {\"choices\": nul\n\n",
	"",
	"\n\n\n",
	// Replies that were not streamed, and bodies that are neither.
	`{"id":"c2","object":"chat.completion","created":1700000000,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_0","type":"function","function":{"name":"get_weather","arguments":"{\"location\": \"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":5,"completion_tokens":9,"cost":0.0002}}`,
	"\n " + `{"object":"text_completion","choices":[{"index":0,"text":"Once","finish_reason":"length"}]}`,
	`{"error":{"message":"overloaded","code":503}}`,
	`{"detail":"Not Found"}`,
	"<!doctype html>\n<html><body>Open WebUI</body></html>\n",
}

// FuzzSSE feeds arbitrary byte streams to the SSE reader and to the
// accumulator that assembles a streamed completion from it. Neither may
// panic or loop: the reader ends at [DONE] (io.EOF, then io.EOF again) or
// at the end of the body (errTruncated, which unwraps to
// io.ErrUnexpectedEOF); how the body is split into reads changes nothing;
// an answer the accumulator accepts was finished by [DONE] or was a whole
// JSON completion, and what it fills in has a known stop reason.
func FuzzSSE(f *testing.F) {
	if !errors.Is(errTruncated, io.ErrUnexpectedEOF) {
		f.Fatal("errTruncated does not unwrap to io.ErrUnexpectedEOF")
	}
	for _, s := range streamSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > maxStream {
			return
		}
		events, end := readEvents(t, bytes.NewReader(body), len(body))
		oneEvents, oneEnd := readEvents(t, iotest.OneByteReader(bytes.NewReader(body)), len(body))
		if !slices.EqualFunc(events, oneEvents, bytes.Equal) || end != oneEnd {
			t.Fatalf("byte-at-a-time reads differ: %q %v, whole: %q %v", oneEvents, oneEnd, events, end)
		}

		var acc accumulator
		err := acc.read(bytes.NewReader(body), "")
		var one accumulator
		oneErr := one.read(iotest.HalfReader(bytes.NewReader(body)), "")
		if (err == nil) != (oneErr == nil) || err != nil && err.Error() != oneErr.Error() || acc.text.String() != one.text.String() {
			t.Fatalf("short reads change the result: %v / %q, whole: %v / %q", oneErr, one.text.String(), err, acc.text.String())
		}
		switch {
		case err == nil && end != io.EOF && !acc.unstreamed:
			t.Fatalf("accepted a stream that ended without [DONE] (%v)", end)
		case err != nil && err.Error() == "":
			t.Fatalf("an error with no message: %#v", err)
		case errors.Is(err, io.ErrUnexpectedEOF) && end != errTruncated:
			t.Fatalf("reported truncation (%v) of a stream that has its [DONE]", err)
		case acc.unstreamed && bytes.TrimLeft(body, " \t\r\n")[0] != '{':
			t.Fatalf("read as a whole reply a body that does not open with '{'")
		}
		var res lm.GenerateResult
		acc.fill(&res)
		if acc.unstreamed && res.TTFT != 0 {
			t.Fatalf("a reply that was not streamed has time to first token %v", res.TTFT)
		}
		if !slices.Contains([]string{lm.StopEOS, lm.StopLength, lm.StopToolCalls, lm.StopRefusal, lm.StopError}, res.StopReason) {
			t.Fatalf("stop reason %q", res.StopReason)
		}
		if len(res.ToolCalls) != len(acc.calls) {
			t.Fatalf("%d tool calls filled from %d", len(res.ToolCalls), len(acc.calls))
		}
	})
}

// readEvents reads every event of a body of n bytes, failing on a loop:
// each event consumes at least one line, so there are at most n+1 calls.
func readEvents(t *testing.T, r io.Reader, n int) ([][]byte, error) {
	t.Helper()
	s := newSSEReader(r)
	var events [][]byte
	for range n + 2 {
		data, err := s.next()
		if err == nil {
			events = append(events, data)
			continue
		}
		if err != io.EOF && err != errTruncated {
			t.Fatalf("a bytes.Reader body ended in %v, want io.EOF or errTruncated", err)
		}
		// The end is sticky: a caller that reads on gets it again.
		if again, err2 := s.next(); again != nil || err2 != err {
			t.Fatalf("after %v, next() = %q, %v", err, again, err2)
		}
		return events, err
	}
	t.Fatalf("%d events from a %d-byte body: the reader loops", len(events), n)
	return nil, nil
}
