package featherbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/respcache"
	"github.com/feather-eval/feather/harness/run/interrupt"
	"github.com/feather-eval/feather/harness/run/unit"
)

// Config is one Featherbench run: what it asks, where its files go, and
// the few things it gets from its caller (go test or a command line).
type Config struct {
	// TasksDir holds the task files; TaskIDs and Categories narrow them
	// (an intersection; empty: all).
	TasksDir            string
	TaskIDs, Categories []string
	// Catalog is the model catalog; Models are the keys to run (empty:
	// the enabled models; "all": every model but the built-in ones).
	Catalog string
	Models  []string
	// Trials of every task for every model; Concurrency bounds the trials
	// in flight across all models. Both must be at least 1.
	Trials, Concurrency int
	// DryRun only plans (WritePlan): no model or judge is called and no
	// file is written.
	DryRun bool
	Rubric RubricOptions
	// Dir is the run directory; the run writes into its featherbench folder.
	Dir RunDir
	// Resume continues the run in Dir: the trials its results file holds
	// are not asked again, except recorded errors under RetryErrors.
	Resume, RetryErrors bool
	// CacheDir is the response cache's folder ("": no cache).
	CacheDir string
	// OpenResults opens the results file for appending, creating it (nil:
	// the file system's). Tests pass a disk that fills up.
	OpenResults func(path string) (ResultsFile, error)
	// Selected says whether a path under the run, [model] or [model,
	// task, trial], is selected, as go test's -run says (nil: all).
	Selected func(path ...string) bool
	// Stop, when it ends, starts no new trial (nil: never): the first Ctrl-C.
	Stop context.Context
	// OpenJudge opens a rubric judge; needed when a selected task has a
	// rubric and judging is on.
	OpenJudge catalog.Opener
	// Report writes the HTML review page (nil: none). The report package
	// renders it and imports this one, so the run is handed it.
	Report func(path string, recs []Record, tasks []Task) error
	// Logf takes the run's notes (nil: dropped).
	Logf func(format string, args ...any)
	// OnUnit, when set, sees each new trial's unit, with its model's key
	// (models share the pool), once its record is written, from the
	// goroutine that ran it.
	OnUnit func(model string, u unit.Unit)
}

// RunDir is the run directory as rundir.Dir gives it: created on first
// use, so a run that records nothing leaves none behind.
type RunDir interface {
	Path() (string, error)
	Sub(name string) (string, error)
	Stamp() string
}

// ErrNoTasks is the error of a run whose tasks folder holds no task file.
var ErrNoTasks = errors.New("no task files")

// Run is one prepared Featherbench run. Its models run side by side
// (RunModel), sharing one pool of Concurrency trials; Finish writes what
// the run has recorded.
type Run struct {
	c       Config
	tasks   []Task
	catalog *catalog.Catalog
	models  []catalog.Entry
	prior   *Resume
	runner  *Runner
	cache   *respcache.Cache // nil: no response cache
	judging *Judging
	judges  []string

	results sync.Once
	dir     string
	dirErr  error

	mu      sync.Mutex
	records []Record
}

// NewRun checks c and prepares the run: it loads and filters the tasks,
// selects the models, reads the run to resume, opens the response cache
// and sets up rubric judging, so that a bad option stops the run before
// any money is spent. A tasks folder without tasks is ErrNoTasks.
func NewRun(c Config) (*Run, error) {
	if err := checkCounts(c.Trials, c.Concurrency); err != nil {
		return nil, err
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Selected == nil {
		c.Selected = func(...string) bool { return true }
	}
	r := &Run{c: c}
	for _, step := range []func() error{r.loadTasks, r.selectModels, r.loadResume} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	r.runner = &Runner{Trials: c.Trials, Concurrency: c.Concurrency, Stop: c.Stop, Selected: r.asks, OnRecord: r.onRecord}
	for _, step := range []func() error{r.openCache, r.setupRubric, r.continueResults} {
		if err := step(); err != nil {
			r.logCache()
			return nil, err
		}
	}
	return r, nil
}

// checkCounts is the one check of the trial and concurrency bounds.
func checkCounts(trials, concurrency int) error {
	if trials < 1 {
		return fmt.Errorf("-fb.trials is %d; it must be at least 1", trials)
	}
	if concurrency < 1 {
		return fmt.Errorf("-fb.concurrency is %d; it must be at least 1", concurrency)
	}
	return nil
}

func (r *Run) loadTasks() error {
	tasks, err := LoadDir(r.c.TasksDir)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return NoTasks(r.c.TasksDir, "-fb.tasks-dir")
	}
	r.tasks, err = Filter(tasks, r.c.TaskIDs, r.c.Categories)
	return err
}

func (r *Run) selectModels() error {
	var err error
	if r.catalog, err = catalog.Load(r.c.Catalog); err != nil {
		return err
	}
	r.models, err = selectEntries(r.catalog, r.c.Models, "-fb.models")
	return err
}

