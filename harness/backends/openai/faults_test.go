package openai_test

// Fault injection: the backend drives the fake server over real HTTP while
// the server fails the ways providers and proxies do. Expectations are
// exact: attempts come from the server's request log, errors are whole
// messages, and results say what arrived before a failure.

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

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/retry"
)

// where prefixes every error of the OpenRouter model openRouter opens.
func where(s *fakeserver.Server) string {
	return `openrouter model "anthropic/claude-fable-5" at ` + s.URL + ": "
}

// attemptsBy counts the server's requests per first user message.
func attemptsBy(s *fakeserver.Server) map[string]int {
	n := map[string]int{}
	for _, r := range s.Requests() {
		n[r.Messages[0].Content]++
	}
	return n
}

func TestRateLimitStorm(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter string
		wantWaits  []time.Duration // each request's waits, in order
	}{
		{"Retry-After 0", "0", []time.Duration{0, 0, 0}},
		// Without Retry-After: backoff from 1s, doubling, jitter fixed at half.
		{"no Retry-After", "", []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const n, failures = 32, 3
			var inFlight, peak atomic.Int32
			limited := fakeserver.Reply{Status: 429, RetryAfter: tt.retryAfter, ErrorMessage: "rate limited"}
			s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
				cur := inFlight.Add(1)
				defer inFlight.Add(-1)
				for p := peak.Load(); cur > p && !peak.CompareAndSwap(p, cur); p = peak.Load() {
				}
				if r.Messages[0].Content == "doomed" || r.Attempt < failures {
					return limited
				}
				return fakeserver.Reply{Text: "answer to " + r.Messages[0].Content}
			})
			sl := &sleeper{}
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Concurrency: 8, MaxAttempts: failures + 1, Sleep: sl.sleep, Rand: func() float64 { return 0.5 }})
			var reqs []lm.GenerateRequest
			for i := range n {
				reqs = append(reqs, lm.GenerateRequest{Messages: user(string(rune('A'+i%26)) + strings.Repeat("!", i/26))})
			}
			reqs = append(reqs, lm.GenerateRequest{Messages: user("doomed")})
			res := generate(t, m, reqs...)

			attempts := attemptsBy(s)
			for i, r := range res[:n] {
				q := reqs[i].Messages[0].Content
				require.NoError(t, r.Err, q)
				assert.Equal(t, "answer to "+q, r.Text)
				assert.Equal(t, failures, r.Retries, q)
				assert.Equal(t, failures+1, attempts[q], q)
			}
			doomed := res[n]
			assert.Equal(t, where(s)+"gave up after 4 attempts (the api.attempts option): HTTP 429 Too Many Requests: rate limited", doomed.Err.Error())
			assert.Equal(t, lm.StopError, doomed.StopReason)
			assert.Equal(t, failures, doomed.Retries)
			assert.Equal(t, failures+1, attempts["doomed"])
			assert.Len(t, s.Requests(), (n+1)*(failures+1))
			assert.LessOrEqual(t, peak.Load(), int32(8), "no more than Concurrency requests in flight")

			// Every request waited its own way through the same schedule.
			count := map[time.Duration]int{}
			for _, w := range sl.waits {
				count[w]++
			}
			want := map[time.Duration]int{}
			for _, w := range tt.wantWaits {
				want[w] += n + 1
			}
			assert.Equal(t, want, count)
		})
	}
}

// TestLongRetryAfterFailsFast: a Retry-After beyond MaxRetryAfter ends the
// request at once, with the real clock and timer, instead of sleeping.
func TestLongRetryAfterFailsFast(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name       string
		retryAfter string
		wantAfter  string
	}{
		{"an hour", "3600", "1h0m0s"},
		{"a day as a date", now.Add(24 * time.Hour).UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"), "23h59m"},
		{"too long to represent", "99999999999", "2562047h47m16.854775807s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Status: 429, RetryAfter: tt.retryAfter, ErrorMessage: "daily limit"}))
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Sleep: retry.Sleep}) // the real timer
			start := time.Now()
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			assert.Less(t, time.Since(start), 30*time.Second, "no wait at all, bounded generously")
			require.Error(t, res.Err)
			assert.Contains(t, res.Err.Error(), where(s)+"the server asked to retry after "+tt.wantAfter)
			assert.True(t, strings.HasSuffix(res.Err.Error(), ", longer than the 5m0s this backend waits: HTTP 429 Too Many Requests: daily limit"), res.Err.Error())
			assert.Equal(t, 0, res.Retries)
			assert.Len(t, s.Requests(), 1)
		})
	}
}

