package feather_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// TestFBRunSurvivesFaults runs Featherbench through a server that fails
// every trial's first three attempts, each a different way: a 429, a 503,
// then a hung connection (no status line ever) or one dropped before any
// token. Every trial recovers within -api.attempts, and the records equal
// a clean server's. (Faults that outlast the retries, or cut a stream
// after tokens, are error records: harness/backends/openai/faults_test.go.)
func TestFBRunSurvivesFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out hung connections and real backoff")
	}
	fbNeedWholeRun(t, []string{"good", "shaky"}, 1)
	saved := *apiopt.Timeout
	*apiopt.Timeout = 2 * time.Second // a hung attempt gives up after this
	defer func() { *apiopt.Timeout = saved }()

	prompts := fbTaskPrompts(t)
	clean := fbFakeScript(prompts)
	hang := map[string]bool{"coding-add": true, "data-total": true, "security-injection": true, "tool-use-weather": true}
	faulty := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		switch r.Attempt {
		case 0:
			return fakeserver.Reply{Status: 429, RetryAfter: "0", ErrorMessage: "rate limited"}
		case 1:
			return fakeserver.Reply{Status: 503, RetryAfter: "0", ErrorMessage: "unavailable"}
		case 2:
			if hang[prompts[r.Messages[0].Content]] {
				return fakeserver.Reply{Hang: true}
			}
			return fakeserver.Reply{DropConnection: true}
		}
		r.Attempt = 1 // past the clean script's own first-try 429
		return clean(r)
	})
	reference := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		r.Attempt = 1
		return clean(r)
	})
	run := func(s *fakeserver.Server, name string) []string {
		dir := t.TempDir()
		records := runFeatherbench(t, nil, featherbench.Config{
			Catalog: fbTwoModels(t, s, "vendor/shaky"), TasksDir: fbTestTasks, Trials: 1, Concurrency: 8, Rubric: featherbench.RubricOptions{Off: true},
			Dir: rundir.New(filepath.Join(dir, name), time.Now()),
		}, false)
		require.Len(t, records, 16, "every trial is recorded")
		for _, r := range records {
			assert.Nil(t, r.Error, "%s/%s recovered", r.Model, r.Task)
		}
		return fbComparable(t, records)
	}
	got := run(faulty, "faulty")
	assert.Equal(t, run(reference, "reference"), got, "the records equal a clean server's")
	assert.Len(t, faulty.Requests(), 4*16, "four attempts per trial, the last one answered")
}
