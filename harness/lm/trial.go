package lm

import "context"

type trialKey struct{}

// WithTrial marks the requests made under ctx as trial n (1-based) of the
// same question. A model never sees it; a response cache keys on it, so
// repeated trials of one prompt stay independent answers.
func WithTrial(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, trialKey{}, n)
}

// Trial is the trial number WithTrial set on ctx, or 1.
func Trial(ctx context.Context) int {
	if n, ok := ctx.Value(trialKey{}).(int); ok {
		return n
	}
	return 1
}
