// Package openai is the backend for OpenAI-compatible servers (vLLM,
// ollama, LM Studio, llama.cpp's server…) and for OpenRouter.
//
// Requests go through github.com/sashabaranov/go-openai. What that client
// cannot express is added on the wire by a request hook (see doer):
// OpenRouter's provider pin, reasoning effort and usage accounting, top_k,
// and declared sampling values such as temperature 0, which go-openai's
// omitempty fields would silently drop. Every generation is streamed so
// time to first token and wall time are measured on the same clock; a
// server that answers with one JSON completion instead is read all the
// same, and its answer has no time to first token.
//
// Sampling: only what the request declares is sent, and max_tokens only
// when the request sets MaxNewTokens. The catalog entry's "sampling" and
// "max_tokens" reach the request before it gets here: catalog.Open wraps
// every model in them (lm.WithDefaults), the request's own fields winning.
// GenerateResult.SamplingSent records exactly what was sent (for
// OpenRouter also "reasoning": {"effort": …}; never routing).
//
// A request's ResponseFormat (a JSON Schema) goes out as response_format
// {"type": "json_schema", "json_schema": {"name", "strict": true, "schema"}}
// only when the entry declares "structured_outputs": true; otherwise the
// request is sent without it and the caller parses free text.
//
// The API key is read from its variable at each call and never appears in
// an error, a record or a log: everything that leaves the backend is
// scrubbed of it.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/redact"
)

// OpenRouter's defaults; the spec names these variables.
const (
	OpenRouterBaseURL    = "https://openrouter.ai/api/v1"
	OpenRouterBaseURLEnv = "OPENROUTER_BASE_URL"
	OpenRouterKeyEnv     = "OPENROUTER_API_KEY"
)

// Options tune requests. Zero fields take the defaults noted; the retry
// fields are package retry's Policy, shared with the http backend.
type Options struct {
	// Concurrency is how many requests of a batch are in flight at once (4).
	Concurrency int
	// MaxAttempts is how many times one request is tried (4).
	MaxAttempts int
	// AttemptTimeout bounds one attempt, streaming included (10m).
	AttemptTimeout time.Duration
	// BackoffBase and BackoffMax shape the exponential backoff between
	// retries (1s doubling up to 60s, jittered).
	BackoffBase, BackoffMax time.Duration
	// MaxRetryAfter is the longest Retry-After honoured (5m); a server that
	// asks for more gets no retry.
	MaxRetryAfter time.Duration

	// Getenv reads the key and header variables (os.Getenv).
	Getenv func(string) string
	// Sleep waits between attempts (a timer); tests record the waits.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand gives the backoff jitter in [0, 1) (math/rand).
	Rand func() float64
	// Now reads the clock for Retry-After dates (time.Now).
	Now func() time.Time
	// HTTPClient sends the requests (a fresh apiopt.HTTPClient, which
	// keeps every connection alive for the next request).
	HTTPClient *http.Client
}

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	p := o.policy().WithDefaults()
	o.MaxAttempts, o.AttemptTimeout, o.BackoffBase, o.BackoffMax, o.MaxRetryAfter = p.MaxAttempts, p.AttemptTimeout, p.BackoffBase, p.BackoffMax, p.MaxRetryAfter
	o.Sleep, o.Rand, o.Now = p.Sleep, p.Rand, p.Now
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.HTTPClient == nil {
		o.HTTPClient = apiopt.HTTPClient()
	}
	return o
}

// Model is one endpoint model: an lm.Model and lm.Generator.
type Model struct {
	entry      catalog.Entry
	opts       Options
	openRouter bool
	baseURL    string
	keyEnv     string // the variable holding the key; "" sends none
	client     *goopenai.Client
	http       *http.Client

	// The entry's settings that shape requests.
	model         string
	chatMode      string
	headers       map[string]string
	effort        string
	providerOrder []string
	structured    bool
}