func TestServerErrors(t *testing.T) {
	tests := []struct {
		name         string
		fault        fakeserver.Reply
		failures     int // attempts that fail before the fault stops; 0: all
		wantAttempts int
		wantErr      string // after where(s); "" for success
	}{
		{"500 then success", fakeserver.Reply{Status: 500, ErrorMessage: "internal"}, 1, 2, ""},
		{"502 then success", fakeserver.Reply{Status: 502, ErrorMessage: "bad gateway"}, 2, 3, ""},
		{"503 then success", fakeserver.Reply{Status: 503, ErrorMessage: "overloaded"}, 1, 2, ""},
		{"5xx exhausted", fakeserver.Reply{Status: 503, ErrorMessage: "no provider available"}, 0, 3,
			"gave up after 3 attempts (the api.attempts option): HTTP 503 Service Unavailable: no provider available"},
		{"a proxy's page, exhausted", fakeserver.Reply{Status: 502, ErrorBody: "<html><body>502 Bad Gateway</body></html>\n"}, 0, 3,
			"gave up after 3 attempts (the api.attempts option): HTTP 502 Bad Gateway: <html><body>502 Bad Gateway</body></html>"},
		{"400 is not retried", fakeserver.Reply{Status: 400, ErrorMessage: "max_tokens too large"}, 0, 1,
			"HTTP 400 Bad Request: max_tokens too large"},
		{"401 is not retried", fakeserver.Reply{Status: 401, ErrorMessage: "No auth credentials found"}, 0, 1,
			"HTTP 401 Unauthorized: No auth credentials found; check the key in OPENROUTER_API_KEY"},
		{"404 is not retried", fakeserver.Reply{Status: 404, ErrorMessage: "no such model"}, 0, 1,
			`HTTP 404 Not Found: no such model; check "base_url" (it usually ends in /v1) and "model"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := fakeserver.Sequence(tt.fault)
			if tt.failures > 0 {
				script = fakeserver.FailFirst(tt.failures, tt.fault, nil)
			}
			s := fakeserver.Start(t, script)
			sl := &sleeper{}
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{MaxAttempts: 3, Sleep: sl.sleep})
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			assert.Len(t, s.Requests(), tt.wantAttempts)
			assert.Len(t, sl.waits, tt.wantAttempts-1)
			assert.Equal(t, tt.wantAttempts-1, res.Retries)
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
				assert.Equal(t, "ok", res.Text)
				return
			}
			require.Error(t, res.Err)
			assert.Equal(t, where(s)+tt.wantErr, res.Err.Error())
			assert.Equal(t, lm.StopError, res.StopReason)
			assert.Empty(t, res.Text)
		})
	}
}

// The hung-connection tests run on the real clock. Where every attempt is
// meant to time out, the limit is short; where an answer (or its first
// token) must arrive within it, it leaves room for a loaded machine. Bounds
// on elapsed time are generous for the same reason.
const (
	shortTimeout = 300 * time.Millisecond
	roomyTimeout = 2 * time.Second
)

func TestHungConnections(t *testing.T) {
	tests := []struct {
		name         string
		script       fakeserver.Script
		timeout      time.Duration
		wantAttempts int
		wantErr      string // after where(s); "" for success
		wantText     string
	}{
		{"hangs, then answers", fakeserver.FailFirst(1, fakeserver.Reply{Hang: true}, nil), roomyTimeout, 2, "", "ok"},
		{"always hangs", fakeserver.Sequence(fakeserver.Reply{Hang: true}), shortTimeout, 3,
			"gave up after 3 attempts (the api.attempts option): no complete answer within 300ms (the api.timeout option): " +
				`Post "URL/chat/completions": context deadline exceeded`, ""},
		{"stalls before any token, then answers", fakeserver.FailFirst(1, fakeserver.Reply{Stall: true}, nil), roomyTimeout, 2, "", "ok"},
		{"always stalls before any token", fakeserver.Sequence(fakeserver.Reply{Stall: true}), shortTimeout, 3,
			"gave up after 3 attempts (the api.attempts option): no complete answer within 300ms (the api.timeout option): " +
				"reading the stream: context deadline exceeded", ""},
		{"stalls after a token: billed, not retried", fakeserver.Sequence(fakeserver.Reply{Chunks: []string{"Hello"}, Stall: true}), roomyTimeout, 1,
			"no complete answer within 2s (the api.timeout option): reading the stream: context deadline exceeded", "Hello"},
		{"stalls mid-event after a token", fakeserver.Sequence(fakeserver.Reply{Chunks: []string{"Hello"}, Stall: true,
			Partial: `data: {"choices":[{"index":0,"delta":{"content":" wor`}), roomyTimeout, 1,
			"no complete answer within 2s (the api.timeout option): reading the stream: context deadline exceeded", "Hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits out its timeouts
			s := fakeserver.Start(t, tt.script)
			sl := &sleeper{}
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{MaxAttempts: 3, AttemptTimeout: tt.timeout, Sleep: sl.sleep})
			start := time.Now()
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			elapsed := time.Since(start)
			failed := tt.wantAttempts - 1
			if tt.wantErr != "" {
				failed = tt.wantAttempts
			}
			assert.GreaterOrEqual(t, elapsed, time.Duration(failed)*tt.timeout, "every failed attempt ran to its timeout")
			assert.Less(t, elapsed, time.Duration(tt.wantAttempts)*tt.timeout+20*time.Second, "bounded by attempts × timeout, generously")
			assert.Len(t, s.Requests(), tt.wantAttempts)
			assert.Equal(t, tt.wantAttempts-1, res.Retries)
			assert.Equal(t, tt.wantText, res.Text)
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
				return
			}
			require.Error(t, res.Err)
			assert.Equal(t, where(s)+strings.ReplaceAll(tt.wantErr, "URL", s.URL), res.Err.Error())
			assert.Equal(t, lm.StopError, res.StopReason)
		})
	}
}

// TestCancelEndsAHungRequest: cancelling the context ends a request the
// server holds, whatever the attempt timeout, and a wait between attempts.
func TestCancelEndsAHungRequest(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakeserver.Reply
		opts     openai.Options
		wantText string
	}{
		{"no answer", fakeserver.Reply{Hang: true}, openai.Options{}, ""},
		{"stalled stream", fakeserver.Reply{Chunks: []string{"Hello"}, Stall: true}, openai.Options{}, "Hello"},
		{"waiting out a Retry-After", fakeserver.Reply{Status: 503, RetryAfter: "240"}, openai.Options{}, ""},
		{"waiting out a backoff", fakeserver.Reply{Status: 503}, openai.Options{BackoffBase: time.Hour, BackoffMax: time.Hour}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(tt.reply))
			o := tt.opts
			o.AttemptTimeout = time.Hour
			o.Sleep = retry.Sleep // the real timer
			m := openRouter(t, s, catalog.Entry{Key: "k"}, o)
			ctx, cancel := context.WithCancel(context.Background())
			var cancelled atomic.Int64
			time.AfterFunc(200*time.Millisecond, func() { cancelled.Store(time.Now().UnixNano()); cancel() })
			res, err := m.Generate(ctx, []lm.GenerateRequest{{Messages: user("q")}})
			returned := time.Now()
			require.ErrorIs(t, err, context.Canceled)
			require.NotZero(t, cancelled.Load(), "Generate returned before the cancel")
			assert.Less(t, returned.Sub(time.Unix(0, cancelled.Load())), 2*time.Second, "ends promptly after the cancel")
			require.Error(t, res[0].Err)
			assert.ErrorIs(t, res[0].Err, context.Canceled)
			assert.Equal(t, lm.StopError, res[0].StopReason)
			assert.Equal(t, tt.wantText, res[0].Text)
			assert.Len(t, s.Requests(), 1, "no retry after the cancel")
		})
	}
}

