package httpapi_test

// Fault injection: the custom backend posts to the fake OpenAI server's
// non-streamed chat endpoint (a template and a response path like any
// custom server's) while the server fails. Attempts come from the server's
// request log; errors are whole messages.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/retry"
)

// recorder is a retry Sleep that records the waits instead of sleeping.
type recorder struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.mu.Lock()
	r.waits = append(r.waits, d)
	r.mu.Unlock()
	return nil
}

// Where every attempt is meant to time out, the limit is short; where an
// answer must arrive within it, it leaves room for a loaded machine.
const (
	shortTimeout = 300 * time.Millisecond
	roomyTimeout = 2 * time.Second
)

// fakeModel is an http model for url, with three attempts of roomyTimeout
// each and recorded waits (jitter fixed at half).
func fakeModel(t *testing.T, url string) (*httpapi.Model, *recorder) {
	t.Helper()
	m, err := httpapi.New(entry(url, `{"model": "m", "messages": [{"role": "user", "content": "{{prompt}}"}]}`, "choices.0.message.content"))
	require.NoError(t, err)
	rec := &recorder{}
	m.MaxAttempts, m.Timeout = 3, roomyTimeout
	m.Retry = retry.Policy{Sleep: rec.sleep, Rand: func() float64 { return 0.5 }}
	return m, rec
}

func chatURL(s *fakeserver.Server) string { return s.URL + "/chat/completions" }

func TestFaults(t *testing.T) {
	tests := []struct {
		name         string
		script       fakeserver.Script
		wantAttempts int
		wantErr      string // after the model and URL; URL stands for the endpoint; "" for success
		wantWaits    []time.Duration
	}{
		{"429 then success", fakeserver.FailFirst(2, fakeserver.Reply{Status: 429, RetryAfter: "0"}, nil), 3, "",
			[]time.Duration{0, 0}},
		{"429 exhausted", fakeserver.Sequence(fakeserver.Reply{Status: 429, RetryAfter: "0", ErrorMessage: "rate limited"}), 3,
			`gave up after 3 attempts (the api.attempts option): HTTP 429 Too Many Requests: {"error":{"code":429,"message":"rate limited"}}`,
			[]time.Duration{0, 0}},
		{"Retry-After longer than the cap", fakeserver.Sequence(fakeserver.Reply{Status: 429, RetryAfter: "3600", ErrorMessage: "daily limit"}), 1,
			`the server asked to retry after 1h0m0s, longer than the 5m0s this backend waits: HTTP 429 Too Many Requests: {"error":{"code":429,"message":"daily limit"}}`, nil},
		{"500 then success", fakeserver.FailFirst(1, fakeserver.Reply{Status: 500}, nil), 2, "",
			[]time.Duration{750 * time.Millisecond}},
		{"502 then success", fakeserver.FailFirst(1, fakeserver.Reply{Status: 502}, nil), 2, "",
			[]time.Duration{750 * time.Millisecond}},
		{"503 exhausted", fakeserver.Sequence(fakeserver.Reply{Status: 503, ErrorMessage: "overloaded"}), 3,
			`gave up after 3 attempts (the api.attempts option): HTTP 503 Service Unavailable: {"error":{"code":503,"message":"overloaded"}}`,
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		{"a proxy's page, exhausted", fakeserver.Sequence(fakeserver.Reply{Status: 502, ErrorBody: "<html>502 Bad Gateway</html>\n"}), 3,
			"gave up after 3 attempts (the api.attempts option): HTTP 502 Bad Gateway: <html>502 Bad Gateway</html>",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		{"400 is not retried", fakeserver.Sequence(fakeserver.Reply{Status: 400, ErrorMessage: "bad input"}), 1,
			`HTTP 400 Bad Request: {"error":{"code":400,"message":"bad input"}}`, nil},
		{"401 is not retried", fakeserver.Sequence(fakeserver.Reply{Status: 401, ErrorMessage: "bad key"}), 1,
			`HTTP 401 Unauthorized: {"error":{"code":401,"message":"bad key"}}`, nil},
		{"hangs, then answers", fakeserver.FailFirst(1, fakeserver.Reply{Hang: true}, nil), 2, "",
			[]time.Duration{750 * time.Millisecond}},
		{"closed unanswered, then answers", fakeserver.FailFirst(1, fakeserver.Reply{DropConnection: true}, nil), 2, "",
			[]time.Duration{750 * time.Millisecond}},
		{"reset unanswered, then answers", fakeserver.FailFirst(2, fakeserver.Reply{Reset: true}, nil), 3, "",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		{"always closed unanswered", fakeserver.Sequence(fakeserver.Reply{DropConnection: true}), 3,
			"gave up after 3 attempts (the api.attempts option): the server closed the connection without answering: EOF",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		// The endpoint answered 200, so it did the work: a cut body is final.
		{"a 200 body cut halfway is not retried", fakeserver.Sequence(fakeserver.Reply{Text: "ok", Truncate: true}), 1,
			"reading the response: unexpected EOF", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, tt.script)
			m, rec := fakeModel(t, chatURL(s))
			start := time.Now()
			res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
			require.NoError(t, err)
			assert.Less(t, time.Since(start), time.Duration(tt.wantAttempts)*m.Timeout+20*time.Second, "bounded by attempts × timeout, generously")
			assert.Len(t, s.Requests(), tt.wantAttempts)
			assert.Equal(t, tt.wantAttempts-1, res[0].Retries)
			assert.Equal(t, tt.wantWaits, rec.waits)
			if tt.wantErr == "" {
				require.NoError(t, res[0].Err)
				assert.Equal(t, "ok", res[0].Text)
				assert.Equal(t, lm.StopEOS, res[0].StopReason)
				return
			}
			require.Error(t, res[0].Err)
			assert.Equal(t, `http model "haiku": POST `+chatURL(s)+": "+tt.wantErr, res[0].Err.Error())
			assert.Equal(t, lm.StopError, res[0].StopReason)
			assert.Empty(t, res[0].Text)
		})
	}
}

func TestHungEndpointTimesOut(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Hang: true}))
	m, rec := fakeModel(t, chatURL(s))
	m.Timeout = shortTimeout
	start := time.Now()
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
	require.NoError(t, err)
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 3*shortTimeout, "every attempt ran to its timeout")
	assert.Less(t, elapsed, 20*time.Second, "bounded by attempts × timeout, generously")
	assert.Equal(t, `http model "haiku": POST `+chatURL(s)+": gave up after 3 attempts (the api.attempts option): "+
		"no complete answer within 300ms (the api.timeout option): context deadline exceeded", res[0].Err.Error())
	assert.Len(t, s.Requests(), 3)
	assert.Equal(t, 2, res[0].Retries)
	assert.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, rec.waits)
}

