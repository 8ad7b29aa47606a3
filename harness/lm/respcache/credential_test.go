package respcache_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

// A real API backend reads its key from the environment and sends it; no
// entry file may hold it, nor a literal header value, nor the variable's
// name.
func TestNoCredentialInEntries(t *testing.T) {
	const (
		keyVar     = "RESPCACHE_TEST_API_KEY"
		key        = "sk-respcache-sentinel-7f3a9c"
		headerVar  = "RESPCACHE_TEST_ORG"
		headerVal  = "org-respcache-sentinel-51d2"
		literalVal = "lit-respcache-sentinel-88e0"
	)
	t.Setenv(keyVar, key)
	t.Setenv(headerVar, headerVal)
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		if len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "tool") {
			return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"word":"heron"}`}}, Cost: fakeserver.USD(0.002)}
		}
		return fakeserver.Reply{Text: "Paris.", Cost: fakeserver.USD(0.001)}
	})
	entry := s.Entry("fake", "test-model")
	fakeserver.Settings(entry).APIKeyEnv = keyVar
	fakeserver.Settings(entry).Headers = map[string]string{"OpenAI-Organization": "${" + headerVar + "}", "X-Literal": literalVal}
	gen, err := openai.New(entry, openai.Options{})
	require.NoError(t, err)
	c := openCache(t)
	id := entry.CacheID()

	reqs := []lm.GenerateRequest{
		userReq("capital of France?"),
		{Messages: []lm.Message{{Role: "user", Content: "use the tool"}}, Tools: []lm.Tool{{Name: "lookup"}}, Sampling: lm.Greedy()},
	}
	for _, req := range reqs {
		for trial := 1; trial <= 2; trial++ {
			res, cached, err := c.Generate(context.Background(), gen, id, trial, req)
			require.NoError(t, err)
			require.NoError(t, res.Err)
			assert.False(t, cached)
		}
	}
	got := s.Requests()
	require.Len(t, got, 4)
	assert.Equal(t, "Bearer "+key, got[0].Header.Get("Authorization"), "the key did reach the server")
	assert.Equal(t, headerVal, got[0].Header.Get("OpenAI-Organization"))

	files := 0
	require.NoError(t, filepath.WalkDir(c.Dir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, secret := range []string{key, headerVal, literalVal, keyVar} {
			assert.NotContains(t, string(data), secret, p)
		}
		return nil
	}))
	assert.Equal(t, 4, files)

	res, cached, err := c.Generate(context.Background(), gen, id, 2, reqs[1])
	require.NoError(t, err)
	assert.True(t, cached)
	require.Len(t, res.ToolCalls, 1)
	assert.Equal(t, lm.ToolCall{Name: "lookup", Args: map[string]any{"word": "heron"}, RawArgs: `{"word":"heron"}`}, res.ToolCalls[0])
	require.NotNil(t, res.CostUSD)
	assert.Equal(t, 0.002, *res.CostUSD)
	assert.Len(t, s.Requests(), 4, "the hit sent nothing")
}
