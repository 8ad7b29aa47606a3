package microbench

import (
	"context"
	"errors"
	"fmt"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/unit"
)

// Run is how one model's μBench run goes: which tasks and items, how they
// are scored, and who hears of what finished. The go test runner drives
// each model through it; the CLI can too.
type Run struct {
	Tasks []*Task
	// MaxLength left-truncates every sequence; 0 means the spec's 512.
	MaxLength int
	// Selected reports whether the unit at path [task, item-id] runs, so a
	// -run filter cuts the model calls; nil selects every unit.
	Selected func(path ...string) bool
	// OnUnit, when set, hears of each unit as it finishes. Scoring is
	// batched, so the units arrive together once the batches are back.
	OnUnit func(unit.Unit)
	// OnScoring, when set, hears while the model scores how far it is:
	// done of total "requests", then of the bits-per-byte documents'
	// "windows" (lm.ScoreOptions.Progress), for a live display.
	OnScoring func(kind string, done, total int)
	// Save, when set, keeps the result as soon as there is one (a run in
	// which nothing could be scored included), before the notes; its
	// error ends the run. A Collector's Save fits behind it.
	Save func(*Result) error
	// ShowLevels adds the per-level table to the notes.
	ShowLevels bool
	// Log receives the notes, each whole lines: the summary line and, with
	// ShowLevels, the per-level table. nil drops them.
	Log func(text string)
}

// Evaluate scores the selected units of the run's tasks with s, info
// labelling the model. Errors are Evaluate's: a failed batch returns no
// Result; failed single requests return the Result with a
// *RequestErrors (see Partial); a failed Save is returned with the Result.
func (r *Run) Evaluate(ctx context.Context, info lm.Info, s lm.Scorer) (*Result, error) {
	res, err := Evaluate(ctx, s, info, r.Tasks, Options{MaxLength: r.MaxLength, Selected: r.selectedItem, OnScoring: r.OnScoring})
	if res == nil {
		return nil, err
	}
	if r.OnUnit != nil {
		for _, u := range r.Units(res) {
			r.OnUnit(u)
		}
	}
	if r.Save != nil {
		if serr := r.Save(res); serr != nil {
			return res, serr
		}
	}
	if err != nil && !Partial(err) {
		return res, err
	}
	r.log(Summary(res) + "\n")
	if r.ShowLevels {
		r.log(LevelsTable(res))
	}
	return res, err
}

// Partial reports whether err is a *RequestErrors that left some items
// scored: those failed items fail as units, the rest of the run stands.
func Partial(err error) bool {
	var re *RequestErrors
	return errors.As(err, &re) && !re.All()
}

// AnySelected reports whether the run selects any unit, so that a run that
// -run points elsewhere need not even open the model.
func (r *Run) AnySelected() bool { return r.Planned() > 0 }

// Planned is how many units the run reports: its selected items and
// documents.
func (r *Run) Planned() int {
	n := 0
	for _, t := range r.Tasks {
		for _, it := range t.Items {
			if r.selected(t.ID, it.ID) {
				n++
			}
		}
	}
	return n
}

func (r *Run) selected(path ...string) bool { return r.Selected == nil || r.Selected(path...) }

// selectedItem is selected in the shape Options.Selected asks for.
func (r *Run) selectedItem(task, item string) bool { return r.selected(task, item) }

func (r *Run) log(text string) {
	if r.Log != nil {
		r.Log(text)
	}
}

// Path is the item's unit path: [task, item-id].
func (rec ItemRecord) Path() []string { return []string{rec.Task, rec.ID} }

// Path is the document's unit path: [task, document-id].
func (d DocumentRecord) Path() []string { return []string{d.Task, d.ID} }

// Units are res's selected items and documents in task order, all in the
// model's one baseline section. A selected item res has no record of is
// skipped as outside the -run filter.
func (r *Run) Units(res *Result) []unit.Unit {
	var out []unit.Unit
	for _, t := range r.Tasks {
		for _, it := range t.Items {
			if r.selected(t.ID, it.ID) {
				out = append(out, unitOf(res, t, it.ID))
			}
		}
	}
	return out
}

func unitOf(res *Result, t *Task, id string) unit.Unit {
	if t.IsBPB() {
		if d, ok := res.Document(id); ok {
			return d.Unit()
		}
	} else if rec, ok := res.Item(t.ID, id); ok {
		return rec.Unit()
	}
	return unit.Unit{Path: []string{t.ID, id}, Status: unit.Unsupported, Log: "not scored: outside the -run filter"}
}

// Unit is the item as a unit: right or wrong with both choices' values,
// or an error when it could not be scored.
func (rec ItemRecord) Unit() unit.Unit {
	u := unit.Unit{Path: rec.Path()}
	if rec.Error != "" {
		u.Status, u.Log = unit.Error, "not scored: "+rec.Error
		return u
	}
	pred, gold := rec.Choices[rec.Prediction], rec.Choices[rec.Gold]
	truncated := ""
	if rec.Truncated {
		truncated = ", left-truncated"
	}
	if !rec.Correct {
		u.Status = unit.Fail
		u.Log = fmt.Sprintf("wrong: chose %q (%.4f) over gold %q (%.4f)%s", pred.Text, pred.Value, gold.Text, gold.Value, truncated)
		u.Miss = fmt.Sprintf("chose %q, want %q", pred.Text, gold.Text)
		return u
	}
	// A right answer is measured against the best of the others: the
	// margin it won by.
	u.Status = unit.Pass
	u.Log = fmt.Sprintf("correct: chose gold %q (%.4f)", gold.Text, gold.Value)
	if next := runnerUp(rec.Choices, rec.Gold); next >= 0 {
		other := rec.Choices[next]
		if other.Value == gold.Value {
			u.Log += fmt.Sprintf(", tied with %q (%.4f): a tie goes to the first choice", other.Text, other.Value)
		} else {
			u.Log += fmt.Sprintf(", ahead of %q (%.4f)", other.Text, other.Value)
		}
	}
	u.Log += truncated
	return u
}

// runnerUp is the index of the best choice other than skip (-1 when
// there is none).
func runnerUp(cs []ChoiceRecord, skip int) int {
	best := -1
	for i, c := range cs {
		if i != skip && (best < 0 || c.Value > cs[best].Value) {
			best = i
		}
	}
	return best
}

// Unit is the document as a unit: its figures, or an error when it could
// not be scored.
func (d DocumentRecord) Unit() unit.Unit {
	u := unit.Unit{Path: d.Path(), Status: unit.Measured}
	if d.Error != "" {
		u.Status, u.Log = unit.Error, "not scored: "+d.Error
		return u
	}
	u.Log = fmt.Sprintf("%.4f bits per byte: %.1f bits over %d bytes, %d tokens in %d windows", d.BitsPerByte, d.Bits, d.Bytes, d.Tokens, d.Windows)
	return u
}

// Scores is the run's one gated score: the index with its standard error,
// or none when the run has no index (-run cut it short, or items failed).
func Scores(res *Result) []unit.Score {
	if res.Index == nil || res.StandardErrors.Index == nil {
		return []unit.Score{unit.NoScore()}
	}
	return []unit.Score{{Value: *res.Index, SE: *res.StandardErrors.Index}}
}