func TestRefusedConnectionsAreRetried(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close()) // nothing listens there now
	m, rec := fakeModel(t, "http://"+addr+"/generate")
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
	require.NoError(t, err)
	assert.Equal(t, `http model "haiku": POST http://`+addr+`/generate: gave up after 3 attempts (the api.attempts option): dial tcp `+addr+
		": connect: connection refused", res[0].Err.Error())
	assert.Equal(t, 2, res[0].Retries)
	assert.Len(t, rec.waits, 2)
}

func TestRateLimitStormOverABatch(t *testing.T) {
	const n, failures = 32, 2
	var inFlight, peak atomic.Int32
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		cur := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); cur > p && !peak.CompareAndSwap(p, cur); p = peak.Load() {
		}
		if r.Attempt < failures {
			return fakeserver.Reply{Status: 429, RetryAfter: "0"}
		}
		return fakeserver.Reply{Text: "re: " + r.Messages[0].Content}
	})
	m, rec := fakeModel(t, chatURL(s))
	m.Concurrency = 8
	var reqs []lm.GenerateRequest
	for i := range n {
		reqs = append(reqs, lm.GenerateRequest{Prompt: fmt.Sprintf("question %d", i)})
	}
	res, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	for i, r := range res {
		require.NoError(t, r.Err, i)
		assert.Equal(t, fmt.Sprintf("re: question %d", i), r.Text)
		assert.Equal(t, failures, r.Retries)
	}
	assert.Len(t, s.Requests(), n*(failures+1))
	assert.Len(t, rec.waits, n*failures)
	assert.LessOrEqual(t, peak.Load(), int32(8), "no more than Concurrency requests in flight")
}

