package feather_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// TestFBResponseCache: with -fb.cache, a second run of the same trials asks
// no model and its records say so; editing a checker rescores the cached
// answers for free; another model never gets the first one's answers.
func TestFBResponseCache(t *testing.T) {
	fbNeedWholeRun(t, []string{"good", "shaky"}, 2)
	s := fakeserver.Start(t, fbFakeScript(fbTaskPrompts(t)))
	dir := t.TempDir()
	cat := fbTwoModels(t, s, "vendor/shaky")
	cache := filepath.Join(dir, "cache")
	runOnce := func(name, tasks string) []featherbench.Record {
		return runFeatherbench(t, nil, featherbench.Config{
			Catalog: cat, TasksDir: tasks, Trials: 2, Concurrency: 4, Rubric: featherbench.RubricOptions{Off: true}, CacheDir: cache,
			Dir: rundir.New(filepath.Join(dir, name), time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)),
		}, false)
	}
	first := runOnce("first", fbTestTasks)
	require.Len(t, first, 32)
	asked := len(s.Requests())
	assert.Equal(t, 33, asked, "32 trials and one retry")
	for _, r := range first {
		assert.False(t, r.Cached, "%s/%s/%d was asked", r.Model, r.Task, r.Trial)
	}

	second := runOnce("second", fbTestTasks)
	require.Len(t, second, 32)
	assert.Equal(t, asked, len(s.Requests()), "the second run asks nothing")
	assert.Equal(t, fbComparable(t, cachedOff(first)), fbComparable(t, cachedOff(second)), "and records the same answers")
	for _, r := range second {
		assert.True(t, r.Cached, "%s/%s/%d is flagged cached", r.Model, r.Task, r.Trial)
	}
	data, err := os.ReadFile(filepath.Join(dir, "second", "20260704T101530Z", "featherbench", "results-20260704T101530Z.jsonl"))
	require.NoError(t, err)
	assert.Equal(t, 32, strings.Count(string(data), `,"cached":true}`), "the flag is in the file")
	summary, err := os.ReadFile(filepath.Join(dir, "second", "20260704T101530Z", "featherbench", "summary-20260704T101530Z.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "> **Warning:** 32 of 32 trials were answered from the response cache (-fb.cache), not asked in this run")

	// An edited checker rescores the cached answers without a call.
	edited := t.TempDir()
	entries, err := os.ReadDir(fbTestTasks)
	require.NoError(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(fbTestTasks, e.Name()))
		require.NoError(t, err)
		if e.Name() == "data-total.json" {
			b = []byte(`{"category": "data", "prompt": ` + fbPromptJSON(t, "data-total") + `, "checker": {"type": "contains", "value": "1250.5"}}`)
		}
		require.NoError(t, os.WriteFile(filepath.Join(edited, e.Name()), b, 0o644))
	}
	rescored := runOnce("rescored", edited)
	require.Len(t, rescored, 32)
	assert.Equal(t, asked, len(s.Requests()), "rescoring asks nothing")
	for _, r := range rescored {
		if r.Task == "data-total" {
			assert.Equal(t, r.Model == "shaky", *r.Passed, "%s: the new checker decides", r.Model)
		}
	}

	// Another model with the same catalog key but another slug is asked.
	cat = fbTwoModels(t, s, "vendor/shaky-v2")
	runOnce("other", fbTestTasks)
	assert.Equal(t, asked+16, len(s.Requests()), "only the changed model is asked, every trial")
}

func cachedOff(recs []featherbench.Record) []featherbench.Record {
	out := make([]featherbench.Record, len(recs))
	for i, r := range recs {
		r.Cached = false
		out[i] = r
	}
	return out
}

// fbPromptJSON is a test task's prompt as a JSON string.
func fbPromptJSON(t *testing.T, id string) string {
	for prompt, task := range fbTaskPrompts(t) {
		if task == id {
			b, err := json.Marshal(prompt)
			require.NoError(t, err)
			return string(b)
		}
	}
	t.Fatalf("no test task %s", id)
	return ""
}
