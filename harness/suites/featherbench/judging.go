package featherbench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
)

// Judging grades the trials of tasks with a rubric: set Runner.AfterTrial
// to its AfterTrial. Every answered trial (not an error, not a hard
// refusal) of such a task is sent to every judge on the panel, blind;
// the record gets the grid as "rubric" and the mean of the other judges'
// valid scores as "rubric_mean".
type Judging struct {
	// Panel builds the panel. It is called once, when the first trial
	// needs grading, so a run whose selected trials have no rubric, or
	// whose contestants all skipped, opens no judge.
	Panel func(ctx context.Context) (rubric.Panel, error)

	once  sync.Once
	panel rubric.Panel
	err   error

	mu       sync.Mutex
	ungraded int
}

// AfterTrial grades rec when its task has a rubric and rec has an answer.
// When the panel cannot be built (a judge's backend is missing from this
// build, say), the trial keeps its checker verdict and an empty rubric,
// and Ungraded reports it: a rubric number from a smaller panel than the
// one asked for is never recorded. A ctx that ends during grading drops
// the trial (the runner records nothing) rather than recording the judge
// errors the cancellation caused.
func (j *Judging) AfterTrial(ctx context.Context, task *Task, rec *Record) error {
	if task.Rubric == nil || rec.Error != nil || rec.Refusal {
		return nil
	}
	j.once.Do(func() {
		// The panel outlives the trial that first needed it.
		p, err := j.Panel(context.WithoutCancel(ctx))
		j.mu.Lock()
		j.panel, j.err = p, err
		j.mu.Unlock()
	})
	if j.err != nil {
		j.mu.Lock()
		j.ungraded++
		j.mu.Unlock()
		return nil
	}
	calls := make([]lm.ToolCall, len(rec.ToolCalls))
	for i, c := range rec.ToolCalls {
		calls[i] = lm.ToolCall{Name: c.Name, Args: c.Args, RawArgs: c.RawArgs}
	}
	grid := j.panel.Grade(ctx,
		rubric.TaskView{Prompt: task.Prompt, Criteria: task.Rubric.Criteria},
		rec.Model, rubric.Response{Text: rec.Text, ToolCalls: calls})
	if err := ctx.Err(); err != nil {
		return err
	}
	raw, err := json.Marshal(grid)
	if err != nil {
		return fmt.Errorf("rubric: encoding the grid: %w", err)
	}
	rec.Rubric, rec.RubricMean = raw, rubric.Mean(grid, rec.Model)
	return nil
}

// Ungraded is how many trials of rubric tasks were recorded without a
// rubric because the panel could not be built, and why.
func (j *Judging) Ungraded() (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.ungraded, j.err
}
