package featherbench

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench/checkers"
)

// Model is one contestant as the runner sees it.
type Model struct {
	Key string
	// Generator answers every task the same way: the runner sets no cap
	// and no sampling, so the model's catalog defaults (lm.WithDefaults,
	// applied when the catalog opens it) decide both. Tools go to every
	// model: a backend that cannot take them (a local model) fails the
	// request with lm.ErrUnsupported, and the trial is an unsupported
	// error record (see Record.Unsupported) rather than a fail for a
	// capability the model was never given. A response cache, when used,
	// wraps it (respcache.Cache.Wrap) and marks its answers Cached.
	Generator lm.Generator
	// Smoke is the built-in smoke model: its records say so.
	Smoke bool
}

// Runner runs trials through one bounded pool shared by every model, task
// and trial, and writes each record as soon as it is complete.
type Runner struct {
	RunID string
	// Trials per task (at least 1).
	Trials int
	// Concurrency bounds the trials in flight across all models (at least 1).
	Concurrency int
	// Selected says whether a trial runs (nil: all), e.g. from go test -run.
	Selected func(model, task string, trial int) bool
	// Out receives every record as it completes (nil: records are only
	// returned).
	Out *Writer
	// AfterTrial, when set, sees each record that is not an error, after
	// the checker and before it is written: the seam for rubric judging
	// (Judging.AfterTrial fills Rubric and RubricMean). An error makes the
	// trial an error record, unless ctx has ended, which drops the trial.
	AfterTrial func(ctx context.Context, task *Task, rec *Record) error
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Stop, when it ends, starts no new trial; those in flight run on
	// under the ctx given to Run (nil: never). It is the first Ctrl-C.
	Stop context.Context
	// OnRecord, when set, sees each record once Out has kept it, from the
	// goroutine that ran the trial: the seam for live progress.
	OnRecord func(Record)

	once sync.Once
	sem  chan struct{}
}

// Job is one trial of one task.
type Job struct {
	Task  *Task
	Trial int
}

// Jobs lists model's selected trials, task by task (Trials is checked
// once, by NewRun or Run).
func (r *Runner) Jobs(model string, tasks []Task) []Job {
	var out []Job
	for i := range tasks {
		for n := 1; n <= r.Trials; n++ {
			if r.Selected == nil || r.Selected(model, tasks[i].ID, n) {
				out = append(out, Job{Task: &tasks[i], Trial: n})
			}
		}
	}
	return out
}

// Run runs every model on tasks and returns the records, model by model in
// job order. Trials of all models share the pool.
func (r *Runner) Run(ctx context.Context, models []Model, tasks []Task) ([]Record, error) {
	out := make([][]Record, len(models))
	errs := make([]error, len(models))
	var wg sync.WaitGroup
	for i, m := range models {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = r.RunModel(ctx, m, tasks)
		}()
	}
	wg.Wait()
	var all []Record
	for _, recs := range out {
		all = append(all, recs...)
	}
	return all, errors.Join(errs...)
}

// RunModel runs one model's selected trials and returns their records in
// job order. It may be called for several models at once; they share the
// pool. Trials that never ran (ctx or Stop ended first) have no record.
// The error is ctx's, or the first failure to write a record, which stops
// the run, every model's trials in flight included: no money is spent on
// answers that cannot be kept. An ended Stop is not an error: the caller
// knows it stopped the run.
func (r *Runner) RunModel(ctx context.Context, m Model, tasks []Task) ([]Record, error) {
	if err := checkCounts(r.Trials, r.Concurrency); err != nil {
		return nil, err
	}
	r.once.Do(func() { r.sem = make(chan struct{}, r.Concurrency) })
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if r.Out != nil {
		go func() {
			select {
			case <-r.Out.Failed():
				cancel(r.Out.Err())
			case <-ctx.Done():
			}
		}()
	}

	jobs := r.Jobs(m.Key, tasks)
	recs := make([]*Record, len(jobs))
	var wg sync.WaitGroup
	for i, job := range jobs {
		if !r.acquire(ctx) {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-r.sem }()
			rec, ok := r.trial(ctx, m, job)
			if !ok {
				return
			}
			if r.Out != nil {
				if err := r.Out.Write(rec); err != nil {
					cancel(err)
					return // not kept, so not returned: a resumed run asks it again
				}
			}
			recs[i] = &rec
			if r.OnRecord != nil {
				r.OnRecord(rec)
			}
		}()
	}
	wg.Wait()
	var out []Record
	for _, rec := range recs {
		if rec != nil {
			out = append(out, *rec)
		}
	}
	err := context.Cause(ctx)
	if err == nil && r.Out != nil {
		err = r.Out.Err() // another model's write failed first
	}
	return out, err
}

