package feather_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/atomicfile"
)

var (
	optMBCatalog    = options.String("mb.catalog", "models/microbench.example.json", "μBench's model catalog")
	optMBModels     = options.String("mb.models", "", "comma-separated catalog keys for μBench (default: -models)")
	optMBShowLevels = options.Bool("mb.show-levels", false, "print μBench accuracy per task and difficulty level for each model")
	optMBMaxLength  = options.Int("mb.max-length", microbench.MaxLength, "μBench context in tokens: every sequence is left-truncated to it")
)

// mbData holds the hand-written items and bits-per-byte documents.
const mbData = "testdata/microbench"

// mbResults collects this run's μBench results, model by model, for the
// leaderboard.
var mbResults struct {
	mu      sync.Mutex
	results []*microbench.Result
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
	for _, e := range selectModels(t, *optMBCatalog, suiteModels(*optMBModels)) {
		t.Run(e.Key, func(t *testing.T) {
			skipIfStopped(t)
			selected := mbSelected(runfilter.FromFlags(), e.Key)
			if !anyMBItem(tasks, selected) {
				return // -run names other items: load nothing
			}
			m := openModel(t, e)
			res, err := mbEvaluate(workContext(t), e, m, tasks, selected)
			var partial *microbench.RequestErrors
			switch {
			case errors.As(err, &partial) && !partial.All():
				t.Error(err) // the failed items fail below; the rest stand
			case err != nil:
				if res != nil {
					mbSave(t, res)
				}
				t.Fatal(err)
			}
			mbSave(t, res)
			fmt.Println(microbench.Summary(res))
			if *optMBShowLevels {
				fmt.Print(microbench.LevelsTable(res))
			}
			mbItemSubtests(t, e.Key, tasks, res, selected)
			mbGate(t, e.Key, res)
		})
	}
}

// mbSelected asks the -run/-skip filter about an item's subtest path before
// the subtest exists, so unselected items are never scored.
func mbSelected(f *runfilter.Filter, model string) func(task, item string) bool {
	return func(task, item string) bool { return f.Selected("TestMicrobench", model, task, item) }
}

func anyMBItem(tasks []*microbench.Task, selected func(task, item string) bool) bool {
	for _, tk := range tasks {
		for _, it := range tk.Items {
			if selected(tk.ID, it.ID) {
				return true
			}
		}
	}
	return false
}

// mbEvaluate scores one model: the catalog entry labels it, and a model
// without a Scorer is an error that says so.
func mbEvaluate(ctx context.Context, e catalog.Entry, m lm.Model, tasks []*microbench.Task, selected func(task, item string) bool) (*microbench.Result, error) {
	s, ok := m.(lm.Scorer)
	if !ok {
		return nil, fmt.Errorf("model %q (backend %s) cannot score log-likelihoods, which μBench needs; use a local ONNX model or an OpenAI-compatible completions server that returns prompt log-probs", e.Key, e.Backend)
	}
	info := modelInfo(e, m)
	return microbench.Evaluate(ctx, s, info, tasks, microbench.Options{MaxLength: *optMBMaxLength, Selected: selected})
}

// mbSave writes the model's result file and rewrites the run's
// leaderboard, so every finished model is on disk even if a later one fails.
func mbSave(t *testing.T, res *microbench.Result) {
	t.Helper()
	mbResults.mu.Lock()
	defer mbResults.mu.Unlock()
	mbResults.results = append(mbResults.results, res)
	dir, err := run.Sub("microbench")
	if err != nil {
		t.Fatal(err)
	}
	res.Run = run.Stamp()
	p, err := microbench.WriteResult(dir, res.Model.Key, res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("results in %s", p)
	if err := mbWriteLeaderboard(dir); err != nil {
		t.Fatal(err)
	}
}

// mbWriteLeaderboard builds leaderboard.md from the result files in dir,
// the same way a report over several runs would.
func mbWriteLeaderboard(dir string) error {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(paths)
	results, err := microbench.ReadResults(paths...)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "leaderboard.md"), []byte(microbench.Leaderboard(results)))
}

