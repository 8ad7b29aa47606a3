// Package apiopt holds what the API backends (openai, openrouter, http)
// share: the run options, which backends read when a model is opened,
// after flags are parsed, and their HTTP client.
package apiopt

import (
	"math"
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

// HTTPClient keeps every connection it opens alive for the next request
// to that host. Go's default keeps two idle per host, and a cap at
// -api.concurrency is no better: that bounds one batch, but Featherbench
// runs -fb.concurrency single requests at once against the same model,
// so at 16 trials in flight a cap of 4 closed 12 connections a round and
// opened (to a real provider, TLS-handshook) 12 new ones. No cap costs
// nothing extra: a connection only falls idle after carrying a request,
// so the idle ones never outnumber the requests that were in flight at
// once, which the callers bound; they close after IdleConnTimeout.
func HTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0 // no cap across hosts (the default's is 100)
	t.MaxIdleConnsPerHost = math.MaxInt
	return &http.Client{Transport: t}
}