// acquire takes a pool slot, or reports false once ctx or Stop has ended
// or the results file failed.
func (r *Runner) acquire(ctx context.Context) bool {
	var stop, failed <-chan struct{}
	if r.Stop != nil {
		stop = r.Stop.Done()
	}
	if r.Out != nil {
		failed = r.Out.Failed()
	}
	select {
	case r.sem <- struct{}{}:
		if ctx.Err() != nil || closed(stop) || closed(failed) {
			<-r.sem
			return false
		}
		return true
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-failed:
		return false
	}
}

// closed reports whether c is closed (a nil c never is).
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// trial runs one job. ok is false when ctx ended before the trial could be
// measured: such a trial is not recorded rather than recorded as an error.
func (r *Runner) trial(ctx context.Context, m Model, job Job) (rec Record, ok bool) {
	task := job.Task
	start := r.now()
	rec = Record{
		RunID: r.RunID, Task: task.ID, TaskHash: task.Hash, Model: m.Key, Trial: job.Trial,
		Timestamp: start.UTC().Format(time.RFC3339), ToolCalls: []ToolCall{}, Smoke: m.Smoke,
	}
	fail := func(err error) (Record, bool) {
		msg := err.Error()
		if errors.Is(err, lm.ErrUnsupported) {
			msg = UnsupportedPrefix + msg
		}
		rec.Error, rec.Passed, rec.CheckDetail = &msg, nil, nil
		if rec.StopReason == "" {
			rec.StopReason = lm.StopError
		}
		return rec, true
	}
	defer func() {
		// A bug in a checker or hook must cost one record, not the run.
		if p := recover(); p != nil {
			rec, ok = fail(fmt.Errorf("internal error: %v\n%s", p, debug.Stack()))
		}
	}()
	req := lm.GenerateRequest{
		Messages: []lm.Message{{Role: "user", Content: task.Prompt}},
		Tools:    task.Tools,
	}
	res, err := lm.GenerateOne(lm.WithTrial(ctx, job.Trial), m.Generator, req)
	measured := r.now().Sub(start)
	if ctx.Err() != nil {
		return rec, false
	}
	if err != nil {
		return fail(err)
	}
	fillResult(&rec, res, measured)
	rec.Cached = res.Cached
	if res.Err != nil {
		return fail(res.Err)
	}

	switch {
	case rec.Refusal:
		detail := "hard refusal"
		if res.RefusalCategory != "" {
			detail += " (" + res.RefusalCategory + ")"
		}
		switch task.Refusal {
		case RefusalPass:
			rec.Passed, detail = ptr(true), detail+`: counted as a pass (the task's refusal policy is "pass")`
		case RefusalFail:
			rec.Passed, detail = ptr(false), detail+`: counted as a fail (the task's refusal policy is "fail")`
		default:
			detail += `: not scored (the task's refusal policy is "neutral")`
		}
		rec.CheckDetail = &detail
	case task.Scored():
		passed, detail, err := task.Check(ctx, checkers.Response{Text: res.Text, ToolCalls: res.ToolCalls})
		if err != nil {
			if ctx.Err() != nil {
				return rec, false
			}
			return fail(fmt.Errorf("checker: %w", err))
		}
		rec.Passed, rec.CheckDetail = &passed, &detail
	}
	if r.AfterTrial != nil {
		if err := r.AfterTrial(ctx, task, &rec); err != nil {
			if ctx.Err() != nil {
				return rec, false
			}
			return fail(err)
		}
	}
	return rec, true
}

// fillResult copies what the backend reported, including on failure: a
// failed request may still have cost money.
func fillResult(rec *Record, res lm.GenerateResult, measured time.Duration) {
	rec.Text = res.Text
	for _, c := range res.ToolCalls {
		tc := ToolCall{Name: c.Name, Args: c.Args}
		if c.Args == nil {
			tc.RawArgs = c.RawArgs
		}
		rec.ToolCalls = append(rec.ToolCalls, tc)
	}
	rec.StopReason = res.StopReason
	rec.Refusal = res.StopReason == lm.StopRefusal
	if res.RefusalCategory != "" {
		rec.RefusalCategory = ptr(res.RefusalCategory)
	}
	if res.TTFT > 0 {
		rec.LatencyS = ptr(res.TTFT.Seconds())
	}
	// The backend's own wall time is the request's; the measured one (used
	// when the backend does not report it) also covers its retries.
	wall := res.Wall
	if wall <= 0 {
		wall = measured
	}
	rec.WallClockS = ptr(wall.Seconds())
	rec.InputTokens, rec.OutputTokens = res.InputTokens, res.OutputTokens
	if res.CostUSD != nil {
		rec.CostUSD = ptr(*res.CostUSD)
	}
	if res.SamplingSent != nil {
		rec.SamplingSent = res.SamplingSent
	}
}

func ptr[T any](v T) *T { return &v }
