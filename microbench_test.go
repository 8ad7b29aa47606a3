package feather_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/progress"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

var (
	optMBCatalog    = options.String("mb.catalog", "models/microbench.example.json", "μBench's model catalog")
	optMBModels     = options.String("mb.models", "", "comma-separated catalog keys for μBench (default: -models)")
	optMBShowLevels = options.Bool("mb.show-levels", false, "print μBench accuracy per task and difficulty level for each model")
	optMBMaxLength  = options.Int("mb.max-length", microbench.MaxLength, "μBench context in tokens: every sequence is left-truncated to it")
)

// mbData holds the hand-written items and bits-per-byte documents.
const mbData = "testdata/microbench"

// mbResults keeps this run's μBench result files and leaderboard.
var mbResults = &microbench.Collector{
	Dir:   func() (string, error) { return run.Sub("microbench") },
	Stamp: func() string { return run.Stamp() },
}

var mbTasks = sync.OnceValues(func() ([]*microbench.Task, error) {
	return microbench.Load(os.DirFS(mbData))
})

// TestMicrobench runs Supra-μBench: TestMicrobench/<model>/<task>/<item-id>.
// Only the items -run selects are scored, in one log-likelihood batch and
// one rolling batch per model.
func TestMicrobench(t *testing.T) {
	tasks, err := mbTasks()
	if err != nil {
		t.Fatalf("%s: %v", mbData, err)
	}
	if *optMBMaxLength < 2 {
		t.Fatalf("-mb.max-length=%d: a sequence needs room for the prefix token and one more; the spec uses %d", *optMBMaxLength, microbench.MaxLength)
	}
	models := selectModels(t, *optMBCatalog, suiteModels(*optMBModels))
	requireRunSelects(t, runSelection{flag: "-mb.models", catalog: *optMBCatalog, layout: "<model>/<task>/<item-id>", selected: entryKeys(models),
		selects: func(_ string, sel func(...string) bool) bool { return mbRun(tasks, sel).AnySelected() }})
	for _, e := range models {
		t.Run(e.Key, func(t *testing.T) {
			skipIfStopped(t)
			r := mbRun(tasks, shard.And(runfilter.FromFlags().Under("TestMicrobench", e.Key), microbench.InShard(runShard, tasks)))
			if !r.AnySelected() {
				return // -run names other items: load nothing
			}
			r.Save = func(res *microbench.Result) error { return mbSave(t, res) }
			r.ShowLevels, r.Log = *optMBShowLevels, func(s string) { fmt.Print(s) }
			info, scorer := openAs[lm.Scorer](t, e, "score log-likelihoods, which μBench needs; use a local ONNX model or an OpenAI-compatible completions server that returns prompt log-probs")
			res, err := mbTracked(workContext(t), tracker, r, info, scorer)
			switch {
			case microbench.Partial(err):
				t.Error(err) // the failed items fail below; the rest stand
			case err != nil:
				t.Fatal(err)
			}
			unit.Subtests(t, unitOptions("microbench", e.Key), r.Units(res), microbench.Scores(res))
		})
	}
	requireAModel(t, "-mb.models")
}

// mbRun is a model's run of tasks with this invocation's options.
func mbRun(tasks []*microbench.Task, selected func(path ...string) bool) *microbench.Run {
	return &microbench.Run{Tasks: tasks, MaxLength: *optMBMaxLength, Selected: selected}
}

// mbTracked scores one model with its progress on tr: the units arrive
// together once the batches are back, so until then it shows the
// scorer's requests.
func mbTracked(ctx context.Context, tr *progress.Tracker, r *microbench.Run, info lm.Info, s lm.Scorer) (*microbench.Result, error) {
	task := tr.Start("microbench", info.Key, r.Planned(), 0)
	defer task.End()
	r.OnUnit = task.Unit
	r.OnScoring = task.Part
	return r.Evaluate(ctx, info, s)
}

// mbSave writes the model's result file and rewrites the run's leaderboard.
func mbSave(t *testing.T, res *microbench.Result) error {
	t.Helper()
	p, err := mbResults.Save(res)
	if p != "" {
		t.Logf("results in %s", p)
	}
	return err
}

