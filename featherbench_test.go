package feather_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/progress"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
	"github.com/feather-eval/feather/harness/suites/featherbench/sandbox"
)

var (
	optFBCatalog     = options.String("fb.catalog", "models/models.json", "Featherbench's model catalog")
	optFBModels      = options.String("fb.models", "", "comma-separated catalog keys for Featherbench (default: -models; all: the whole catalog but the built-in smoke model)")
	optFBTasksDir    = options.String("fb.tasks-dir", "tasks", "directory of Featherbench task files, <category>-<name>.json")
	optFBTasks       = options.String("fb.tasks", "", "comma-separated task ids to run (exact ids; combines with -fb.categories as an intersection)")
	optFBCategories  = options.String("fb.categories", "", "comma-separated task categories to run (combines with -fb.tasks as an intersection)")
	optFBTrials      = options.Int("fb.trials", 1, "trials of every task for every model")
	optFBConcurrency = options.Int("fb.concurrency", 1, "trials in flight at once, in one pool across models, tasks and trials")
	optFBDryRun      = options.Bool("fb.dry-run", false, "print the plan and an upper bound on API calls, and call no model")
	optFBRetryErrors = options.Bool("fb.retry-errors", false, "with -resume: ask the run's recorded error trials again (their lines move to results-<stamp>.jsonl.retried)")
	optFBUnisolated  = options.Bool("fb.allow-unisolated", false, "run python_tests code with resource limits only when neither bubblewrap nor user namespaces work on this machine: no network or filesystem isolation")
	optFBCache       = options.Bool("fb.cache", false, "answer trials from the response cache when it holds the same model, request and trial, and store new answers there; records say \"cached\": true")
	optFBJudge       = options.String("fb.judge", rubric.DefaultJudge, "comma-separated catalog keys of the rubric judges, looked up in -fb.catalog even when they are not contestants (all: every model but the built-in smoke model)")
	optFBNoRubric    = options.Bool("fb.no-rubric", false, "skip LLM rubric judging: no judge is opened or called")
	optFBJudgePrompt = options.String("fb.judge-prompt", "", "a judge prompt template file (Go text/template) to use instead of the built-in one")
)

// TestFeatherbench runs Featherbench: TestFeatherbench/<model>/<task-id>/<trial>.
// Only trials -run selects call a model; all models share one pool of
// -fb.concurrency trials in flight.
func TestFeatherbench(t *testing.T) {
	sandbox.AllowUnisolated(*optFBUnisolated)
	runFeatherbench(t, tracker, featherbench.Config{
		TasksDir: *optFBTasksDir, TaskIDs: options.List(*optFBTasks), Categories: options.List(*optFBCategories),
		Catalog: *optFBCatalog, Models: suiteModels(*optFBModels),
		Trials: *optFBTrials, Concurrency: *optFBConcurrency, DryRun: *optFBDryRun,
		Rubric: featherbench.RubricOptions{Judges: options.List(*optFBJudge), Off: *optFBNoRubric, PromptFile: *optFBJudgePrompt},
		Dir:    run, Resume: *optResume != "", RetryErrors: *optFBRetryErrors, CacheDir: fbCacheDir(),
		Selected: shard.And(runfilter.FromFlags().Under("TestFeatherbench"), featherbench.InShard(runShard)),
	}, true)
	requireAModel(t, "-fb.models")
}

// fbCacheDir is the response cache's folder under -fb.cache, else "".
func fbCacheDir() string {
	if !*optFBCache {
		return ""
	}
	return respcache.DefaultDir()
}

// runFeatherbench runs (or, under DryRun, plans) c under t and returns
// every record of the run, with each model's progress on tr (nil: none);
// gated checks trials against the baselines. Selected defaults to this
// binary's -run and -skip under t. Model subtests run side by side so that
// the shared pool, not the subtest order, decides what is in flight.
func runFeatherbench(t *testing.T, tr *progress.Tracker, c featherbench.Config, gated bool) []featherbench.Record {
	t.Helper()
	if tr != nil {
		c.OnUnit = func(model string, u unit.Unit) { tr.Task("featherbench", model).Unit(u) }
	}
	if c.Selected == nil {
		c.Selected = runfilter.FromFlags().Under(strings.Split(t.Name(), "/")...)
	}
	c.Stop, c.OpenJudge, c.Report, c.Logf = interrupts.Stop(), openCached, report.WriteFeatherbenchReport, t.Logf
	fb, err := featherbench.NewRun(c)
	if err != nil {
		t.Fatal(err)
	}
	requireRunSelects(t, runSelection{flag: "-fb.models", catalog: c.Catalog, layout: "<model>/<task-id>/<trial>", selected: entryKeys(fb.Panel()), selects: fb.Selects})
	if c.DryRun {
		fb.WritePlan(os.Stdout)
		return nil
	}
	var wg sync.WaitGroup
	for _, e := range fb.Models() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(e.Key, func(t *testing.T) { fbModel(t, tr, fb, e, gated) })
		}()
	}
	wg.Wait()
	if err := fb.Finish(interrupts.Signal()); err != nil {
		t.Error(err)
	}
	return fb.Records()
}

// fbModel is one model's subtest: it opens the model only when it has
// trials to ask, and gives each of its trials a subtest.
func fbModel(t *testing.T, tr *progress.Tracker, fb *featherbench.Run, e catalog.Entry, gated bool) {
	var gen lm.Generator
	if fb.Pending(e.Key) {
		_, gen = openAs[lm.Generator](t, e, "generate text, which Featherbench needs")
	}
	recs, err := fbRunModel(workContext(t), tr, fb, e, gen)
	if err != nil {
		t.Error(err)
	}
	o := unitOptions("featherbench", e.Key)
	o.Gate = gated
	o.Narrowed = append(o.Narrowed, fbNarrowing(*optFBTasksDir, options.List(*optFBTasks), options.List(*optFBCategories))...)
	unit.Subtests(t, o, featherbench.Units(recs), featherbench.Scores(recs))
}

// fbRunModel runs one model with its progress on tr, when it has trials
// to ask.
func fbRunModel(ctx context.Context, tr *progress.Tracker, fb *featherbench.Run, e catalog.Entry, gen lm.Generator) ([]featherbench.Record, error) {
	if gen != nil {
		total, done := fb.Planned(e.Key)
		defer tr.Start("featherbench", e.Key, total, done).End()
	}
	return fb.RunModel(ctx, e, gen)
}

// TestFBProgress: models side by side in the shared pool each feed their
// own progress task with their trials.
func TestFBProgress(t *testing.T) {
	fbNeedWholeRun(t, []string{"good", "shaky"}, 1)
	s := fakeserver.Start(t, fbFakeScript(fbTaskPrompts(t)))
	var b strings.Builder
	tr := progress.New(progress.Output{W: &b, Now: func() time.Time { return time.Time{} }})
	records := runFeatherbench(t, tr, featherbench.Config{
		Catalog: fbTwoModels(t, s, "vendor/shaky"), TasksDir: fbTestTasks, Trials: 1, Concurrency: 4, Rubric: featherbench.RubricOptions{Off: true},
		Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)),
	}, false)
	require.Len(t, records, 16)
	tr.Close()
	lines := strings.Split(b.String(), "\n")
	slices.Sort(lines[:2]) // the models finish in either order
	assert.Equal(t, []string{"featherbench good  8/8 units in 0s", "featherbench shaky  8/8 units in 0s", "feather: finished in 0s", ""}, lines)
}