// New opens an "openai" or "openrouter" catalog entry. Nothing is sent
// until the first Generate; a missing key is reported then.
func New(e catalog.Entry, opts Options) (*Model, error) {
	opts = opts.withDefaults()
	m := &Model{entry: e, opts: opts, http: opts.HTTPClient}
	switch s := e.Settings.(type) {
	case *Settings:
		m.baseURL, m.keyEnv = s.BaseURL, s.APIKeyEnv
		m.model, m.chatMode, m.headers, m.structured = s.Model, s.Chat, s.Headers, s.StructuredOutputs
	case *OpenRouterSettings:
		m.openRouter = true
		m.baseURL, m.keyEnv = openRouterBaseURL(opts.Getenv), OpenRouterKeyEnv
		m.model, m.effort, m.providerOrder, m.structured = s.Model, s.Effort, s.ProviderOrder, s.StructuredOutputs
	default:
		return nil, fmt.Errorf("the openai package serves backends %q and %q, not %q", Name, OpenRouterName, e.Backend)
	}
	if m.model == "" {
		return nil, errors.New(`"model" is missing: the name the server knows the model by`)
	}
	u, err := url.Parse(m.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		src := `"base_url"`
		if m.openRouter {
			src = OpenRouterBaseURLEnv
		}
		return nil, fmt.Errorf("%s %q is not an http(s) URL such as http://localhost:8000/v1", src, m.baseURL)
	}
	m.baseURL = strings.TrimRight(m.baseURL, "/")
	cfg := goopenai.DefaultConfig("") // the doer sets Authorization per call
	cfg.BaseURL = m.baseURL
	cfg.HTTPClient = &doer{client: opts.HTTPClient}
	m.client = goopenai.NewClientWithConfig(cfg)
	return m, nil
}

// openRouterBaseURL is OpenRouter's endpoint, or OPENROUTER_BASE_URL's.
func openRouterBaseURL(getenv func(string) string) string {
	if v := getenv(OpenRouterBaseURLEnv); v != "" {
		return v
	}
	return OpenRouterBaseURL
}

// Open is New returning the capabilities the entry has: an "openai" entry
// is also an lm.Scorer (through the completions endpoint); OpenRouter's
// providers return no prompt log-probs, so its models only generate.
func Open(e catalog.Entry, opts Options) (lm.Model, error) {
	m, err := New(e, opts)
	if err != nil {
		return nil, err
	}
	if m.openRouter {
		return m, nil
	}
	return &ScoringModel{m}, nil
}

// Info describes the model for results files.
func (m *Model) Info() lm.Info {
	return lm.Info{Key: m.entry.Key, Name: m.entry.Name, Backend: m.entry.Backend, Path: m.model, Chat: m.chat()}
}

// Close releases idle connections.
func (m *Model) Close() error {
	m.http.CloseIdleConnections()
	return nil
}

// BaseURL is the endpoint requests go to: the entry's base_url, or
// OpenRouter's (OPENROUTER_BASE_URL when set), without a trailing slash.
func (m *Model) BaseURL() string { return m.baseURL }

// chat reports whether requests go to the chat-completions endpoint.
func (m *Model) chat() bool { return m.openRouter || m.chatMode != "no" }

// where names the model in errors.
func (m *Model) where() string {
	return fmt.Sprintf("%s model %q at %s", m.entry.Backend, m.model, m.baseURL)
}

// credentials reads the key and the entry's headers at call time, and the
// secrets to keep out of everything the backend returns.
func (m *Model) credentials() (http.Header, redact.Secrets, error) {
	h := http.Header{}
	var secrets redact.Secrets
	if m.keyEnv != "" {
		key := strings.TrimSpace(m.opts.Getenv(m.keyEnv))
		if key == "" {
			if m.openRouter {
				return nil, nil, fmt.Errorf("%s is not set: export your OpenRouter key (openrouter.ai/keys) in it, or prefix the command with %s=…", OpenRouterKeyEnv, OpenRouterKeyEnv)
			}
			return nil, nil, fmt.Errorf("the key variable %s (api_key_env) is not set: export it, or remove api_key_env if the server needs no key", m.keyEnv)
		}
		h.Set("Authorization", "Bearer "+key)
		secrets = append(secrets, key)
	}
	fromEnv, err := redact.Headers(h, m.headers, m.opts.Getenv)
	if err != nil {
		return nil, nil, err
	}
	return h, append(secrets, fromEnv...), nil
}
