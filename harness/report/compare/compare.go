// Package compare sets two models, or one model in two runs, side by
// side, item by item: for each suite, the items both answered give
// paired statistics (the discordant counts, the exact McNemar test and
// the difference with its 95% interval; for μBench the domain and index
// differences with their standard errors), and every item that differs,
// that one side lacks or that errored is listed. Nothing is dropped
// quietly: an item outside the paired set is counted and named.
package compare

import (
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// Alpha is the two-sided significance level of every test here.
const Alpha = 0.05

// Outcome is one item's result on one side.
type Outcome string

// Outcomes. Only Right and Wrong are paired; an Error (the harness or the
// backend failed) and Unscored (a Featherbench trial with no verdict: no
// checker, or a refusal under the neutral policy) are listed apart.
const (
	Right    Outcome = "right"
	Wrong    Outcome = "wrong"
	Error    Outcome = "error"
	Unscored Outcome = "unscored"
)

func (o Outcome) scored() bool { return o == Right || o == Wrong }

// Side is one model in one run.
type Side struct {
	// ID is model@run, unique in a Set.
	ID, Model, Run string
	// Label is the model, with the run when the Set holds the model in
	// more than one run.
	Label string
}

// Item is one item's record on one side.
type Item struct {
	// Key names the item in its section as its subtest path does
	// ("geo01", "agreement/a1", "realworld-veggie/2").
	Key string
	// Unit is the independent unit the item belongs to ("" for itself):
	// a μBench contrast pair, a Featherbench task.
	Unit    string
	Outcome Outcome
	// Answer is what the side answered, in short; Error the failure.
	Answer, Error string
	// Source is the suite's own record (*featherweight.Record,
	// *microbench.ItemRecord, *featherbench.Record), for drill-downs.
	Source any
}

// Section is one score compared item by item: a Featherweight prompt
// style, μBench's choice items, Featherbench's trials.
type Section struct {
	ID, Suite, Label string
	// Unit names the independent units the statistics count.
	Unit string
	// allRight: a unit is right when all its items are (μBench's group
	// accuracy); otherwise a unit scores its share of right items.
	allRight bool
	// Keys are the items of every side, in first-seen order.
	Keys  []string
	items map[string]map[string]*Item // side ID → key → item
	// results are μBench's per-side results, for the domain and index
	// differences.
	results map[string]*microbench.Result
}

// Has reports whether side has records in the section.
func (s *Section) Has(side string) bool { return s.items[side] != nil }

// Result is side's μBench result (nil outside μBench).
func (s *Section) Result(side string) *microbench.Result { return s.results[side] }

// Item is side's record of key, or nil.
func (s *Section) Item(side, key string) *Item { return s.items[side][key] }

func (s *Section) add(side string, it *Item) {
	if s.items == nil {
		s.items = map[string]map[string]*Item{}
	}
	m := s.items[side]
	if m == nil {
		m = map[string]*Item{}
		s.items[side] = m
	}
	if _, seen := m[it.Key]; !seen && !s.known(it.Key) {
		s.Keys = append(s.Keys, it.Key)
	}
	m[it.Key] = it
}

func (s *Section) known(key string) bool {
	for _, m := range s.items {
		if _, ok := m[key]; ok {
			return true
		}
	}
	return false
}

// Set is every side's items, by section, read from some runs.
type Set struct {
	Sides    []Side
	Sections []*Section
}

// Side returns the side with id.
func (s *Set) Side(id string) (Side, bool) {
	for _, sd := range s.Sides {
		if sd.ID == id {
			return sd, true
		}
	}
	return Side{}, false
}

// FromRuns reads the items of every suite in set.
func FromRuns(set *runs.Set) *Set {
	b := &builder{sections: map[string]*Section{}, sides: map[string]*Side{}}
	if fw := set.Featherweight; fw != nil {
		b.featherweight(fw)
	}
	if mb := set.Microbench; mb != nil {
		b.microbench(mb)
	}
	if fb := set.Featherbench; fb != nil {
		b.featherbench(fb)
	}
	return b.set()
}

// builder collects sides and sections in first-seen order.
type builder struct {
	order    []string
	sections map[string]*Section
	sideIDs  []string
	sides    map[string]*Side
}

func (b *builder) section(id, suite, label, unit string) *Section {
	s := b.sections[id]
	if s == nil {
		s = &Section{ID: id, Suite: suite, Label: label, Unit: unit}
		b.sections[id] = s
		b.order = append(b.order, id)
	}
	return s
}

func (b *builder) side(model, run string) string {
	id := model + "@" + run
	if b.sides[id] == nil {
		b.sides[id] = &Side{ID: id, Model: model, Run: run}
		b.sideIDs = append(b.sideIDs, id)
	}
	return id
}

func (b *builder) set() *Set {
	runsOf := map[string]map[string]bool{}
	for _, id := range b.sideIDs {
		sd := b.sides[id]
		if runsOf[sd.Model] == nil {
			runsOf[sd.Model] = map[string]bool{}
		}
		runsOf[sd.Model][sd.Run] = true
	}
	out := &Set{}
	for _, id := range b.sideIDs {
		sd := *b.sides[id]
		sd.Label = sd.Model
		if len(runsOf[sd.Model]) > 1 && sd.Run != "" {
			sd.Label += " (" + sd.Run + ")"
		}
		out.Sides = append(out.Sides, sd)
	}
	for _, id := range b.order {
		out.Sections = append(out.Sections, b.sections[id])
	}
	return out
}

// Pair is one item on both sides; A or B is nil where that side lacks it.
type Pair struct {
	Key  string
	A, B *Item
}

// Verdict is what a section's test says of B against A.
type Verdict string

// Verdicts at Alpha.
const (
	Better Verdict = "B better"
	Worse  Verdict = "B worse"
	Same   Verdict = "no significant difference"
	// NoUnits: nothing was paired, so nothing is said.
	NoUnits Verdict = "nothing paired"
)

// SectionDiff is one section's comparison.
type SectionDiff struct {
	ID, Suite, Label string
	// Unit names the units counted; Units is how many were paired.
	Unit  string
	Units int
	// Binary: every paired unit is right or wrong on each side, so Table
	// holds the 2×2 counts, the interval is Newcombe's and P the exact
	// McNemar test's. Otherwise a unit scores its share of right items
	// (a task's passing trials), and the interval and P are the paired t
	// test's over the units' differences.
	Binary bool
	Table  stats.Paired
	// Ahead and Behind count the units B scored above and below A.
	Ahead, Behind int
	// RateA and RateB are each side's mean over the paired units; Diff is
	// B's minus A's with its 95% interval [Lo, Hi].
	RateA, RateB, Diff, Lo, Hi float64
	P                          float64
	Verdict                    Verdict
	// Method says how Diff's interval and P were computed.
	Method string
	// Differ are the items both sides scored with different outcomes.
	Differ []Pair
	// OnlyA and OnlyB are the items one side lacks; Errored those that
	// errored on either side; Unscored those with no verdict on either
	// side (and no error).
	OnlyA, OnlyB, Errored, Unscored []Pair
	// Partial counts units left out because one of their items is
	// missing, errored or unscored on a side (a μBench contrast pair
	// with one half failed): their items are in the lists above.
	Partial int
	// Microbench is μBench's domain and index differences.
	Microbench *MicrobenchDiff
}

// Comparison is B against A in every section both have results in.
type Comparison struct {
	A, B     Side
	Sections []SectionDiff
	// Missing names the sections only one side has results in.
	Missing []string
}

// Compare compares side b with side a (IDs from s.Sides).
func (s *Set) Compare(a, b string) (*Comparison, error) {
	sa, ok := s.Side(a)
	if !ok {
		return nil, fmt.Errorf("no results of %s; the runs hold %s", a, s.describe())
	}
	sb, ok := s.Side(b)
	if !ok {
		return nil, fmt.Errorf("no results of %s; the runs hold %s", b, s.describe())
	}
	if a == b {
		return nil, fmt.Errorf("%s is compared with itself; name two models, or one model in two runs", a)
	}
	c := &Comparison{A: sa, B: sb}
	for _, sec := range s.Sections {
		switch {
		case sec.Has(a) && sec.Has(b):
			c.Sections = append(c.Sections, sec.compare(a, b))
		case sec.Has(a):
			c.Missing = append(c.Missing, fmt.Sprintf("%s: only %s has results", sec.Label, sa.Label))
		case sec.Has(b):
			c.Missing = append(c.Missing, fmt.Sprintf("%s: only %s has results", sec.Label, sb.Label))
		}
	}
	if len(c.Sections) == 0 {
		return nil, fmt.Errorf("%s and %s have no suite in common: %s", sa.Label, sb.Label, strings.Join(c.Missing, "; "))
	}
	return c, nil
}

func (s *Set) describe() string {
	ids := make([]string, len(s.Sides))
	for i, sd := range s.Sides {
		ids[i] = sd.ID
	}
	return strings.Join(ids, ", ")
}

// compare pairs the section's items of a and b.
func (sec *Section) compare(a, b string) SectionDiff {
	d := SectionDiff{ID: sec.ID, Suite: sec.Suite, Label: sec.Label, Unit: sec.Unit}
	type tally struct{ rightA, rightB, n int }
	units := map[string]*tally{}
	var unitOrder []string
	broken := map[string]bool{}
	for _, key := range sec.Keys {
		ia, ib := sec.items[a][key], sec.items[b][key]
		p := Pair{Key: key, A: ia, B: ib}
		unit := "item\x00" + key
		if it := first(ia, ib); it != nil && it.Unit != "" {
			unit = "unit\x00" + it.Unit
		}
		switch {
		case ia == nil && ib == nil:
			continue
		case ib == nil:
			d.OnlyA = append(d.OnlyA, p)
		case ia == nil:
			d.OnlyB = append(d.OnlyB, p)
		case ia.Outcome == Error || ib.Outcome == Error:
			d.Errored = append(d.Errored, p)
		case !ia.Outcome.scored() || !ib.Outcome.scored():
			d.Unscored = append(d.Unscored, p)
		default:
			if ia.Outcome != ib.Outcome {
				d.Differ = append(d.Differ, p)
			}
			t := units[unit]
			if t == nil {
				t = &tally{}
				units[unit] = t
				unitOrder = append(unitOrder, unit)
			}
			t.n++
			if ia.Outcome == Right {
				t.rightA++
			}
			if ib.Outcome == Right {
				t.rightB++
			}
			continue
		}
		broken[unit] = true
	}
	var ds []float64
	d.Binary = true
	for _, u := range unitOrder {
		t := units[u]
		if sec.allRight && broken[u] {
			d.Partial++
			continue
		}
		var sa, sb float64
		if sec.allRight {
			sa, sb = b2f(t.rightA == t.n), b2f(t.rightB == t.n)
		} else {
			sa, sb = float64(t.rightA)/float64(t.n), float64(t.rightB)/float64(t.n)
		}
		d.Binary = d.Binary && (sa == 0 || sa == 1) && (sb == 0 || sb == 1)
		switch {
		case sa == 1 && sb == 1:
			d.Table.BothRight++
		case sa == 1 && sb == 0:
			d.Table.OnlyA++
		case sa == 0 && sb == 1:
			d.Table.OnlyB++
		case sa == 0 && sb == 0:
			d.Table.BothWrong++
		}
		switch {
		case sb > sa:
			d.Ahead++
		case sb < sa:
			d.Behind++
		}
		d.RateA += sa
		d.RateB += sb
		ds = append(ds, sb-sa)
	}
	d.Units = len(ds)
	if d.Units > 0 {
		d.RateA /= float64(d.Units)
		d.RateB /= float64(d.Units)
	}
	if d.Binary {
		d.Diff, d.Lo, d.Hi = d.Table.Diff(stats.Z95)
		d.P = d.Table.McNemar()
		d.Method = fmt.Sprintf("exact McNemar test on the %s, Newcombe's hybrid score interval for paired proportions", pluralNoun(sec.Unit))
	} else {
		d.Table = stats.Paired{}
		d.Diff, d.Lo, d.Hi, d.P = stats.PairedT(ds, 1-Alpha)
		d.Method = fmt.Sprintf("paired t test on the %s (a %s scores its share of passing trials), with its Student's t interval", pluralNoun(sec.Unit), sec.Unit)
	}
	d.Verdict = verdict(d.Units, d.P, d.Diff)
	if sec.results != nil {
		d.Microbench = microbenchDiff(sec.results[a], sec.results[b])
	}
	return d
}

func verdict(units int, p, diff float64) Verdict {
	switch {
	case units == 0:
		return NoUnits
	case p >= Alpha || diff == 0:
		return Same
	case diff > 0:
		return Better
	}
	return Worse
}

func first(a, b *Item) *Item {
	if a != nil {
		return a
	}
	return b
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func pluralNoun(unit string) string {
	if strings.HasSuffix(unit, "s") {
		return unit
	}
	return unit + "s"
}

// Regressions says where B is significantly worse than A, one line per
// section (and μBench's index): what a CI gate fails on.
func (c *Comparison) Regressions() []string {
	var out []string
	for _, d := range c.Sections {
		if d.Verdict == Worse {
			out = append(out, fmt.Sprintf("%s: %s scores %.1f points below %s (B − A %s, p = %s)", d.Label, c.B.Label, -100*d.Diff, c.A.Label, d.DiffText(), FormatP(d.P)))
		}
		if m := d.Microbench; m != nil && m.Index != nil && m.Index.Significant() && m.Index.Diff < 0 {
			out = append(out, fmt.Sprintf("μBench index: %s scores %.2f below %s (B − A %s SE)", c.B.Label, -m.Index.Diff, c.A.Label, m.Index.DiffText()))
		}
	}
	return out
}
