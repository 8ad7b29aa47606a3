package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/retry"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 1.5 ", 1500 * time.Millisecond, true},
		{"3600", time.Hour, true},
		{"Sat, 04 Jul 2026 10:00:30 GMT", 30 * time.Second, true},
		{"Sat, 04 Jul 2026 09:59:00 GMT", 0, true}, // in the past: retry now
		// Too long to represent: the longest wait, refused by MaxRetryAfter,
		// never wrapped around to a negative one.
		{"99999999999", time.Duration(math.MaxInt64), true},
		{"1e300", time.Duration(math.MaxInt64), true},
		{"+Inf", time.Duration(math.MaxInt64), true},
		{"NaN", 0, false},
		{"soon", 0, false},
		{"-3", 0, false},
	}
	for _, tt := range tests {
		got, ok := retry.ParseRetryAfter(tt.in, now)
		assert.Equal(t, tt.wantOK, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestBackoff(t *testing.T) {
	one := func() float64 { return 1 }
	zero := func() float64 { return 0 }
	base, max := time.Second, 10*time.Second
	assert.Equal(t, time.Second, retry.Backoff(1, base, max, one))
	assert.Equal(t, 500*time.Millisecond, retry.Backoff(1, base, max, zero))
	assert.Equal(t, 4*time.Second, retry.Backoff(3, base, max, one))
	assert.Equal(t, 10*time.Second, retry.Backoff(5, base, max, one), "capped")
	assert.Equal(t, 5*time.Second, retry.Backoff(50, base, max, zero), "capped, no overflow")
}

func TestRetryable(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	noHost := &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}
	tests := []struct {
		name string
		a    retry.Attempt
		err  error
		want bool
	}{
		{"429", retry.Attempt{Status: 429}, errors.New("HTTP 429"), true},
		{"500", retry.Attempt{Status: 500}, errors.New("HTTP 500"), true},
		{"503 after output", retry.Attempt{Status: 503, Output: true}, errors.New("HTTP 503"), true},
		{"400", retry.Attempt{Status: 400}, errors.New("HTTP 400"), false},
		{"401", retry.Attempt{Status: 401}, errors.New("HTTP 401"), false},
		{"404", retry.Attempt{Status: 404}, errors.New("HTTP 404"), false},
		{"no answer in time", retry.Attempt{}, fmt.Errorf("post: %w", context.DeadlineExceeded), true},
		{"refused", retry.Attempt{}, refused, true},
		{"reset", retry.Attempt{}, fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"closed before answering", retry.Attempt{}, fmt.Errorf("post: %w", io.EOF), true},
		{"host not found", retry.Attempt{}, noHost, false},
		{"bad URL", retry.Attempt{}, errors.New(`unsupported protocol scheme "ftp"`), false},
		{"200 cut before output", retry.Attempt{Status: 200}, fmt.Errorf("stream: %w", io.ErrUnexpectedEOF), true},
		{"200 cut after output", retry.Attempt{Status: 200, Output: true}, fmt.Errorf("stream: %w", io.ErrUnexpectedEOF), false},
		{"200 timed out after output", retry.Attempt{Status: 200, Output: true}, context.DeadlineExceeded, false},
		{"200 with an unreadable body", retry.Attempt{Status: 200}, errors.New("unreadable chunk"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, retry.Retryable(&tt.a, tt.err))
		})
	}
}

