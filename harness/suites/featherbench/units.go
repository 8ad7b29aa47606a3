package featherbench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
)

// Path is the trial's unit path under its model, [task, trial]: its
// subtest (TestFeatherbench/<model>/<task>/<trial>), what -run selects,
// and its baseline key.
func (r Record) Path() []string { return []string{r.Task, strconv.Itoa(r.Trial)} }

// Unit is the trial as a test shows it. An error record (no answer to
// score) is an Error, except a capability the backend lacks by design,
// which is Unsupported; a trial with a verdict is gated, a refusal under
// a "pass" or "fail" policy included; one without (no checker, a neutral
// refusal) is Measured.
func (r Record) Unit() unit.Unit {
	u := unit.Unit{Path: r.Path(), Status: r.status()}
	if u.Status == unit.Unsupported {
		u.Log = fmt.Sprintf("%s (recorded as an error, out of the pass rate)", *r.Error)
		return u
	}
	lines := []string{r.verdict()}
	if r.Error == nil {
		lines = append(lines, fmt.Sprintf("latency %s, wall %s, tokens %d in / %d out, cost %s",
			seconds(r.LatencyS), seconds(r.WallClockS), r.InputTokens, r.OutputTokens, usd(r.CostUSD)))
	}
	if v := r.rubricVerdicts(); v != "" {
		lines = append(lines, v)
	}
	u.Log = strings.Join(lines, "\n")
	if u.Status == unit.Fail {
		u.Miss = "failed the task" + r.detail()
	}
	return u
}

func (r Record) status() unit.Status {
	switch {
	case r.Unsupported():
		return unit.Unsupported
	case r.Error != nil:
		return unit.Error
	case r.Passed == nil:
		return unit.Measured
	case *r.Passed:
		return unit.Pass
	}
	return unit.Fail
}

func (r Record) verdict() string {
	switch {
	case r.Error != nil:
		return "error: " + *r.Error
	case r.Refusal:
		return "REFUSED" + r.detail()
	case r.Passed == nil:
		return "unscored (the task has no checker)"
	case *r.Passed:
		return "PASS" + r.detail()
	}
	return "FAIL" + r.detail()
}

func (r Record) detail() string {
	if r.CheckDetail == nil {
		return ""
	}
	return ": " + *r.CheckDetail
}

// rubricVerdicts is each judge's verdict on a graded trial ("" when it
// was not graded).
func (r Record) rubricVerdicts() string {
	grid, err := rubric.ParseGrid(r.Rubric)
	if err != nil || len(grid) == 0 {
		return ""
	}
	mean := "—"
	if r.RubricMean != nil {
		mean = fmt.Sprintf("%.2f", *r.RubricMean)
	}
	verdicts := make([]string, len(grid))
	for i, s := range grid {
		v := s.Judge
		if s.Self {
			v += " (self, left out)"
		}
		if s.Score != nil {
			v += fmt.Sprintf(" %d: %s", *s.Score, s.Rationale)
		} else {
			v += " error: " + s.Error
		}
		verdicts[i] = v
	}
	return fmt.Sprintf("rubric %s/10; %s", mean, strings.Join(verdicts, "; "))
}

func seconds(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2fs", *v)
}

func usd(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("$%.6f", *v)
}

// Units are one model's records as units, in order.
func Units(recs []Record) []unit.Unit {
	out := make([]unit.Unit, len(recs))
	for i, r := range recs {
		out[i] = r.Unit()
	}
	return out
}

// Scores is one model's gated score: its pass rate over scored trials
// with its standard error, NaN when none was scored. A model without a
// record this run has none: nothing of it ran, so there is nothing to gate.
func Scores(recs []Record) []unit.Score {
	if len(recs) == 0 {
		return nil
	}
	s := unit.NoScore()
	if ms := Summarize(recs, nil).Models; len(ms) == 1 && ms[0].Scored > 0 {
		s.Value, s.SE = ms[0].PassRate, stats.SEProportion(ms[0].PassRate, ms[0].Scored)
	}
	return []unit.Score{s}
}