func TestTruncatedStreams(t *testing.T) {
	const cut = "the stream ended before it finished (no [DONE]): the connection dropped or the server cut the response off"
	hello := []string{"Hello", " world"}
	tests := []struct {
		name         string
		script       fakeserver.Script
		wantAttempts int
		wantErr      string // after where(s); "" for success
		wantText     string
	}{
		{"ends cleanly without [DONE]", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true}), 1, cut, "Hello world"},
		{"connection dropped after tokens", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true, DropConnection: true}), 1, cut, "Hello world"},
		{"connection reset after tokens", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true, Reset: true}), 1,
			"reading the stream: read tcp ", "Hello world"},
		{"dropped mid-JSON", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true, DropConnection: true,
			Partial: `data: {"choices":[{"index":0,"delta":{"content":"!!`}), 1, cut, "Hello world"},
		{"dropped after a whole data line without its blank line", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true, DropConnection: true,
			Partial: `data: {"choices":[{"index":0,"delta":{"content":"!!"}}]}` + "\n"}), 1, cut, "Hello world"},
		{"a garbled event", fakeserver.Sequence(fakeserver.Reply{Chunks: hello, Truncate: true,
			Partial: "data: {\"choices\":[{\"index\":0,\"delta\n\n"}), 1, `unreadable stream chunk {"choices":[{"index":0,"delta: unexpected end of JSON input`, "Hello world"},
		{"dropped before any token, then answers", fakeserver.FailFirst(1, fakeserver.Reply{Truncate: true, DropConnection: true}, nil), 2, "", "ok"},
		{"ends before any token, then answers", fakeserver.FailFirst(2, fakeserver.Reply{Truncate: true}, nil), 3, "", "ok"},
		{"always ends before any token", fakeserver.Sequence(fakeserver.Reply{Truncate: true, DropConnection: true}), 3,
			"gave up after 3 attempts (the api.attempts option): " + cut, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, tt.script)
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{MaxAttempts: 3})
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			assert.Len(t, s.Requests(), tt.wantAttempts)
			assert.Equal(t, tt.wantAttempts-1, res.Retries)
			assert.Equal(t, tt.wantText, res.Text, "what arrived is kept")
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
				assert.Equal(t, lm.StopEOS, res.StopReason)
				return
			}
			require.Error(t, res.Err)
			if strings.HasSuffix(tt.wantErr, " ") { // the rest names addresses
				assert.True(t, strings.HasPrefix(res.Err.Error(), where(s)+tt.wantErr), res.Err.Error())
				assert.Contains(t, res.Err.Error(), "connection reset by peer")
			} else {
				assert.Equal(t, where(s)+tt.wantErr, res.Err.Error())
			}
			assert.Equal(t, lm.StopError, res.StopReason)
			assert.Positive(t, res.Wall)
		})
	}
}

