package feather_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

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
		{Key: "haiku", Backend: httpapi.Name, Settings: &httpapi.Settings{URL: custom.URL, RequestTemplate: json.RawMessage(`{"q": "{{prompt}}"}`), ResponsePath: "output.text"}},
	}
	for i, want := range []string{"B", "C"} {
		m, err := catalog.Open(context.Background(), entries[i])
		require.NoError(t, err)
		out, err := m.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "q"}})
		require.NoError(t, err)
		require.NoError(t, out[0].Err)
		assert.Equal(t, want, out[0].Text)
		require.NoError(t, m.Close())
	}
	m, err := catalog.Open(context.Background(), s.Entry("local", "m"))
	require.NoError(t, err)
	_, scores := m.(lm.Scorer)
	assert.True(t, scores, "openai entries score through the completions endpoint")
}

// The root test binary links in every backend a catalog may name.
func TestEveryBackendIsLinkedIn(t *testing.T) {
	assert.Equal(t, []string{"http", "llamacpp", "onnx", "openai", "openrouter"}, catalog.Names())
}
