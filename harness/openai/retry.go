package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// failure is one failed attempt, classified.
type failure struct {
	err       error
	retryable bool
	// after is the server's Retry-After, when it sent one.
	after    time.Duration
	hasAfter bool
}

// classify decides whether a failed attempt is worth repeating: 429, 5xx,
// network errors and attempt timeouts are; anything else (a bad request,
// a rejected key, an error or cut-off inside a 200 stream, after which the
// output may already be billed) is not.
func classify(parent context.Context, a *attempt, err error, now time.Time) failure {
	f := failure{err: err}
	if parent.Err() != nil {
		return f
	}
	switch {
	case a.status == http.StatusTooManyRequests || a.status >= 500:
		f.retryable = true
		f.after, f.hasAfter = parseRetryAfter(a.retryAfter, now)
	case a.status == 0:
		// No answer: a timeout, a refused or reset connection, or one closed
		// early. Bad URLs and DNS failures are not worth repeating.
		var op *net.OpError
		f.retryable = errors.Is(err, context.DeadlineExceeded) || errors.As(err, &op) ||
			errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	return f
}

// parseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// backoff is the wait before retry n (1-based): exponential from base,
// capped, with "equal jitter" (half fixed, half random) so concurrent
// requests that failed together do not retry together.
func backoff(n int, base, max time.Duration, rnd func() float64) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d/2 + time.Duration(rnd()*float64(d/2))
}

// retry runs try until it succeeds, fails for good or runs out of attempts;
// it returns how many retries it made and the last error. Each try gets its
// own timeout and a fresh attempt carrying tmpl's body fields and headers;
// waits honour Retry-After.
func (m *Model) retry(ctx context.Context, tmpl attempt, try func(ctx context.Context, a *attempt) error) (int, error) {
	o := m.opts
	for n := 1; ; n++ {
		a := &attempt{extra: tmpl.extra, header: tmpl.header}
		actx, cancel := context.WithTimeout(ctx, o.AttemptTimeout)
		err := try(withAttempt(actx, a), a)
		cancel()
		if err == nil {
			return n - 1, nil
		}
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("no complete answer within %v (the api.timeout option): %w", o.AttemptTimeout, err)
		}
		f := classify(ctx, a, err, o.Now())
		if !f.retryable {
			return n - 1, err
		}
		if n >= o.MaxAttempts {
			return n - 1, fmt.Errorf("gave up after %d attempts (the api.attempts option): %w", n, err)
		}
		wait := backoff(n, o.BackoffBase, o.BackoffMax, o.Rand)
		if f.hasAfter {
			if f.after > o.MaxRetryAfter {
				return n - 1, fmt.Errorf("the server asked to retry after %v, longer than the %v this backend waits: %w", f.after, o.MaxRetryAfter, err)
			}
			wait = f.after
		}
		if err := o.Sleep(ctx, wait); err != nil {
			return n - 1, err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// parallel runs f(0..n-1) with at most limit in flight.
func parallel(n, limit int, f func(i int)) {
	if limit < 1 {
		limit = 1
	}
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}(i)
	}
	wg.Wait()
}
