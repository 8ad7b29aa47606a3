// Package apiopt holds what the API backends (openai, openrouter, http)
// share: the run options, which backends read when a model is opened,
// after flags are parsed, and their HTTP client.
package apiopt

import (
	"net/http"
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

// HTTPClient keeps a connection alive for each request in flight: Go's
// default keeps two per host, so at a higher concurrency most requests
// would open (and, to a real provider, TLS-handshake) a new connection.
func HTTPClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = max(concurrency, http.DefaultMaxIdleConnsPerHost)
	return &http.Client{Transport: t}
}