func TestDroppedConnections(t *testing.T) {
	tests := []struct {
		name         string
		script       fakeserver.Script
		wantAttempts int
		wantErr      string // after where(s), URL standing for the endpoint; "" for success
	}{
		{"closed unanswered, then answers", fakeserver.FailFirst(1, fakeserver.Reply{DropConnection: true}, nil), 2, ""},
		{"reset unanswered, then answers", fakeserver.FailFirst(2, fakeserver.Reply{Reset: true}, nil), 3, ""},
		{"always closed unanswered", fakeserver.Sequence(fakeserver.Reply{DropConnection: true}), 3,
			`gave up after 3 attempts (the api.attempts option): the server closed the connection without answering: Post "URL/chat/completions": EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, tt.script)
			m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{MaxAttempts: 3})
			res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
			assert.Len(t, s.Requests(), tt.wantAttempts)
			assert.Equal(t, tt.wantAttempts-1, res.Retries)
			if tt.wantErr == "" {
				require.NoError(t, res.Err)
				assert.Equal(t, "ok", res.Text)
				return
			}
			require.Error(t, res.Err)
			assert.Equal(t, where(s)+strings.ReplaceAll(tt.wantErr, "URL", s.URL), res.Err.Error())
		})
	}

	t.Run("refused", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close()) // nothing listens there now
		sl := &sleeper{}
		m, err := openai.New(catalog.Entry{Key: "k", Backend: openai.Name, Settings: &openai.Settings{BaseURL: "http://" + addr + "/v1", Model: "m"}},
			openai.Options{MaxAttempts: 3, Sleep: sl.sleep})
		require.NoError(t, err)
		res := generate(t, m, lm.GenerateRequest{Messages: user("q")})[0]
		assert.Equal(t, `openai model "m" at http://`+addr+`/v1: gave up after 3 attempts (the api.attempts option): Post "http://`+addr+
			`/v1/chat/completions": dial tcp `+addr+`: connect: connection refused`, res.Err.Error())
		assert.Equal(t, 2, res.Retries)
		assert.Len(t, sl.waits, 2)
	})
}

