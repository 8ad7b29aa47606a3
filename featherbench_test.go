package feather_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/runfilter"
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
	runFeatherbench(t, featherbench.Config{
		TasksDir: *optFBTasksDir, TaskIDs: options.List(*optFBTasks), Categories: options.List(*optFBCategories),
		Catalog: *optFBCatalog, Models: suiteModels(*optFBModels),
		Trials: *optFBTrials, Concurrency: *optFBConcurrency, DryRun: *optFBDryRun,
		Rubric: featherbench.RubricOptions{Judges: options.List(*optFBJudge), Off: *optFBNoRubric, PromptFile: *optFBJudgePrompt},
		Dir:    run, Resume: *optResume != "", RetryErrors: *optFBRetryErrors, CacheDir: fbCacheDir(),
	}, true)
}

// fbCacheDir is the response cache's folder under -fb.cache, else "".
func fbCacheDir() string {
	if !*optFBCache {
		return ""
	}
	return respcache.DefaultDir()
}

// runFeatherbench runs (or, under DryRun, plans) c under t and returns
// every record of the run; gated checks trials against the baselines.
// Selected defaults to this binary's -run and -skip under t. Model
// subtests run side by side so that the shared pool, not the subtest
// order, decides what is in flight.
func runFeatherbench(t *testing.T, c featherbench.Config, gated bool) []featherbench.Record {
	t.Helper()
	if c.Selected == nil {
		c.Selected = runfilter.FromFlags().Under(strings.Split(t.Name(), "/")...)
	}
	c.Stop, c.OpenJudge, c.Report, c.Logf = interrupts.Stop(), openCached, report.WriteFeatherbenchReport, t.Logf
	fb, err := featherbench.NewRun(c)
	if errors.Is(err, featherbench.ErrNoTasks) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.DryRun {
		fb.WritePlan(os.Stdout)
		return nil
	}
	var wg sync.WaitGroup
	for _, e := range fb.Models() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(e.Key, func(t *testing.T) { fbModel(t, fb, e, gated) })
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
func fbModel(t *testing.T, fb *featherbench.Run, e catalog.Entry, gated bool) {
	var gen lm.Generator
	if fb.Pending(e.Key) {
		var ok bool
		if gen, ok = openModel(t, e).(lm.Generator); !ok {
			t.Fatalf("model %q (backend %s) cannot generate text, which Featherbench needs", e.Key, e.Backend)
		}
	}
	recs, err := fb.RunModel(workContext(t), e, gen)
	if err != nil {
		t.Error(err)
	}
	o := unitOptions("featherbench", e.Key)
	o.Gate = gated
	unit.Subtests(t, o, featherbench.Units(recs), featherbench.Scores(recs))
}