// TestCancelEndsAHungRequest: cancelling the context ends a request the
// server never answers, whatever the attempt timeout.
func TestCancelEndsAHungRequest(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Hang: true}))
	m, _ := fakeModel(t, chatURL(s))
	m.Timeout = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled atomic.Int64
	time.AfterFunc(200*time.Millisecond, func() { cancelled.Store(time.Now().UnixNano()); cancel() })
	res, err := m.Generate(ctx, []lm.GenerateRequest{{Prompt: "q"}})
	returned := time.Now()
	require.ErrorIs(t, err, context.Canceled)
	require.NotZero(t, cancelled.Load(), "Generate returned before the cancel")
	assert.Less(t, returned.Sub(time.Unix(0, cancelled.Load())), 2*time.Second, "ends promptly after the cancel")
	assert.ErrorIs(t, res[0].Err, context.Canceled)
	assert.Equal(t, `http model "haiku": POST `+chatURL(s)+": context canceled", res[0].Err.Error())
	assert.Len(t, s.Requests(), 1)
}

// TestKeyNeverLeaksFromFaults: a server that echoes the Authorization
// header in its error body, long enough that the error's 300-byte snippet
// of the body is cut through the key, and one that echoes a header's
// variable without the rest of the header's value.
func TestKeyNeverLeaksFromFaults(t *testing.T) {
	const key, token = "hk-0123456789-very-secret", "tok-9876543210-zyxwvut"
	// pad puts the key at byte 290 of a body that starts with prefix, so
	// the cut splits it.
	pad := func(prefix string) int { return 290 - len(prefix) - len(" you sent Bearer ") }
	errorPad := pad(`{"error":{"code":500,"message":"`)
	replyPad := pad(`{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"`)
	echo := func(r fakeserver.Request, pad int) string {
		return strings.Repeat(".", pad) + " you sent " + r.Header.Get("Authorization") + " with " + strings.TrimPrefix(r.Header.Get("X-Token"), "Token ")
	}
	faults := []struct {
		name  string
		reply func(r fakeserver.Request) fakeserver.Reply
	}{
		{"401", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 401, ErrorMessage: echo(r, 0)}
		}},
		{"500", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 500, ErrorMessage: echo(r, 0)}
		}},
		{"401, cut through the key", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 401, ErrorMessage: echo(r, errorPad)}
		}},
		{"500, cut through the key", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 500, ErrorMessage: echo(r, errorPad)}
		}},
		{"200 whose reply is not where response_path points", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: echo(r, replyPad)}
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			s := fakeserver.Start(t, f.reply)
			e := entry(chatURL(s), `{"model": "m", "messages": [{"role": "user", "content": "{{prompt}}"}]}`, "choices.0.message.content")
			if strings.HasPrefix(f.name, "200") {
				settings(e).ResponsePath = "choices.0.message.text"
			}
			settings(e).APIKeyEnv = "HAIKU_API_KEY"
			settings(e).Headers = map[string]string{"X-Token": "Token ${TEAM_TOKEN}"}
			m, err := httpapi.New(e)
			require.NoError(t, err)
			m.Getenv = env(map[string]string{"HAIKU_API_KEY": key, "TEAM_TOKEN": token})
			m.MaxAttempts = 2
			m.Retry = retry.Policy{Sleep: (&recorder{}).sleep}
			res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
			require.NoError(t, err)
			require.Error(t, res[0].Err)
			assert.Equal(t, "Bearer "+key, s.Requests()[0].Header.Get("Authorization"), "the key is sent")

			record, err := json.Marshal(res[0])
			require.NoError(t, err)
			for _, seen := range []string{res[0].Err.Error(), res[0].Text, string(record)} {
				assert.NotContains(t, seen, key[:8], "not even the start of the key")
				assert.NotContains(t, seen, token[:8])
			}
			assert.Contains(t, res[0].Err.Error(), "you sent Bearer [REDACTED]", "the echo is there, scrubbed")
		})
	}
}