// recorder is a Sleep that records the waits instead of sleeping.
type recorder struct{ waits []time.Duration }

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func TestDo(t *testing.T) {
	half := func() float64 { return 0.5 }
	type answer struct {
		status     int
		retryAfter string
		output     bool
		err        error // nil: success
	}
	fail := func(status int, retryAfter string) answer {
		return answer{status: status, retryAfter: retryAfter, err: fmt.Errorf("HTTP %d", status)}
	}
	tests := []struct {
		name        string
		answers     []answer // the last repeats
		wantTries   int
		wantRetries int
		wantErr     string
		wantWaits   []time.Duration
	}{
		{"first try", []answer{{status: 200}}, 1, 0, "", nil},
		{"429 then success, Retry-After replaces backoff", []answer{fail(429, "0"), fail(429, "2"), {status: 200}}, 3, 2, "",
			[]time.Duration{0, 2 * time.Second}},
		{"5xx backoff doubles with jitter", []answer{fail(500, ""), fail(502, ""), fail(503, ""), {status: 200}}, 4, 3, "",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
		{"exhausted", []answer{fail(503, "")}, 4, 3, "gave up after 4 attempts (the api.attempts option): HTTP 503",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
		{"Retry-After longer than the cap fails at once", []answer{fail(429, "3600")}, 1, 0,
			"the server asked to retry after 1h0m0s, longer than the 5m0s this backend waits: HTTP 429", nil},
		{"Retry-After too long to represent fails at once", []answer{fail(429, "99999999999")}, 1, 0,
			"the server asked to retry after 2562047h47m16.854775807s, longer than the 5m0s this backend waits: HTTP 429", nil},
		{"Retry-After on a 400 is ignored", []answer{fail(400, "0")}, 1, 0, "HTTP 400", nil},
		{"network failure then success", []answer{{err: fmt.Errorf("post: %w", io.EOF)}, {status: 200}}, 2, 1, "",
			[]time.Duration{750 * time.Millisecond}},
		{"connection closed unanswered", []answer{{err: fmt.Errorf("post: %w", io.EOF)}}, 4, 3,
			"gave up after 4 attempts (the api.attempts option): the server closed the connection without answering: post: EOF",
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
		{"failure after output is final", []answer{{status: 200, output: true, err: fmt.Errorf("cut: %w", io.ErrUnexpectedEOF)}}, 1, 0, "cut: unexpected EOF", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tries := 0
			retries, err := retry.Do(context.Background(), retry.Policy{Sleep: rec.sleep, Rand: half}, func(_ context.Context, a *retry.Attempt) error {
				ans := tt.answers[min(tries, len(tt.answers)-1)]
				tries++
				assert.Equal(t, tries, a.N)
				a.Status, a.RetryAfter, a.Output = ans.status, ans.retryAfter, ans.output
				return ans.err
			})
			assert.Equal(t, tt.wantTries, tries)
			assert.Equal(t, tt.wantRetries, retries)
			assert.Equal(t, tt.wantWaits, rec.waits)
			if tt.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.wantErr)
			}
		})
	}
}

func TestDoAttemptTimeout(t *testing.T) {
	tries := 0
	retries, err := retry.Do(context.Background(), retry.Policy{MaxAttempts: 2, AttemptTimeout: 20 * time.Millisecond, Sleep: (&recorder{}).sleep},
		func(ctx context.Context, _ *retry.Attempt) error {
			tries++
			<-ctx.Done() // a server that never answers
			return ctx.Err()
		})
	assert.Equal(t, 2, tries)
	assert.Equal(t, 1, retries)
	assert.EqualError(t, err, "gave up after 2 attempts (the api.attempts option): no complete answer within 20ms (the api.timeout option): context deadline exceeded")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestDoStopsWhenTheCallerCancels(t *testing.T) {
	t.Run("during an attempt", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tries := 0
		_, err := retry.Do(ctx, retry.Policy{}, func(actx context.Context, a *retry.Attempt) error {
			tries++
			cancel()
			<-actx.Done()
			return fmt.Errorf("post: %w", actx.Err())
		})
		assert.Equal(t, 1, tries)
		assert.ErrorIs(t, err, context.Canceled)
		assert.EqualError(t, err, "post: context canceled")
	})
	t.Run("while waiting to retry", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		tries := 0
		_, err := retry.Do(ctx, retry.Policy{BackoffBase: time.Hour}, func(_ context.Context, a *retry.Attempt) error {
			tries++
			a.Status = 503
			time.AfterFunc(10*time.Millisecond, cancel)
			return errors.New("HTTP 503")
		})
		assert.Equal(t, 1, tries)
		require.ErrorIs(t, err, context.Canceled)
		assert.EqualError(t, err, "context canceled while waiting to retry after attempt 1: HTTP 503")
	})
}
