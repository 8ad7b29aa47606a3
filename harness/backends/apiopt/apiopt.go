// Package apiopt holds the run options the API backends (openai,
// openrouter, http) share. Backends read them when a model is opened,
// after flags are parsed.
package apiopt

import (
	"time"

	"github.com/feather-eval/feather/harness/run/options"
)

var (
	// Concurrency is how many requests of a batch are in flight at once.
	Concurrency = options.Int("api.concurrency", 4, "requests in flight at once per API model")
	// Attempts is how many times one request is tried.
	Attempts = options.Int("api.attempts", 4, "tries per API request; 429, 5xx and dropped connections are retried with backoff, honouring Retry-After")
	// Timeout bounds one attempt.
	Timeout = options.Duration("api.timeout", 10*time.Minute, "time limit for one API request attempt, streaming included")
)
