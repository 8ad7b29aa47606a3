package feather_test

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/run/interrupt"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/featherbench"
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
)

// fbRun is one Featherbench run as rubric judging (fbRubric) sees it
// before it starts.
type fbRun struct {
	Catalog string
	Models  []catalog.Entry
	Tasks   []featherbench.Task
	// Runner is the run's runner: rubric judging chains into its
	// AfterTrial to fill each record's rubric.
	Runner *featherbench.Runner
	// DryRun is true when the run only prints its plan: open no model.
	DryRun bool
	// Rubric holds the run's judging options (featherbench_rubric_test.go).
	Rubric fbRubricOptions
	// Judges are counted in the dry-run plan's rubric calls; NoRubric
	// makes them none.
	Judges   []string
	NoRubric bool
	// Finish runs after the results and summary files are written, with
	// every record and the suite's directory.
	Finish []func(records []featherbench.Record, dir string) error
}

// fbConfig is what one run needs; TestFeatherbench fills it from options.
type fbConfig struct {
	Catalog, TasksDir   string
	Models              []string
	TaskIDs, Categories []string
	Trials, Concurrency int
	DryRun              bool
	Rubric              fbRubricOptions
	Run                 *rundir.Dir
	Stdout              io.Writer
	// Filter decides which trials run (nil: this binary's -run and -skip).
	Filter *runfilter.Filter
	// Gate checks trials against testdata/baselines (TestFeatherbench only).
	Gate bool
	// Resume continues the run in Run, which an earlier run made: the
	// trials its results file holds are not asked again, except recorded
	// errors under RetryErrors.
	Resume, RetryErrors bool
	// Interrupts stops the run (nil: this process's Ctrl-C handling).
	Interrupts *interrupt.Watcher
	// CacheDir is the response cache's folder ("": no cache).
	CacheDir string
}

// TestFeatherbench runs Featherbench: TestFeatherbench/<model>/<task-id>/<trial>.
// Only trials -run selects call a model; all models share one pool of
// -fb.concurrency trials in flight.
func TestFeatherbench(t *testing.T) {
	sandbox.AllowUnisolated(*optFBUnisolated)
	runFeatherbench(t, fbConfig{
		Catalog: *optFBCatalog, TasksDir: *optFBTasksDir, Models: suiteModels(*optFBModels),
		TaskIDs: options.List(*optFBTasks), Categories: options.List(*optFBCategories),
		Trials: *optFBTrials, Concurrency: *optFBConcurrency, DryRun: *optFBDryRun,
		Rubric: fbRubricFromOptions(), Run: run, Stdout: os.Stdout, Gate: true, Resume: *optResume != "", RetryErrors: *optFBRetryErrors,
		CacheDir: fbCacheDir(),
	})
}

// fbCacheDir is the response cache's folder under -fb.cache, else "".
func fbCacheDir() string {
	if !*optFBCache {
		return ""
	}
	return respcache.DefaultDir()
}

