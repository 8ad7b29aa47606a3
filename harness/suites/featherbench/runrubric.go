package featherbench

import (
	"context"
	"errors"
	"fmt"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
	"github.com/feather-eval/feather/internal/plural"
)

// RubricOptions are one run's judging options. The zero value judges
// with rubric.DefaultJudge and the built-in prompt.
type RubricOptions struct {
	// Judges are catalog keys ("all": every model but the built-in
	// ones); nil means rubric.DefaultJudge.
	Judges []string
	// Off skips judging (-fb.no-rubric): no judge is opened or called.
	Off bool
	// PromptFile replaces the built-in judge prompt when set.
	PromptFile string
}

// setupRubric checks the judging options and, unless judging is off or
// no selected trial has a rubric, names the judges for the plan and makes
// judging the runner's AfterTrial. A bad -fb.judge or -fb.judge-prompt
// stops the run before any money is spent.
//
// Judges are opened when the first trial needs grading, through
// OpenJudge. When one cannot be opened the run goes on: every trial is
// still run, checked and recorded, with an empty rubric, and no rubric
// number is reported (a smaller panel than the one named never grades);
// Finish says why (rubricVerdict).
func (r *Run) setupRubric() error {
	if r.c.Rubric.Off || !r.rubricSelected() {
		return nil
	}
	keys := r.c.Rubric.Judges
	if len(keys) == 0 {
		keys = []string{rubric.DefaultJudge}
	}
	entries, err := selectEntries(r.catalog, keys, "-fb.judge")
	if err != nil {
		return fmt.Errorf("-fb.judge: %w", err)
	}
	r.judges = make([]string, len(entries))
	for i, e := range entries {
		r.judges[i] = e.Key
	}
	var prompt *rubric.Prompt
	if r.c.Rubric.PromptFile != "" {
		if prompt, err = rubric.LoadPrompt(r.c.Rubric.PromptFile); err != nil {
			return fmt.Errorf("-fb.judge-prompt: %w", err)
		}
	}
	if r.c.DryRun {
		return nil
	}
	if r.c.OpenJudge == nil {
		return errors.New("featherbench: a selected task has a rubric but the run cannot open judges (Config.OpenJudge is nil)")
	}
	cat, judges, open := r.catalog, r.judges, r.c.OpenJudge
	r.judging = &Judging{Panel: func(ctx context.Context) (rubric.Panel, error) {
		panel, err := rubric.Resolve(ctx, cat, judges, open)
		return rubric.Panel{Judges: panel, Prompt: prompt}, err
	}}
	r.runner.AfterTrial = r.judging.AfterTrial
	return nil
}

// rubricSelected reports whether any trial the run will make has a
// rubric, so a run of coding tasks alone never looks a judge up.
func (r *Run) rubricSelected() bool {
	for _, e := range r.models {
		for _, job := range r.runner.Jobs(e.Key, r.tasks) {
			if job.Task.Rubric != nil {
				return true
			}
		}
	}
	return false
}

// rubricVerdict reports the trials of rubric tasks recorded without
// rubric scores because no panel could be built. A judge whose backend
// this build lacks (openrouter without its tag) is treated like such a
// contestant, which is skipped: it is logged, so offline runs of local
// models still pass. Any other failure is an error naming the fix.
func (r *Run) rubricVerdict() error {
	if r.judging == nil {
		return nil
	}
	n, err := r.judging.Ungraded()
	switch {
	case n == 0:
		return nil
	case errors.Is(err, catalog.ErrUnavailable):
		r.c.Logf("rubric judging skipped: %v; %s of tasks with a rubric were recorded without rubric scores (their checker results stand). "+
			"Build with the judge's tag, name judges this build can open with -fb.judge, or pass -fb.no-rubric", err, plural.Of(n, "trial"))
		return nil
	}
	return fmt.Errorf("rubric judging could not start, so %s of tasks with a rubric were recorded without rubric scores (their checker results stand): %v; "+
		"run with -fb.no-rubric to skip judging, or name judges this build can open with -fb.judge", plural.Of(n, "trial"), err)
}
