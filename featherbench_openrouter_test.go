//go:build openrouter

package feather_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// TestFBOpenRouterCatalogThroughFakeServer runs two models of the shipped
// catalog through the live openrouter backend, pointed at the in-process
// server with OPENROUTER_BASE_URL, so the routing pin, reasoning effort
// and usage accounting are checked on the wire without the network.
func TestFBOpenRouterCatalogThroughFakeServer(t *testing.T) {
	fbNeedWholeRun(t, []string{"fable-5", "glm-5.3"}, 1)
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{Text: "Three hearts.", PromptTokens: 10, CompletionTokens: 5, Cost: fakeserver.USD(0.0001)}
	})
	t.Setenv("OPENROUTER_BASE_URL", s.URL)
	t.Setenv("OPENROUTER_API_KEY", "sk-or-v1-fake-key-for-tests")
	// A copy of the catalog, so these entries are not the ones a live run
	// in the same process opened against the real endpoint.
	data, err := os.ReadFile("models/models.json")
	require.NoError(t, err)
	cat := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(cat, data, 0o644))

	records := runFeatherbench(t, nil, featherbench.Config{
		Catalog: cat, TasksDir: fbTestTasks, Models: []string{"fable-5", "glm-5.3"}, TaskIDs: []string{"realworld-benign"},
		Trials: 1, Concurrency: 2, Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
	}, false)
	require.Len(t, records, 2)
	for _, r := range records {
		assert.True(t, *r.Passed, r.Model)
		assert.InDelta(t, 0.0001, *r.CostUSD, 1e-12)
	}
	byModel := map[string]map[string]any{}
	for _, r := range s.Requests() {
		byModel[r.Model] = r.JSON
		assert.Equal(t, "Bearer sk-or-v1-fake-key-for-tests", r.Header.Get("Authorization"))
	}
	fable := byModel["anthropic/claude-fable-5"]
	require.NotNil(t, fable)
	assert.Equal(t, map[string]any{"order": []any{"anthropic"}, "allow_fallbacks": false, "require_parameters": true}, fable["provider"])
	assert.Equal(t, map[string]any{"effort": "high"}, fable["reasoning"])
	assert.Equal(t, 64000.0, fable["max_tokens"])
	assert.Equal(t, map[string]any{"include": true}, fable["usage"])
	glm := byModel["z-ai/glm-5.3"]
	require.NotNil(t, glm)
	assert.Equal(t, []any{"z-ai/fp8"}, glm["provider"].(map[string]any)["order"])
	assert.Equal(t, 0.6, glm["temperature"])
	assert.Equal(t, 0.95, glm["top_p"])
}