// runFeatherbench runs (or plans) the selected trials and returns their
// records. Model subtests run side by side so that the shared pool, not
// the subtest order, decides what is in flight.
func runFeatherbench(t *testing.T, c fbConfig) []featherbench.Record {
	t.Helper()
	if c.Trials < 1 {
		t.Fatalf("-fb.trials is %d; it must be at least 1", c.Trials)
	}
	if c.Concurrency < 1 {
		t.Fatalf("-fb.concurrency is %d; it must be at least 1", c.Concurrency)
	}
	tasks, err := featherbench.LoadDir(c.TasksDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) == 0 {
		t.Skipf("no task files in %s: add <category>-<name>.json files, or point -fb.tasks-dir at a folder of them", c.TasksDir)
	}
	if tasks, err = featherbench.Filter(tasks, c.TaskIDs, c.Categories); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load(c.Catalog)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := fbSelect(cat, c.Models, "-fb.models")
	if err != nil {
		t.Fatal(err)
	}
	filter := c.Filter
	if filter == nil {
		filter = runfilter.FromFlags()
	}
	watcher := c.Interrupts
	if watcher == nil {
		watcher = interrupts
	}
	// -resume: the trials the run recorded are not asked again.
	var prior *featherbench.Resume
	if c.RetryErrors && !c.Resume {
		t.Fatal("-fb.retry-errors asks a resumed run's error trials again: add -resume RUN_DIR")
	}
	if c.Resume {
		p, err := c.Run.Path()
		if err != nil {
			t.Fatal(err)
		}
		if prior, err = featherbench.LoadResume(filepath.Join(p, "featherbench"), c.Run.Stamp(), tasks); err != nil {
			t.Fatal(err)
		}
		if c.RetryErrors {
			if _, err := prior.RetryErrors(); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range prior.Notes {
			t.Log(n)
		}
		t.Logf("resuming run %s: %d trials already recorded are not asked again", prior.RunID, len(prior.Records))
	}
	path := strings.Split(t.Name(), "/")
	selected := func(model, task string, trial int) bool {
		return filter.Selected(append(path, model, task, strconv.Itoa(trial))...)
	}
	r := &fbRun{Catalog: c.Catalog, Models: entries, Tasks: tasks, DryRun: c.DryRun, Rubric: c.Rubric, Runner: &featherbench.Runner{
		Trials: c.Trials, Concurrency: c.Concurrency, Stop: watcher.Stop(),
		Selected: func(model, task string, trial int) bool {
			return !prior.Finished(model, task, trial) && selected(model, task, trial)
		},
	}}
	if c.CacheDir != "" && !c.DryRun {
		cache, err := respcache.Open(c.CacheDir)
		if err != nil {
			t.Fatal(err)
		}
		cache.Report = func(err error) { t.Logf("response cache: %v (asked the model instead)", err) }
		r.Runner.Cache = cache
		defer func() {
			st := cache.Stats()
			t.Logf("response cache %s: %d hits, %d misses, %d stored, %d problems", cache.Dir(), st.Hits, st.Misses, st.Stores, st.Problems)
		}()
	}
	fbRubric(t, r)
	if c.DryRun {
		keys := make([]string, len(entries))
		for i, e := range entries {
			keys[i] = e.Key
		}
		plan := r.Runner.Plan(keys, tasks)
		plan.Judges, plan.NoRubric = r.Judges, r.NoRubric
		plan.Write(c.Stdout)
		return nil
	}

	// The results file is created when the first model opens, so a run
	// whose models all skip leaves no run directory behind; a resumed run
	// appends to its file.
	var (
		prepare sync.Once
		dir     string
		prepErr error
		mu      sync.Mutex
		records []featherbench.Record
		wg      sync.WaitGroup
		planned int
	)
	open := func() error {
		prepare.Do(func() {
			if dir, prepErr = c.Run.Sub("featherbench"); prepErr == nil {
				r.Runner.RunID = c.Run.Stamp()
				r.Runner.Out = featherbench.NewWriter(filepath.Join(dir, featherbench.ResultsName(r.Runner.RunID)))
			}
		})
		return prepErr
	}
	if prior != nil {
		if err := open(); err != nil {
			t.Fatal(err)
		}
		records = append(records, prior.Records...)
	}
	for _, e := range entries {
		if !filter.Selected(append(path, e.Key)...) {
			continue
		}
		jobs := r.Runner.Jobs(e.Key, tasks)
		planned += len(jobs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(e.Key, func(t *testing.T) {
				var done []featherbench.Record
				for _, rec := range prior.Of(e.Key, tasks) {
					if selected(rec.Model, rec.Task, rec.Trial) {
						done = append(done, rec)
					}
				}
				if len(jobs) == 0 && len(done) == 0 {
					return // -run names other trials: open nothing
				}
				var recs []featherbench.Record
				var err error
				if len(jobs) > 0 && watcher.Stop().Err() == nil {
					m := openModel(t, e)
					gen, ok := m.(lm.Generator)
					if !ok {
						t.Fatalf("model %q (backend %s) cannot generate text, which Featherbench needs", e.Key, e.Backend)
					}
					if err := open(); err != nil {
						t.Fatal(err)
					}
					ctx, release := watcher.Within(t.Context())
					recs, err = r.Runner.RunModel(ctx, fbModel(e, gen), tasks)
					release()
				}
				mu.Lock()
				records = append(records, recs...)
				mu.Unlock()
				all := append(done, recs...)
				featherbench.SortTrials(all, tasks)
				fbReport(t, tasks, all, c.Gate)
				switch {
				case errors.Is(err, interrupt.ErrInterrupted):
					// reported once for the run, below
				case err != nil:
					t.Error(err)
				}
				if c.Gate && watcher.Interrupted() {
					t.Logf("gate not checked: the run was interrupted, so %s's trials are incomplete", e.Key)
				} else if c.Gate {
					fbGate(t, e.Key, all)
				}
			})
		}()
	}
	wg.Wait()
	if r.Runner.Out == nil {
		return nil
	}
	if err := r.Runner.Out.Close(); err != nil {
		t.Error(err)
	}
	summary := filepath.Join(dir, "summary-"+r.Runner.RunID+".md")
	if err := featherbench.WriteSummary(records, summary, featherbench.Categories(tasks)); err != nil {
		t.Error(err)
	}
	page := filepath.Join(dir, "report-"+r.Runner.RunID+".html")
	if err := report.WriteFeatherbenchReport(page, records, tasks); err != nil {
		t.Error(err)
	}
	for _, f := range r.Finish {
		if err := f(records, dir); err != nil {
			t.Error(err)
		}
	}
	t.Logf("%d trials recorded in %s; summary in %s; review page %s", len(records), r.Runner.Out.Path(), summary, page)
	if s := watcher.Signal(); s != nil {
		ran := r.Runner.Out.Count()
		t.Errorf("interrupted (%v): %d of %d selected trials were not run; the finished ones are in %s. Continue with the same options and -resume %s",
			s, planned-ran, planned, r.Runner.Out.Path(), filepath.Dir(dir))
	}
	return records
}

// fbModel asks every task the same way: the catalog entry's answer cap
// and declared sampling.
func fbModel(e catalog.Entry, gen lm.Generator) featherbench.Model {
	m := featherbench.Model{Key: e.Key, Generator: gen, MaxNewTokens: e.MaxTokens, CacheID: respcache.FromEntry(e)}
	if e.Sampling != nil {
		m.Sampling = *e.Sampling
	}
	return m
}

// fbReport gives every recorded trial its subtest. An error record (no
// answer to score) fails it, except a capability the backend lacks by
// design, which skips it; a wrong answer is the model's result unless
// -strict.
func fbReport(t *testing.T, tasks []featherbench.Task, recs []featherbench.Record, gated bool) {
	byTask := map[string][]featherbench.Record{}
	for _, rec := range recs {
		byTask[rec.Task] = append(byTask[rec.Task], rec)
	}
	for _, task := range tasks {
		if len(byTask[task.ID]) == 0 {
			continue
		}
		t.Run(task.ID, func(t *testing.T) {
			for _, rec := range byTask[task.ID] {
				t.Run(strconv.Itoa(rec.Trial), func(t *testing.T) {
					fbCheckTrial(t, rec)
					fbLogRubric(t, rec)
					if gated && rec.Passed != nil {
						// -strict is enforced by fbCheckTrial, so the gate's own stays off.
						gate.Open(t, "featherbench", rec.Model, *optUpdate).Item(t, rec.Task+"/"+strconv.Itoa(rec.Trial), *rec.Passed)
					}
				})
			}
		})
	}
}

func fbCheckTrial(t *testing.T, rec featherbench.Record) {
	t.Helper()
	detail := ""
	if rec.CheckDetail != nil {
		detail = ": " + *rec.CheckDetail
	}
	switch {
	case rec.Unsupported():
		t.Skipf("%s (recorded as an error, out of the pass rate)", *rec.Error)
	case rec.Error != nil:
		t.Errorf("error: %s", *rec.Error)
	case rec.Refusal:
		t.Logf("REFUSED%s", detail)
	case rec.Passed == nil:
		t.Logf("unscored (the task has no checker)")
	case *rec.Passed:
		t.Logf("PASS%s", detail)
	default:
		t.Logf("FAIL%s", detail)
	}
	if *optStrict && rec.Passed != nil && !*rec.Passed {
		t.Errorf("-strict: %s failed the task%s", rec.Model, detail)
	}
	if rec.Error == nil {
		t.Logf("latency %s, wall %s, tokens %d in / %d out, cost %s", fbSeconds(rec.LatencyS), fbSeconds(rec.WallClockS), rec.InputTokens, rec.OutputTokens, fbUSD(rec.CostUSD))
	}
}

func fbSeconds(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2fs", *v)
}

func fbUSD(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("$%.6f", *v)
}

// fbGate runs the model's gate subtest (TestFeatherbench/<model>/gate): the
// pass rate against the baseline's threshold and the paired test on trial
// outcomes, or recording them under -update.
func fbGate(t *testing.T, model string, recs []featherbench.Record) {
	score, se := math.NaN(), 0.0
	if ms := featherbench.Summarize(recs, nil).Models; len(ms) == 1 && ms[0].Scored > 0 {
		score, se = ms[0].PassRate, stats.SEProportion(ms[0].PassRate, ms[0].Scored)
	}
	gate.Open(t, "featherbench", model, *optUpdate).Finish(t, score, se)
}