// mbItemSubtests gives every selected item and document a subtest. A
// harness error fails it; a wrong answer is the model's result unless
// -strict; then the regression checks run.
func mbItemSubtests(t *testing.T, model string, tasks []*microbench.Task, res *microbench.Result, selected func(task, item string) bool) {
	items := map[string]microbench.ItemRecord{}
	for _, r := range res.Items {
		items[r.Task+"/"+r.ID] = r
	}
	docs := map[string]microbench.DocumentRecord{}
	for _, d := range res.Documents {
		docs[d.ID] = d
	}
	for _, tk := range tasks {
		if !anyMBItem([]*microbench.Task{tk}, selected) {
			continue
		}
		t.Run(tk.ID, func(t *testing.T) {
			for _, it := range tk.Items {
				if !selected(tk.ID, it.ID) {
					continue
				}
				t.Run(it.ID, func(t *testing.T) {
					if tk.IsBPB() {
						mbCheckDocument(t, docs[it.ID])
						return
					}
					rec, ok := items[tk.ID+"/"+it.ID]
					if !ok {
						t.Skip("not scored: outside the -run filter")
					}
					mbCheckItem(t, model, rec)
				})
			}
		})
	}
}

func mbCheckItem(t *testing.T, model string, rec microbench.ItemRecord) {
	t.Helper()
	if rec.Error != "" {
		t.Fatalf("not scored: %s", rec.Error)
	}
	verdict := "wrong"
	if rec.Correct {
		verdict = "correct"
	}
	pred, gold := rec.Choices[rec.Prediction], rec.Choices[rec.Gold]
	t.Logf("%s: chose %q (%.4f) over gold %q (%.4f)%s", verdict, pred.Text, pred.Value, gold.Text, gold.Value, map[bool]string{true: ", left-truncated"}[rec.Truncated])
	if *optStrict && !rec.Correct {
		t.Errorf("-strict: %s chose %q, want %q", model, pred.Text, gold.Text)
	}
	// The gate's own strict mode stays off: -strict is enforced just above.
	gate.Open(t, "microbench", model, *optUpdate).Item(t, rec.Task+"/"+rec.ID, rec.Correct)
}

// mbGate runs the model's gate subtest (TestMicrobench/<model>/gate): the
// index against the baseline's threshold and the paired test on item
// outcomes, or recording them under -update. A run that -run cut short has
// no index (NaN), so only its items are checked.
func mbGate(t *testing.T, model string, res *microbench.Result) {
	score, se := math.NaN(), 0.0
	if res.Index != nil && res.StandardErrors.Index != nil {
		score, se = *res.Index, *res.StandardErrors.Index
	}
	gate.Open(t, "microbench", model, *optUpdate).Finish(t, score, se)
}

func mbCheckDocument(t *testing.T, d microbench.DocumentRecord) {
	t.Helper()
	if d.Error != "" {
		t.Fatalf("not scored: %s", d.Error)
	}
	t.Logf("%.4f bits per byte: %.1f bits over %d bytes, %d tokens in %d windows", d.BitsPerByte, d.Bits, d.Bytes, d.Tokens, d.Windows)
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
			selected := mbSelected(f, "m")
			assert.Equal(t, tc.items+tc.docs > 0, anyMBItem(tasks, selected))
			if tc.items+tc.docs == 0 {
				return
			}
			m := &fake.Model{
				LogProb: func(lm.LLRequest) lm.LLResult { return lm.LLResult{LogProb: -1} },
				Rolling: func(s string) lm.RollingResult { return lm.RollingResult{LogProb: -float64(len(s))} },
			}
			res, err := mbEvaluate(t.Context(), catalog.Entry{Key: "m"}, m, tasks, selected)
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
		res, err := mbEvaluate(t.Context(), e, m, tasks, mbSelected(f, "api"))
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
		_, err = mbEvaluate(t.Context(), e, m, tasks, mbSelected(f, "api"))
		var re *microbench.RequestErrors
		require.ErrorAs(t, err, &re)
		assert.True(t, re.All(), "TestMicrobench stops the model on this error")
		assert.Contains(t, err.Error(), "1 of 1 items could not be scored; the first, capitals/"+france)
		assert.Contains(t, err.Error(), "the server dropped the prompt's log-probs")
		assert.Contains(t, err.Error(), "vLLM does")
	})
}