// loadResume reads the results file of the run to continue (-resume).
func (r *Run) loadResume() error {
	if r.c.RetryErrors && !r.c.Resume {
		return errors.New("-fb.retry-errors asks a resumed run's error trials again: add -resume RUN_DIR")
	}
	if !r.c.Resume {
		return nil
	}
	p, err := r.c.Dir.Path()
	if err != nil {
		return err
	}
	if r.prior, err = LoadResume(filepath.Join(p, "featherbench"), r.c.Dir.Stamp(), r.tasks); err != nil {
		return err
	}
	if r.c.RetryErrors {
		if _, err := r.prior.RetryErrors(); err != nil {
			return err
		}
	}
	for _, n := range r.prior.Notes {
		r.c.Logf("%s", n)
	}
	r.c.Logf("resuming run %s: %d trials already recorded are not asked again", r.prior.RunID, len(r.prior.Records))
	return nil
}

func (r *Run) openCache() error {
	if r.c.CacheDir == "" || r.c.DryRun {
		return nil
	}
	cache, err := respcache.Open(r.c.CacheDir)
	if err != nil {
		return err
	}
	cache.Report = func(err error) { r.c.Logf("response cache: %v (asked the model instead)", err) }
	r.cache = cache
	return nil
}

// continueResults appends to a resumed run's results file from the start,
// and counts its records as the run's.
func (r *Run) continueResults() error {
	if r.prior == nil || r.c.DryRun {
		return nil
	}
	r.records = append(r.records, r.prior.Records...)
	return r.openResults()
}

// openResults opens the results file once, when the first model opens,
// so a run whose models all skip leaves no run directory behind.
func (r *Run) openResults() error {
	r.results.Do(func() {
		if r.dir, r.dirErr = r.c.Dir.Sub("featherbench"); r.dirErr == nil {
			r.runner.RunID = r.c.Dir.Stamp()
			r.runner.Out = NewWriter(filepath.Join(r.dir, ResultsName(r.runner.RunID)))
			r.runner.Out.Open = r.c.OpenResults
		}
	})
	return r.dirErr
}

// selected reports whether -run selects a model's trial.
func (r *Run) selected(model, task string, trial int) bool {
	return r.c.Selected(append([]string{model}, Record{Task: task, Trial: trial}.Path()...)...)
}

// asks reports whether the run asks a trial: selected and not recorded.
func (r *Run) asks(model, task string, trial int) bool {
	return !r.prior.Finished(model, task, trial) && r.selected(model, task, trial)
}

func (r *Run) onRecord(rec Record) {
	if r.c.OnUnit != nil {
		r.c.OnUnit(rec.Model, rec.Unit())
	}
}

// Panel are the models the run selected (-fb.models, or the catalog's
// enabled ones), whatever -run narrows them to.
func (r *Run) Panel() []catalog.Entry { return r.models }

// Models are the run's models that -run selects, in catalog order: each
// gets a RunModel call.
func (r *Run) Models() []catalog.Entry {
	var out []catalog.Entry
	for _, e := range r.models {
		if r.c.Selected(e.Key) {
			out = append(out, e)
		}
	}
	return out
}

// Pending reports whether the model has trials to ask and the run has
// not been stopped: only then need it be opened.
func (r *Run) Pending(model string) bool {
	return len(r.runner.Jobs(model, r.tasks)) > 0 && (r.c.Stop == nil || r.c.Stop.Err() == nil)
}

// Selects reports whether sel, a selection of paths under the model
// (task id, trial), takes any of the run's trials, whatever -shard or a
// resumed run leaves to ask.
func (r *Run) Selects(model string, sel func(path ...string) bool) bool {
	for _, t := range r.tasks {
		for n := 1; n <= r.c.Trials; n++ {
			if sel(Record{Task: t.ID, Trial: n}.Path()...) {
				return true
			}
		}
	}
	return false
}

// Planned is how many of the model's selected trials the run holds when
// RunModel has asked them all: those still to ask and, done, those a
// resumed run recorded.
func (r *Run) Planned(model string) (total, done int) {
	done = len(r.resumed(model))
	return len(r.runner.Jobs(model, r.tasks)) + done, done
}

// resumed are the model's selected trials that the resumed run recorded.
func (r *Run) resumed(model string) []Record {
	var recs []Record
	for _, rec := range r.prior.Of(model, r.tasks) {
		if r.selected(rec.Model, rec.Task, rec.Trial) {
			recs = append(recs, rec)
		}
	}
	return recs
}

// WritePlan prints the dry run's plan: the trials and an upper bound on
// API calls, judges included.
func (r *Run) WritePlan(w io.Writer) {
	keys := make([]string, len(r.models))
	for i, e := range r.models {
		keys[i] = e.Key
	}
	plan := r.runner.Plan(keys, r.tasks)
	plan.Judges, plan.NoRubric = r.judges, r.c.Rubric.Off
	plan.Write(w)
}

