package feather_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/options"
)

// Options shared by the API backends (openai, openrouter, http).
var (
	optAPIConcurrency = options.Int("api.concurrency", 4, "requests in flight at once per API model")
	optAPIAttempts    = options.Int("api.attempts", 4, "tries per API request; 429, 5xx and dropped connections are retried with backoff, honouring Retry-After")
	optAPITimeout     = options.Duration("api.timeout", 10*time.Minute, "time limit for one API request attempt, streaming included")
)

// apiOptions reads the options when a model is opened, after flags are parsed.
func apiOptions() openai.Options {
	return openai.Options{Concurrency: *optAPIConcurrency, MaxAttempts: *optAPIAttempts, AttemptTimeout: *optAPITimeout}
}

func init() {
	backends.Register(catalog.OpenAI, func(_ context.Context, e catalog.Entry) (lm.Model, error) {
		return openai.Open(e, apiOptions())
	})
	backends.Register(catalog.HTTP, func(_ context.Context, e catalog.Entry) (lm.Model, error) {
		m, err := httpapi.New(e)
		if err != nil {
			return nil, err
		}
		m.Concurrency, m.Timeout, m.MaxAttempts = *optAPIConcurrency, *optAPITimeout, *optAPIAttempts
		return m, nil
	})
}

// TestAPIBackendsAreRegistered opens each API backend through the registry
// against in-process servers, as the suites do.
func TestAPIBackendsAreRegistered(t *testing.T) {
	s := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{Text: "B"} })
	custom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"output": {"text": "C"}}`)
	}))
	t.Cleanup(custom.Close)
	entries := []catalog.Entry{
		s.Entry("local", "m"),
		{Key: "haiku", Backend: catalog.HTTP, URL: custom.URL, RequestTemplate: json.RawMessage(`{"q": "{{prompt}}"}`), ResponsePath: "output.text"},
	}
	for i, want := range []string{"B", "C"} {
		m, err := backends.Open(context.Background(), entries[i])
		require.NoError(t, err)
		out, err := m.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
		require.NoError(t, err)
		require.NoError(t, out[0].Err)
		assert.Equal(t, want, out[0].Text)
		require.NoError(t, m.Close())
	}
	m, err := backends.Open(context.Background(), s.Entry("local", "m"))
	require.NoError(t, err)
	_, scores := m.(lm.Scorer)
	assert.True(t, scores, "openai entries score through the completions endpoint")
}
