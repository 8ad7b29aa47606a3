// Package unit is the one shape in which the three suites report what
// they ran. A unit is one Featherweight item in one prompt style, one
// μBench item or bits-per-byte document, or one Featherbench trial. Its
// Path, under the model, is at once
//
//   - the name of its subtest (TestFeatherweight/<model>/<style>/<item>),
//   - what -run and -skip select before any model is called, and
//   - its key in the regression baseline (testdata/baselines/<suite>/<model>.json).
//
// Subtests turns a model's units into go test subtests, applies -strict
// and the regression gate, in one place for every suite.
package unit

import (
	"math"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/run/gate"
)

// Status is a unit's outcome as go test shows it.
type Status int

const (
	// Pass: the model got it right.
	Pass Status = iota
	// Fail: the model got it wrong; that is its result, so the subtest
	// passes unless -strict or the baseline says it passed before.
	Fail
	// Error: there was no answer to score (a request failed); the subtest
	// fails. How the score counts it is the suite's rule.
	Error
	// Unsupported: the backend lacks a capability by design; the subtest
	// is skipped and the unit is outside the score.
	Unsupported
	// Measured: nothing to pass or fail (a bits-per-byte document, a trial
	// of a task without a checker); the subtest logs the figures.
	Measured
)

// Unit is one finished unit of a suite.
type Unit struct {
	// Path is the unit's subtest path under the model's subtest, e.g.
	// ["completion", "geo01"], ["tracking", "tracking-017"] or
	// ["code-fizzbuzz", "2"].
	Path []string
	// Section is how many leading Path elements name the baseline section
	// the unit is gated in (Featherweight: 1, its prompt style); 0 gates it
	// in the model's one section.
	Section int
	Status  Status
	// Log is what the subtest logs: the verdict and the figures behind it.
	Log string
	// Miss says what went wrong when Status is Fail, for -strict, e.g.
	// `answered "B", want C`.
	Miss string
}

// Key is the unit's place in a baseline: its section (nil: the model's
// only one) and its item key within it.
func (u Unit) Key() (section []string, item string) {
	n := min(max(u.Section, 0), len(u.Path)-1)
	return u.Path[:n], strings.Join(u.Path[n:], "/")
}

// Gated reports whether the unit has an outcome the gate records.
func (u Unit) Gated() bool { return u.Status == Pass || u.Status == Fail }

// Score is one gated score of a model: a prompt style's accuracy, the
// μBench index, the Featherbench pass rate.
type Score struct {
	// Section is the baseline section the score belongs to, as in
	// Unit.Key (nil: the model's only one).
	Section []string
	// Value and SE are in the score's own units. A Value of NaN means no
	// score this run (-run cut it short): only the items are gated.
	Value, SE float64
}

// NoScore is a Score whose run had none.
func NoScore(section ...string) Score { return Score{Section: section, Value: math.NaN()} }

// Options say how a model's units become subtests.
type Options struct {
	Suite, Model string
	// Strict fails every unit the model got wrong (-strict).
	Strict bool
	// Gate checks units and scores against the recorded baselines, or
	// records them when Update is set (-update).
	Gate, Update bool
	// Baselines is the baselines folder ("": gate.DefaultDir).
	Baselines string
	// Interrupted leaves the scores unchecked: an interrupted run's units
	// are incomplete.
	Interrupted bool
	// Narrowed are the options in effect that run fewer units than a
	// whole run (-run, -shard, a suite's own selection), for the gate's
	// note on baseline items that did not run.
	Narrowed []gate.Narrowing
}

// Subtests gives each unit its subtest under t, the model's subtest,
// nested by Path in the order units first name each level. After a
// section's units it runs the section's gate subtest with its Score.
func Subtests(t *testing.T, o Options, units []Unit, scores []Score) {
	t.Helper()
	bySection := map[string]Score{}
	for _, s := range scores {
		bySection[strings.Join(s.Section, "/")] = s
	}
	walk(t, o, nil, units, bySection)
}

func walk(t *testing.T, o Options, prefix []string, units []Unit, scores map[string]Score) {
	var order []string
	groups := map[string][]Unit{}
	for _, u := range units {
		if len(u.Path) <= len(prefix) {
			continue
		}
		name := u.Path[len(prefix)]
		if _, seen := groups[name]; !seen {
			order = append(order, name)
		}
		groups[name] = append(groups[name], u)
	}
	for _, name := range order {
		g := groups[name]
		if len(g) == 1 && len(g[0].Path) == len(prefix)+1 {
			t.Run(name, func(t *testing.T) { leaf(t, o, g[0]) })
			continue
		}
		sub := append(append([]string(nil), prefix...), name)
		t.Run(name, func(t *testing.T) { walk(t, o, sub, g, scores) })
	}
	s, ok := scores[strings.Join(prefix, "/")]
	switch {
	case !ok || !o.Gate:
	case o.Interrupted:
		t.Logf("gate not checked: the run was interrupted, so %s's units are incomplete", o.Model)
	default:
		open(t, o, prefix).Finish(t, s.Value, s.SE, o.Narrowed...)
	}
}

func leaf(t *testing.T, o Options, u Unit) {
	t.Helper()
	switch u.Status {
	case Error:
		t.Error(u.Log)
	case Unsupported:
		t.Skip(u.Log)
	default:
		if u.Log != "" {
			t.Log(u.Log)
		}
	}
	if o.Strict && u.Status == Fail {
		t.Errorf("-strict: %s %s", o.Model, u.Miss)
	}
	if o.Gate && u.Gated() {
		section, item := u.Key()
		open(t, o, section).Item(t, item, u.Status == Pass)
	}
}

// open is the gate of the model's section: key "<model>" or
// "<model>/<section>".
func open(t testing.TB, o Options, section []string) *gate.Gate {
	t.Helper()
	key := strings.Join(append([]string{o.Model}, section...), "/")
	dir := o.Baselines
	if dir == "" {
		dir = gate.DefaultDir
	}
	return gate.OpenIn(t, dir, o.Suite, key, o.Update)
}
