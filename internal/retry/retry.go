// Package retry is the API backends' policy for failed requests: which
// failures are worth another attempt, how long to wait before it, and how
// long one attempt may take. The openai and http backends share it, so a
// catalog's endpoints all behave alike under the api.attempts and
// api.timeout options.
//
// Retried: 429 and 5xx answers, and failures before any output arrived (no
// answer within the attempt's time limit, a refused, reset or dropped
// connection, a body cut short). Not retried: other 4xx answers (the
// request or the key is wrong and stays wrong), a cancelled context, and
// any failure after output began arriving, since that output may already
// be billed. A Retry-After the server sends replaces the backoff; one
// longer than Policy.MaxRetryAfter ends the request at once instead of
// blocking it.
package retry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Policy says how often and how long a request is tried. Zero fields take
// the defaults noted.
type Policy struct {
	// MaxAttempts is how many times one request is tried (4).
	MaxAttempts int
	// AttemptTimeout bounds one attempt, reading the answer included (10m).
	AttemptTimeout time.Duration
	// BackoffBase and BackoffMax shape the exponential backoff between
	// attempts (1s doubling up to 60s, jittered).
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After honoured (5m); a server that
	// asks for more gets no retry.
	MaxRetryAfter time.Duration

	// Sleep waits between attempts (a timer that ctx cancels); tests
	// record the waits instead.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand gives the backoff jitter in [0, 1) (math/rand).
	Rand func() float64
	// Now reads the clock for Retry-After dates (time.Now).
	Now func() time.Time
}

// WithDefaults fills the zero fields.
func (p Policy) WithDefaults() Policy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 4
	}
	if p.AttemptTimeout <= 0 {
		p.AttemptTimeout = 10 * time.Minute
	}
	if p.BackoffBase <= 0 {
		p.BackoffBase = time.Second
	}
	if p.BackoffMax <= 0 {
		p.BackoffMax = time.Minute
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 5 * time.Minute
	}
	if p.Sleep == nil {
		p.Sleep = Sleep
	}
	if p.Rand == nil {
		p.Rand = rand.Float64
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

// Attempt is what one try reports besides its error.
type Attempt struct {
	// N is the attempt's number, from 1.
	N int
	// Status is the HTTP status answered; 0 when no answer arrived.
	Status int
	// RetryAfter is the answer's Retry-After header.
	RetryAfter string
	// Output is set once the answer's output began arriving (a streamed
	// token, a successful non-streamed body): a failure after it is final.
	Output bool
}

// Do runs try until it succeeds, fails for good or runs out of attempts,
// and returns how many retries it made and the last error, which says why
// the retrying stopped. Each try runs under its own AttemptTimeout.
func Do(ctx context.Context, p Policy, try func(ctx context.Context, a *Attempt) error) (retries int, err error) {
	p = p.WithDefaults()
	for n := 1; ; n++ {
		a := &Attempt{N: n}
		actx, cancel := context.WithTimeout(ctx, p.AttemptTimeout)
		err := try(actx, a)
		cancel()
		if err == nil {
			return n - 1, nil
		}
		if ctx.Err() != nil {
			// The caller gave up: say so, whatever the try saw.
			if !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w (%v)", ctx.Err(), err)
			}
			return n - 1, err
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("no complete answer within %v (the api.timeout option): %w", p.AttemptTimeout, err)
		case a.Status == 0 && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)):
			// Go reports this as a bare "EOF".
			err = fmt.Errorf("the server closed the connection without answering: %w", err)
		}
		if !Retryable(a, err) {
			return n - 1, err
		}
		if n >= p.MaxAttempts {
			return n - 1, fmt.Errorf("gave up after %d attempts (the api.attempts option): %w", n, err)
		}
		wait := Backoff(n, p.BackoffBase, p.BackoffMax, p.Rand)
		if after, ok := ParseRetryAfter(a.RetryAfter, p.Now()); ok && (a.Status == http.StatusTooManyRequests || a.Status >= 500) {
			if after > p.MaxRetryAfter {
				return n - 1, fmt.Errorf("the server asked to retry after %v, longer than the %v this backend waits: %w", after, p.MaxRetryAfter, err)
			}
			wait = after
		}
		if serr := p.Sleep(ctx, wait); serr != nil {
			return n - 1, fmt.Errorf("%w while waiting to retry after attempt %d: %v", serr, n, err)
		}
	}
}

// Retryable reports whether a failed attempt is worth repeating: a 429 or
// 5xx answer, or a transient failure (timeout, dropped connection) before
// any output arrived.
func Retryable(a *Attempt, err error) bool {
	switch {
	case a.Status == http.StatusTooManyRequests || a.Status >= 500:
		return true
	case a.Status != 0 && a.Status/100 != 2:
		return false
	case a.Output:
		return false
	}
	return Transient(err)
}

// Transient reports whether err is a failure to get an answer that may
// not recur: an attempt timeout, a refused or reset connection, or one
// closed early. A host name that does not resolve is not.
func Transient(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	var op *net.OpError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &op) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// ParseRetryAfter reads a Retry-After value: delay seconds or an HTTP date.
// A delay too long to represent comes back as the longest duration, so it
// is refused rather than wrapped around to a negative wait.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		switch {
		case math.IsNaN(s) || s < 0:
			return 0, false
		case s*float64(time.Second) >= math.MaxInt64:
			return time.Duration(math.MaxInt64), true
		}
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// Backoff is the wait before retry n (1-based): exponential from base,
// capped at max, with "equal jitter" (half fixed, half random) so
// concurrent requests that failed together do not retry together.
func Backoff(n int, base, max time.Duration, rnd func() float64) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d/2 + time.Duration(rnd()*float64(d/2))
}

// Sleep waits d or until ctx ends, whichever is first.
func Sleep(ctx context.Context, d time.Duration) error {
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
