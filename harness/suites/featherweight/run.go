package featherweight

import (
	"context"
	"fmt"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/stats"
)

// Run asks models the selected items, one batch per model and style, and
// reports each unit as it finishes. It is the whole Featherweight run, for
// go test and a command line alike.
type Run struct {
	Items  []Item
	Styles []Style
	// Selected reports whether the unit at path [style, id] is to be asked
	// (nil: every one is). An unselected item is never sent.
	Selected func(path ...string) bool
	// Stop ends when no new style batch may start (the first Ctrl-C); nil
	// never ends. A batch already sent runs on under its own context.
	Stop context.Context
	// OnUnit, when set, is called with each unit as it finishes.
	OnUnit func(unit.Unit)
	// Logf, when set, takes the run's notes: each batch's time and each
	// model's scores.
	Logf func(format string, args ...any)
}

// Outcome is one model's run.
type Outcome struct {
	// ModelResult is the model's records, for the results files.
	ModelResult
	// Units are the records' units, and one per style whose batch failed
	// as a whole, in run order.
	Units []unit.Unit
}

// Any reports whether Selected leaves any item to ask, so that a model
// with none need not even be opened.
func (r *Run) Any() bool { return r.Planned() > 0 }

// Planned is how many units Model reports when it runs to the end: the
// selected items in each style.
func (r *Run) Planned() int {
	n := 0
	for _, st := range r.Styles {
		n += len(r.batch(st))
	}
	return n
}

// Model asks one model the selected items, style by style, and logs its
// scores. A style whose batch failed as a whole gets one Error unit,
// [style], and no records; the other styles still run.
func (r *Run) Model(ctx context.Context, info lm.Info, g lm.Generator) Outcome {
	out := Outcome{ModelResult: ModelResult{Model: info}}
	for _, st := range r.Styles {
		batch := r.batch(st)
		if len(batch) == 0 {
			continue
		}
		if r.stopped() {
			break
		}
		recs, err := r.ask(ctx, g, info, st, batch)
		units := Units(recs)
		if err != nil {
			units = []unit.Unit{batchFailed(st, err)}
		}
		out.Records = append(out.Records, recs...)
		for _, u := range units {
			out.Units = append(out.Units, u)
			if r.OnUnit != nil {
				r.OnUnit(u)
			}
		}
	}
	r.logScores(out.ModelResult)
	return out
}

// batch is a style's selected items, in file order.
func (r *Run) batch(st Style) []Item {
	var out []Item
	for _, it := range r.Items {
		if r.Selected == nil || r.Selected(string(st), it.ID) {
			out = append(out, it)
		}
	}
	return out
}

func (r *Run) stopped() bool { return r.Stop != nil && r.Stop.Err() != nil }

// ask evaluates one batch and logs how long the model took.
func (r *Run) ask(ctx context.Context, g lm.Generator, info lm.Info, st Style, batch []Item) ([]Record, error) {
	start := time.Now()
	recs, err := Evaluate(ctx, g, info, st, batch)
	if err == nil {
		r.logf("%d %s prompts answered in %s", len(recs), st, time.Since(start).Round(time.Millisecond))
	}
	return recs, err
}

// logScores logs a model's score in each style it has records for.
func (r *Run) logScores(res ModelResult) {
	for _, s := range Summarize([]ModelResult{res}) {
		r.logf("%s %s: %.1f%% (%d/%d, 95%% CI %.1f–%.1f), %d parse errors%s", res.Model.Key, s.Style, s.ScorePct,
			s.Correct, s.N, s.CILowPct, s.CIHighPct, s.ParseErrors, errorsNote(s))
	}
}

func (r *Run) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// errorsNote marks a score with failed requests as incomplete: they count
// as wrong, and their units have failed.
func errorsNote(s Summary) string {
	if !s.Incomplete {
		return ""
	}
	return fmt.Sprintf(", incomplete: %d failed requests counted as wrong", s.Errors)
}

// Path is the record's unit path under its model: [style, id].
func (r Record) Path() []string { return []string{string(r.Style), r.ID} }

// Unit is the record as a unit, gated in its style's baseline section. A
// missing answer is a harness error (the item also counts as wrong in the
// score); a wrong answer is the model's result.
func (r Record) Unit() unit.Unit {
	u := unit.Unit{Path: r.Path(), Section: 1}
	switch {
	case r.Error != "":
		u.Status, u.Log = unit.Error, "no answer: "+r.Error
		return u
	case r.Correct:
		u.Status = unit.Pass
	default:
		u.Status, u.Miss = unit.Fail, fmt.Sprintf("answered %q, want %s", r.Letter, r.Answer)
	}
	u.Log = fmt.Sprintf("%s: reply %q -> %q by %s (answer %s)", r.verdict(), r.Reply, r.Letter, r.Rule, r.Answer)
	return u
}

func (r Record) verdict() string {
	switch {
	case r.Correct:
		return "correct"
	case r.ParseError:
		return "parse error"
	}
	return "wrong"
}

// Units are the records' units, in record order.
func Units(recs []Record) []unit.Unit {
	out := make([]unit.Unit, len(recs))
	for i, r := range recs {
		out[i] = r.Unit()
	}
	return out
}

// batchFailed is the unit of a style whose batch got no results at all:
// its subtest, <model>/<style>, fails with the error.
func batchFailed(st Style, err error) unit.Unit {
	return unit.Unit{Path: []string{string(st)}, Section: 1, Status: unit.Error, Log: err.Error()}
}

// Scores are the gated scores of one model's records: each style's
// accuracy in percent with its standard error, in section [style].
func Scores(recs []Record) []unit.Score {
	var out []unit.Score
	for _, s := range Summarize([]ModelResult{{Records: recs}}) {
		se := 100 * stats.SEProportion(s.ScorePct/100, s.N)
		out = append(out, unit.Score{Section: []string{string(s.Style)}, Value: s.ScorePct, SE: se})
	}
	return out
}
