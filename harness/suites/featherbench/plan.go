package featherbench

import (
	"encoding/json"
	"fmt"
	"github.com/feather-eval/feather/internal/plural"
	"io"
	"strings"
)

// Plan is what a run would do, for a dry run: it calls nothing.
type Plan struct {
	Models []string
	Tasks  []Task
	Trials int
	// Jobs are each model's selected trials.
	Jobs map[string][]Job
	// Judges are the rubric judges, when known; without them rubric calls
	// are counted per judge.
	Judges []string
	// NoRubric says judging is off (-fb.no-rubric): no rubric calls.
	NoRubric bool
}

// Plan lists the trials Run would make for models on tasks.
func (r *Runner) Plan(models []string, tasks []Task) Plan {
	p := Plan{Models: models, Tasks: tasks, Trials: r.Trials, Jobs: map[string][]Job{}}
	for _, m := range models {
		p.Jobs[m] = r.Jobs(m, tasks)
	}
	return p
}

// GenerationCalls is the number of model calls, one per trial.
func (p Plan) GenerationCalls() int {
	n := 0
	for _, jobs := range p.Jobs {
		n += len(jobs)
	}
	return n
}

// RubricCallsPerJudge is the number of trials whose task has a rubric: each
// costs one call per judge (at most: refused and failed trials are not
// judged). It is 0 when judging is off.
func (p Plan) RubricCallsPerJudge() int {
	if p.NoRubric {
		return 0
	}
	n := 0
	for _, jobs := range p.Jobs {
		for _, j := range jobs {
			if j.Task.Rubric != nil {
				n++
			}
		}
	}
	return n
}

// MaxCalls is the upper bound on API calls before retries, when the judges
// are known.
func (p Plan) MaxCalls() int { return p.GenerationCalls() + p.RubricCallsPerJudge()*len(p.Judges) }

// Write prints the plan.
func (p Plan) Write(w io.Writer) {
	fmt.Fprintf(w, "Featherbench dry run: no model is called.\n\n")
	fmt.Fprintf(w, "models (%d): %s\n", len(p.Models), strings.Join(p.Models, ", "))
	fmt.Fprintf(w, "tasks (%d), %s each:\n", len(p.Tasks), plural.Of(p.Trials, "trial"))
	width := 0
	for _, t := range p.Tasks {
		width = max(width, len(t.ID))
	}
	for _, t := range p.Tasks {
		var notes []string
		if t.Category != "" {
			notes = append(notes, "category "+t.Category)
		}
		if t.Scored() {
			notes = append(notes, "checker "+checkerType(t))
		} else {
			notes = append(notes, "no checker")
		}
		if len(t.Tools) > 0 {
			names := make([]string, len(t.Tools))
			for i, tool := range t.Tools {
				names[i] = tool.Name
			}
			notes = append(notes, "tools "+strings.Join(names, ", "))
		}
		if t.Rubric != nil {
			notes = append(notes, fmt.Sprintf("rubric (%d criteria)", len(t.Rubric.Criteria)))
		}
		fmt.Fprintf(w, "  %-*s  %s\n", width, t.ID, strings.Join(notes, "; "))
	}
	fmt.Fprintln(w)
	full := len(p.Models) * len(p.Tasks) * p.Trials
	gen := p.GenerationCalls()
	fmt.Fprintf(w, "generation calls: %d", gen)
	if gen == full {
		fmt.Fprintf(w, " (%s × %s × %s)\n", plural.Of(len(p.Models), "model"), plural.Of(len(p.Tasks), "task"), plural.Of(p.Trials, "trial"))
	} else {
		fmt.Fprintf(w, " (of %d: -run selects fewer trials)\n", full)
	}
	for _, m := range p.Models {
		if len(p.Jobs[m]) != len(p.Tasks)*p.Trials {
			fmt.Fprintf(w, "  %s: %d\n", m, len(p.Jobs[m]))
		}
	}
	rubric := p.RubricCallsPerJudge()
	switch {
	case p.NoRubric:
		fmt.Fprintf(w, "rubric calls: none (-fb.no-rubric)\n")
		fmt.Fprintf(w, "upper bound: %d API calls, before retries\n", gen)
	case rubric == 0:
		fmt.Fprintf(w, "rubric calls: none (no selected task has a rubric)\n")
		fmt.Fprintf(w, "upper bound: %d API calls, before retries\n", gen)
	case len(p.Judges) == 0:
		fmt.Fprintf(w, "rubric calls: %d per judge (one per trial of a task with a rubric)\n", rubric)
		fmt.Fprintf(w, "upper bound: %d + %d × judges API calls, before retries\n", gen, rubric)
	default:
		noun := "judges"
		if len(p.Judges) == 1 {
			noun = "judge"
		}
		fmt.Fprintf(w, "rubric calls: %d per judge × %d %s (%s) = %d\n", rubric, len(p.Judges), noun, strings.Join(p.Judges, ", "), rubric*len(p.Judges))
		fmt.Fprintf(w, "upper bound: %d API calls, before retries\n", p.MaxCalls())
	}
}

func checkerType(t Task) string {
	var node struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(t.Checker, &node); err != nil {
		return "?"
	}
	return node.Type
}