// TestKeyNeverLeaksFromFaults: servers and proxies that echo the
// Authorization header in an error body, JSON or a raw page, long enough
// that a snippet of it is cut right through the key. Neither the error nor
// the result may hold the key or a piece of it.
func TestKeyNeverLeaksFromFaults(t *testing.T) {
	const token = "tok-9876543210-zyxwvut"
	echo := func(r fakeserver.Request, pad int) string {
		return strings.Repeat(".", pad) + " you sent " + r.Header.Get("Authorization") + " with " + strings.TrimPrefix(r.Header.Get("X-Token"), "Token ")
	}
	// The key starts at byte 290 of the page, so a 300-byte cut splits it;
	// the header's variable is echoed without the rest of its value.
	const pad = 290 - len(" you sent Bearer ")
	faults := []struct {
		name  string
		reply func(r fakeserver.Request) fakeserver.Reply
	}{
		{"401 JSON", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 401, ErrorMessage: echo(r, 0)}
		}},
		{"500 JSON", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 500, ErrorMessage: echo(r, 0)}
		}},
		{"401 page", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 401, ErrorBody: echo(r, pad)}
		}},
		{"500 page", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Status: 500, ErrorBody: echo(r, pad)}
		}},
		{"stall after the echo", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: echo(r, 0), Stall: true}
		}},
		{"dropped after the echo", func(r fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: echo(r, 0), Truncate: true, DropConnection: true}
		}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel() // the stall waits out its timeout
			s := fakeserver.Start(t, f.reply)
			e := s.Entry("local", "m")
			fakeserver.Settings(e).APIKeyEnv = "LOCAL_KEY"
			fakeserver.Settings(e).Headers = map[string]string{"X-Token": "Token ${TEAM_TOKEN}"}
			sm, err := openai.Open(e, openai.Options{MaxAttempts: 2, AttemptTimeout: roomyTimeout, Sleep: (&sleeper{}).sleep,
				Getenv: env("LOCAL_KEY", testKey, "TEAM_TOKEN", token)})
			require.NoError(t, err)
			res, err := sm.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Messages: user("q")}})
			require.NoError(t, err)
			ll, err := sm.(lm.Scorer).LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a", Continuation: " b"}}, lm.ScoreOptions{})
			require.NoError(t, err)
			assert.Equal(t, "Bearer "+testKey, s.Requests()[0].Header.Get("Authorization"), "the key is sent")
			require.Error(t, res[0].Err)

			record, err := json.Marshal(res[0])
			require.NoError(t, err)
			for _, seen := range []string{res[0].Err.Error(), res[0].Text, string(record), fmt.Sprint(ll[0].Err)} {
				assert.NotContains(t, seen, testKey[:8], "not even the start of the key")
				assert.NotContains(t, seen, token[:8])
			}
			assert.Contains(t, res[0].Err.Error()+res[0].Text, "you sent Bearer [REDACTED]", "the echo is there, scrubbed")
		})
	}
}