// TestMBRunFilterCutsWork: only the items a -run/-skip pattern selects
// reach the model, in one batch per kind.
func TestMBRunFilterCutsWork(t *testing.T) {
	tasks, err := mbTasks()
	require.NoError(t, err)
	tests := []struct {
		name, run, skip string
		items, docs     int
	}{
		{"one task", "TestMicrobench/m/capitals", "", 64, 0},
		{"two items", "TestMicrobench/m/agreement/agreement-00[12]$", "", 2, 0},
		{"documents only", "TestMicrobench/m/bpb", "", 0, 6},
		{"everything but bits per byte", "TestMicrobench/m", "TestMicrobench/m/bpb", 1054, 0},
		{"another model", "TestMicrobench/other", "", 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := runfilter.New(tc.run, tc.skip)
			require.NoError(t, err)
			r := mbRun(tasks, f.Under("TestMicrobench", "m"))
			assert.Equal(t, tc.items+tc.docs > 0, r.AnySelected())
			if tc.items+tc.docs == 0 {
				return
			}
			m := &fake.Model{
				LogProb: func(lm.LLRequest) lm.LLResult { return lm.LLResult{LogProb: -1} },
				Rolling: func(s string) lm.RollingResult { return lm.RollingResult{LogProb: -float64(len(s))} },
			}
			res, err := r.Evaluate(t.Context(), lm.Info{Key: "m"}, m)
			require.NoError(t, err)
			assert.Len(t, res.Items, tc.items)
			assert.Len(t, res.Documents, tc.docs)
			calls := m.Calls()
			assert.Len(t, calls.Rolling, tc.docs)
			assert.Equal(t, min(tc.items, 1)+min(tc.docs, 1), calls.Batches, "one batch per kind of request")
			for _, r := range res.Items {
				assert.True(t, f.Selected("TestMicrobench", "m", r.Task, r.ID), "%s/%s was scored but not selected", r.Task, r.ID)
			}
		})
	}
}

// TestMBOverCompletionsServer runs μBench items through the openai backend
// against an in-process completions server: with prompt log-probs they are
// scored from the server's numbers; without them the run fails with a
// message that names the problem and the fix.
func TestMBOverCompletionsServer(t *testing.T) {
	tasks, err := mbTasks()
	require.NoError(t, err)
	var france string
	for _, tk := range tasks {
		for _, it := range tk.Items {
			if it.Context == "The capital of France is" {
				france = it.ID
			}
		}
	}
	require.NotEmpty(t, france, "the capitals task asks for France's capital")
	f, err := runfilter.New("TestMicrobench/api/capitals/"+france+"$", "")
	require.NoError(t, err)

	t.Run("prompt log-probs", func(t *testing.T) {
		srv := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: ".", LogProb: func(_ []string, tok string) float64 {
				if tok == " Paris" {
					return -0.5
				}
				return -3
			}}
		})
		e := srv.Entry("api", "base-model")
		fakeserver.Settings(e).Chat = "no"
		m, err := catalog.Open(t.Context(), e)
		require.NoError(t, err)
		res, err := mbRun(tasks, f.Under("TestMicrobench", "api")).Evaluate(t.Context(), e.Info(m), m.(lm.Scorer))
		require.NoError(t, err)
		require.Len(t, res.Items, 1)
		rec := res.Items[0]
		assert.True(t, rec.Correct)
		assert.Equal(t, "Paris", rec.Choices[rec.Prediction].Text)
		assert.Equal(t, -0.5, rec.Choices[rec.Gold].LogProb)
		assert.InDelta(t, -0.5/6, rec.Choices[rec.Gold].Value, 1e-12, "mean_byte over \" Paris\"")
	})

	t.Run("dropped prompt log-probs", func(t *testing.T) {
		srv := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
			return fakeserver.Reply{Text: ".", DropPromptLogprobs: true}
		})
		e := srv.Entry("api", "base-model")
		fakeserver.Settings(e).Chat = "no"
		m, err := catalog.Open(t.Context(), e)
		require.NoError(t, err)
		_, err = mbRun(tasks, f.Under("TestMicrobench", "api")).Evaluate(t.Context(), e.Info(m), m.(lm.Scorer))
		var re *microbench.RequestErrors
		require.ErrorAs(t, err, &re)
		assert.True(t, re.All(), "TestMicrobench stops the model on this error")
		assert.Contains(t, err.Error(), "1 of 1 items could not be scored; the first, capitals/"+france)
		assert.Contains(t, err.Error(), "the server dropped the prompt's log-probs")
		assert.Contains(t, err.Error(), "vLLM does")
	})
}

// TestMBProgress: a model's run feeds its progress task with every
// selected item and document, once the batches are back.
func TestMBProgress(t *testing.T) {
	tasks, err := mbTasks()
	require.NoError(t, err)
	f, err := runfilter.New("TestMicrobench/m/^(agreement|bpb)$/^(agreement-00[12]|bpb-kite)$", "")
	require.NoError(t, err)
	var b strings.Builder
	tr := progress.New(progress.Output{W: &b, Now: func() time.Time { return time.Time{} }})
	m := &fake.Model{
		LogProb: func(lm.LLRequest) lm.LLResult { return lm.LLResult{LogProb: -1} },
		Rolling: func(s string) lm.RollingResult { return lm.RollingResult{LogProb: -float64(len(s))} },
	}
	_, err = mbTracked(t.Context(), tr, mbRun(tasks, f.Under("TestMicrobench", "m")), lm.Info{Key: "m"}, m)
	require.NoError(t, err)
	tr.Close()
	assert.Equal(t, "microbench m  3/3 units in 0s\nfeather: finished in 0s\n", b.String(), "2 items and a document")
}