// RunModel asks model e, through gen, the trials the run has not
// recorded yet (gen nil: none, as when Pending is false), and returns
// e's selected records, resumed and new, in job order. Models may run at
// once: they share the pool. An interrupt is not an error here: Finish
// reports it once for the run.
func (r *Run) RunModel(ctx context.Context, e catalog.Entry, gen lm.Generator) ([]Record, error) {
	recs := r.resumed(e.Key)
	if gen == nil {
		return recs, nil
	}
	if err := r.openResults(); err != nil {
		return recs, err
	}
	fresh, err := r.runner.RunModel(ctx, Model{Key: e.Key, Generator: r.cache.Wrap(gen, e.CacheID()), Smoke: e.BuiltIn()}, r.tasks)
	r.mu.Lock()
	r.records = append(r.records, fresh...)
	r.mu.Unlock()
	recs = append(recs, fresh...)
	SortTrials(recs, r.tasks)
	if errors.Is(err, interrupt.ErrInterrupted) {
		err = nil
	}
	return recs, err
}

// Records are every record of the run: resumed ones, then new ones in
// the order they finished.
func (r *Run) Records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.records...)
}

// Finish ends the run after its models: it closes the results file,
// writes the summary, the record of where the tasks came from
// (TaskSource) and the review page, and reports rubric judging
// that could not start. interrupted is the signal that stopped the run
// (nil: none); it makes an error naming how to continue. A run that
// opened no results file writes nothing.
func (r *Run) Finish(interrupted os.Signal) error {
	defer r.logCache()
	out := r.runner.Out
	if out == nil {
		return nil
	}
	recs := r.Records()
	summary := filepath.Join(r.dir, "summary-"+r.runner.RunID+".md")
	errs := []error{out.Close(), WriteSummary(recs, summary, Categories(r.tasks)),
		WriteTaskSource(filepath.Join(r.dir, TaskSourceName(r.runner.RunID)), r.c.TasksDir, r.tasks)}
	note := fmt.Sprintf("%d trials recorded in %s; summary in %s", len(recs), out.Path(), summary)
	if r.c.Report != nil {
		page := filepath.Join(r.dir, "report-"+r.runner.RunID+".html")
		errs = append(errs, r.c.Report(page, recs, r.tasks))
		note += "; review page " + page
	}
	errs = append(errs, r.rubricVerdict())
	r.c.Logf("%s", note)
	switch {
	case out.Err() != nil:
		errs = append(errs, r.unwritten(out.Err()))
	case interrupted != nil:
		errs = append(errs, r.interrupted(interrupted))
	}
	return errors.Join(errs...)
}

// unwritten says that the results file stopped taking records, what it
// holds, and how to go on.
func (r *Run) unwritten(err error) error {
	planned := 0
	for _, e := range r.Models() {
		planned += len(r.runner.Jobs(e.Key, r.tasks))
	}
	return fmt.Errorf("the run stopped: %v. %d of %d selected trials were not run; the %d recorded before it are whole in %s. Make room, then continue with the same options and -resume %s",
		err, planned-r.runner.Out.Count(), planned, len(r.Records()), r.runner.Out.Path(), filepath.Dir(r.dir))
}

// interrupted says how much of the run a signal cut and how to go on.
func (r *Run) interrupted(s os.Signal) error {
	planned := 0
	for _, e := range r.Models() {
		planned += len(r.runner.Jobs(e.Key, r.tasks))
	}
	ran := r.runner.Out.Count()
	return fmt.Errorf("%w (%v): %d of %d selected trials were not run; the finished ones are in %s. Continue with the same options and -resume %s",
		interrupt.ErrInterrupted, s, planned-ran, planned, r.runner.Out.Path(), filepath.Dir(r.dir))
}

func (r *Run) logCache() {
	if c := r.cache; c != nil {
		st := c.Stats()
		r.c.Logf("response cache %s: %d hits, %d misses, %d stored, %d problems", c.Dir(), st.Hits, st.Misses, st.Stores, st.Problems)
	}
}

// selectEntries applies the catalog's selection rules for Featherbench's
// models and judges, except that "all" leaves out built-in models (the
// smoke model): they measure the harness, not a language model, and as a
// judge one would add an error to every graded trial. Naming one still
// selects it.
func selectEntries(c *catalog.Catalog, keys []string, option string) ([]catalog.Entry, error) {
	entries, err := c.Select(keys)
	if err != nil || len(keys) != 1 || keys[0] != "all" {
		return entries, err
	}
	var out, builtin []catalog.Entry
	for _, e := range entries {
		if e.BuiltIn() {
			builtin = append(builtin, e)
			continue
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		names := make([]string, len(builtin))
		for i, e := range builtin {
			names[i] = e.Key
		}
		return nil, fmt.Errorf(`"all" selects no language model: %s holds only built-in models, which "all" leaves out; name one to run it (%s %s)`, c.File, option, strings.Join(names, ","))
	}
	return out, nil
}