// TestFaultsInABatch: one batch meets every fault at once; each request
// ends its own way and the others are unaffected.
func TestFaultsInABatch(t *testing.T) {
	faults := map[string]fakeserver.Reply{
		"429":     {Status: 429, RetryAfter: "0"},
		"503":     {Status: 503},
		"hang":    {Hang: true},
		"stall":   {Stall: true},
		"drop":    {DropConnection: true},
		"reset":   {Reset: true},
		"cut":     {Truncate: true, DropConnection: true},
		"garbage": {ErrorBody: "<html>oops</html>", Status: 502},
	}
	var mu sync.Mutex
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		mu.Lock()
		defer mu.Unlock()
		q := r.Messages[0].Content
		if f, ok := faults[q]; ok && r.Attempt == 0 {
			return f
		}
		return fakeserver.Reply{Text: "fine " + q}
	})
	m := openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{Concurrency: 4, MaxAttempts: 2, AttemptTimeout: roomyTimeout})
	var reqs []lm.GenerateRequest
	for _, q := range []string{"429", "503", "hang", "stall", "drop", "reset", "cut", "garbage", "plain"} {
		reqs = append(reqs, lm.GenerateRequest{Messages: user(q)})
	}
	res := generate(t, m, reqs...)
	attempts := attemptsBy(s)
	for i, r := range res {
		q := reqs[i].Messages[0].Content
		require.NoError(t, r.Err, q)
		assert.Equal(t, "fine "+q, r.Text, q)
		want := 2
		if q == "plain" {
			want = 1
		}
		assert.Equal(t, want, attempts[q], q)
		assert.Equal(t, want-1, r.Retries, q)
	}
}

// TestWrongUsage: a provider's usage object of the wrong shape costs the
// counts it garbles, never the answer, which arrived whole: counts
// written as floats or numeric strings are read; null, negative,
// fractional or non-numeric ones, and a usage that is no object, read as
// unreported (0, no cost).
func TestWrongUsage(t *testing.T) {
	tests := []struct {
		name    string
		usage   string
		in, out int
		cost    *float64
	}{
		{"integers", `{"prompt_tokens":12,"completion_tokens":5,"cost":0.25}`, 12, 5, f64(0.25)},
		{"floats", `{"prompt_tokens":12.0,"completion_tokens":5.0,"cost":0.25}`, 12, 5, f64(0.25)},
		{"strings", `{"prompt_tokens":"12","completion_tokens":"5","cost":"0.25"}`, 12, 5, f64(0.25)},
		{"nulls", `{"prompt_tokens":null,"completion_tokens":null,"cost":null}`, 0, 0, nil},
		{"negative", `{"prompt_tokens":-12,"completion_tokens":-1,"cost":-0.25}`, 0, 0, nil},
		{"fractional", `{"prompt_tokens":12.5,"completion_tokens":1e400}`, 0, 0, nil},
		{"words", `{"prompt_tokens":"many","completion_tokens":true,"cost":"free"}`, 0, 0, nil},
		{"not an object", `"n/a"`, 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Text: "Paris is the capital.", Usage: json.RawMessage(tt.usage)}))
			for _, stream := range []bool{true, false} {
				s := s
				if !stream {
					s = fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Text: "Paris is the capital.", Usage: json.RawMessage(tt.usage), NoStream: true}))
				}
				res := generate(t, openRouter(t, s, catalog.Entry{Key: "k"}, openai.Options{}), lm.GenerateRequest{Messages: user("capital of France?")})[0]
				require.NoError(t, res.Err, "stream %v", stream)
				assert.Equal(t, "Paris is the capital.", res.Text)
				assert.Equal(t, lm.StopEOS, res.StopReason)
				assert.Equal(t, tt.in, res.InputTokens, "stream %v", stream)
				assert.Equal(t, tt.out, res.OutputTokens, "stream %v", stream)
				assert.Equal(t, tt.cost, res.CostUSD, "stream %v", stream)
			}
		})
	}
}
