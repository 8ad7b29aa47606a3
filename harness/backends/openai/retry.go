package openai

import (
	"context"

	"github.com/feather-eval/feather/internal/retry"
)

// policy is the retry policy the options describe.
func (o Options) policy() retry.Policy {
	return retry.Policy{
		MaxAttempts: o.MaxAttempts, AttemptTimeout: o.AttemptTimeout,
		BackoffBase: o.BackoffBase, BackoffMax: o.BackoffMax, MaxRetryAfter: o.MaxRetryAfter,
		Sleep: o.Sleep, Rand: o.Rand, Now: o.Now,
	}
}

// retry runs try under the retry policy (see package retry) and returns
// how many retries it made and the last error. Each try gets a fresh
// attempt carrying tmpl's body fields, headers and secrets; the doer fills
// in the status and Retry-After, and try sets output once a token arrived,
// after which a failure is not retried.
func (m *Model) retry(ctx context.Context, tmpl attempt, try func(ctx context.Context, a *attempt) error) (int, error) {
	return retry.Do(ctx, m.opts.policy(), func(actx context.Context, ra *retry.Attempt) error {
		a := &attempt{extra: tmpl.extra, header: tmpl.header, secrets: tmpl.secrets}
		err := try(withAttempt(actx, a), a)
		ra.Status, ra.RetryAfter, ra.Output = a.status, a.retryAfter, a.output
		return err
	})
}
