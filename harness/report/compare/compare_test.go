package compare_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden comparisons in testdata/report/golden")

const (
	fixtures = "../../../testdata/report"
	runA     = "20260704T101530Z"
	runB     = "20260705T090000Z"
)

// fwRun is one Featherweight run of models, each given as its outcomes
// per item id: 'R' right, 'W' wrong, 'E' an error; an id a model lacks
// is not asked.
func fwRun(stamp string, models map[string]map[string]byte) runs.FeatherweightRun {
	r := runs.FeatherweightRun{Stamp: stamp}
	for _, key := range sortedKeys(models) {
		m := featherweight.ModelResult{Model: lm.Info{Key: key}}
		for _, id := range sortedKeys(models[key]) {
			rec := featherweight.Record{ID: id, Style: featherweight.Plain, Answer: "A", Letter: "A", Reply: "The answer is A."}
			switch models[key][id] {
			case 'R':
				rec.Correct = true
			case 'W':
				rec.Letter, rec.Reply = "B", "B) something else"
			case 'E':
				rec.Letter, rec.Reply, rec.Error = "", "", "backend: out of memory"
			}
			m.Records = append(m.Records, rec)
		}
		r.Results = append(r.Results, m)
	}
	return r
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// table makes a and b's outcomes on n items from the 2×2 counts.
func table(bothRight, onlyA, onlyB, bothWrong int) (a, b map[string]byte) {
	a, b = map[string]byte{}, map[string]byte{}
	i := 0
	for _, c := range []struct {
		n    int
		a, b byte
	}{{bothRight, 'R', 'R'}, {onlyA, 'R', 'W'}, {onlyB, 'W', 'R'}, {bothWrong, 'W', 'W'}} {
		for range c.n {
			id := fmt.Sprintf("q%03d", i)
			a[id], b[id] = c.a, c.b
			i++
		}
	}
	return a, b
}

// TestPairedStatistics: the counts, difference, interval, p-value and
// verdict of two models on one Featherweight style, against values worked
// by hand from Newcombe's method 10 and the exact McNemar test (see
// harness/stats for the arithmetic).
func TestPairedStatistics(t *testing.T) {
	for _, tt := range []struct {
		name                       string
		bothRight, onlyA, onlyB, w int
		diff, lo, hi, p            float64
		verdict                    compare.Verdict
	}{
		{"B ahead, not significant", 12, 1, 5, 2, 0.2, -0.030128307, 0.411798652, 14.0 / 64, compare.Same},
		{"B better", 40, 0, 8, 52, 0.08, 0.026958630, 0.131707501, 2.0 / 256, compare.Better},
		{"B worse", 30, 10, 1, 9, -0.18, -0.297713189, -0.058443417, 24.0 / 2048, compare.Worse},
		{"no discordant items", 0, 0, 0, 10, 0, -0.277532800, 0.277532800, 1, compare.Same},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := table(tt.bothRight, tt.onlyA, tt.onlyB, tt.w)
			set := compare.FromRuns(&runs.Set{Featherweight: &runs.Featherweight{Runs: []runs.FeatherweightRun{
				fwRun(runA, map[string]map[string]byte{"alpha": a, "beta": b}),
			}}})
			c, err := set.Compare("alpha@"+runA, "beta@"+runA)
			require.NoError(t, err)
			require.Len(t, c.Sections, 1)
			d := c.Sections[0]
			assert.Equal(t, "Featherweight · plain", d.Label)
			assert.True(t, d.Binary)
			assert.Equal(t, stats.Paired{BothRight: tt.bothRight, OnlyA: tt.onlyA, OnlyB: tt.onlyB, BothWrong: tt.w}, d.Table)
			assert.Equal(t, tt.bothRight+tt.onlyA+tt.onlyB+tt.w, d.Units)
			assert.Equal(t, [2]int{tt.onlyA, tt.onlyB}, [2]int{d.Behind, d.Ahead})
			assert.InDelta(t, tt.diff, d.Diff, 1e-12)
			assert.InDelta(t, tt.lo, d.Lo, 1e-8)
			assert.InDelta(t, tt.hi, d.Hi, 1e-8)
			assert.InDelta(t, tt.p, d.P, 1e-12)
			assert.Equal(t, tt.verdict, d.Verdict)
			assert.Len(t, d.Differ, tt.onlyA+tt.onlyB)
			assert.Empty(t, d.OnlyA)
			assert.Empty(t, d.OnlyB)
			assert.Empty(t, d.Errored)
			assert.Equal(t, tt.verdict == compare.Worse, len(c.Regressions()) == 1)
		})
	}
}

// TestLeftOut: an item on one side only, or errored on either, is left
// out of the pairing, counted and named, never dropped.
func TestLeftOut(t *testing.T) {
	a := map[string]byte{"q1": 'R', "q2": 'R', "q3": 'E', "q4": 'W', "q5": 'R', "q6": 'W', "q7": 'R', "q8": 'R', "q9": 'R'}
	b := map[string]byte{"q1": 'R', "q2": 'W', "q3": 'R', "q4": 'R', "q5": 'E', "q6": 'W', "q7": 'R', "q8": 'W', "q10": 'R', "q11": 'W'}
	set := compare.FromRuns(&runs.Set{Featherweight: &runs.Featherweight{Runs: []runs.FeatherweightRun{
		fwRun(runA, map[string]map[string]byte{"alpha": a, "beta": b}),
	}}})
	c, err := set.Compare("alpha@"+runA, "beta@"+runA)
	require.NoError(t, err)
	d := c.Sections[0]
	keys := func(ps []compare.Pair) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Key)
		}
		return out
	}
	// Paired: q1 (both right), q2 and q8 (only A), q4 (only B), q6 (both
	// wrong), q7 (both right): 6 of the 11 items.
	assert.Equal(t, 6, d.Units)
	assert.Equal(t, stats.Paired{BothRight: 2, OnlyA: 2, OnlyB: 1, BothWrong: 1}, d.Table)
	assert.Equal(t, []string{"q2", "q4", "q8"}, keys(d.Differ))
	assert.Equal(t, []string{"q9"}, keys(d.OnlyA))
	assert.Equal(t, []string{"q10", "q11"}, keys(d.OnlyB))
	assert.Equal(t, []string{"q3", "q5"}, keys(d.Errored))
	assert.Equal(t, "1 only in A, 2 only in B, 2 errored", d.LeftOut())
	// p_B = 3/6, p_A = 4/6: hand-computed with Newcombe's method 10
	// (a = 2, b = 1, c = 2, d = 1; φ = 0).
	diff, lo, hi := stats.Paired{BothRight: 2, OnlyA: 2, OnlyB: 1, BothWrong: 1}.Diff(stats.Z95)
	assert.InDelta(t, -1.0/6, d.Diff, 1e-12)
	assert.Equal(t, [3]float64{diff, lo, hi}, [3]float64{d.Diff, d.Lo, d.Hi})

	md := c.Markdown()
	for _, want := range []string{
		"| Featherweight · plain | 6 items | 66.7% | 50.0% | -16.7 pts [",
		"Left out of the pairing and listed below: Featherweight · plain: 1 only in A, 2 only in B, 2 errored.",
		"### Only in A (1)\n\n| item | A | A answered |\n|---|---|---|\n| q9 | right | A: \"The answer is A.\" |\n",
		"### Only in B (2)\n\n| item | B | B answered |\n|---|---|---|\n| q10 | right | A: \"The answer is A.\" |\n| q11 | wrong | B: \"B) something else\" |\n",
		"| q3 | error | backend: out of memory | right | A: \"The answer is A.\" |",
		"| q5 | right | A: \"The answer is A.\" | error | backend: out of memory |",
	} {
		assert.Contains(t, md, want)
	}
}

// fbRecord is one Featherbench trial: 'P' passed, 'F' failed, 'E' an
// error, 'U' no verdict.
func fbRecord(model, task string, trial int, outcome byte) featherbench.Record {
	r := featherbench.Record{RunID: runA, Model: model, Task: task, Trial: trial, Text: "answer of " + model}
	switch outcome {
	case 'P', 'F':
		passed := outcome == 'P'
		r.Passed = &passed
	case 'E':
		msg := "503 upstream unavailable"
		r.Error = &msg
	}
	return r
}

// TestTasksWithSeveralTrials: a task is the unit, scored as its share of
// passing trials; the paired t test over the tasks, by hand: differences
// 0, .5, .5, −.5 (mean .125, se .2393568), t(3) = 3.182446 gives
// [−.6367401, .8867401]; t = .5222330, two-sided p = .63762.
func TestTasksWithSeveralTrials(t *testing.T) {
	var recs []featherbench.Record
	for _, r := range []struct {
		task       string
		a, b       string // outcomes of trials 1, 2, …
		extraA     bool
		errA, errB int
	}{
		{task: "t1", a: "PP", b: "PP", extraA: true},
		{task: "t2", a: "PF", b: "PP"},
		{task: "t3", a: "FF", b: "PF"},
		{task: "t4", a: "PF", b: "FF"},
		{task: "t5", a: "EP", b: "UP"},
	} {
		for i := range r.a {
			recs = append(recs, fbRecord("a", r.task, i+1, r.a[i]), fbRecord("b", r.task, i+1, r.b[i]))
		}
		if r.extraA {
			recs = append(recs, fbRecord("a", r.task, 3, 'P'))
		}
	}
	set := compare.FromRuns(&runs.Set{Featherbench: &runs.Featherbench{Records: recs}})
	c, err := set.Compare("a@"+runA, "b@"+runA)
	require.NoError(t, err)
	d := c.Sections[0]
	// t5's trial 2 is paired (both passed): t5 is a fifth unit, difference 0.
	// So five differences 0, .5, .5, −.5, 0: mean .1, and by hand
	// deviations −.1, .4, .4, −.6, −.1: squares .01 + .16 + .16 + .36 + .01
	// = .7, variance .175, se = √.175/√5 = .1870829; t(4) = 2.776445.
	assert.False(t, d.Binary)
	assert.Equal(t, 5, d.Units)
	assert.Equal(t, "task", d.Unit)
	assert.InDelta(t, 0.1, d.Diff, 1e-12)
	assert.InDelta(t, 0.1-2.776445105*0.187082869, d.Lo, 1e-8)
	assert.InDelta(t, 0.1+2.776445105*0.187082869, d.Hi, 1e-8)
	assert.Equal(t, [2]int{1, 2}, [2]int{d.Behind, d.Ahead})
	assert.Equal(t, compare.Same, d.Verdict)
	assert.InDelta(t, (1+0.5+0+0.5+1)/5.0, d.RateA, 1e-12)
	assert.InDelta(t, (1+1+0.5+0+1)/5.0, d.RateB, 1e-12)
	var only, errored, unscored []string
	for _, p := range d.OnlyA {
		only = append(only, p.Key)
	}
	for _, p := range d.Errored {
		errored = append(errored, p.Key)
	}
	for _, p := range d.Unscored {
		unscored = append(unscored, p.Key)
	}
	assert.Equal(t, []string{"t1/3"}, only)
	assert.Equal(t, []string{"t5/1"}, errored, "an error on one side and no verdict on the other is an error")
	assert.Empty(t, unscored)
	assert.Contains(t, d.Method, "paired t test on the tasks")

	// Without t5 the hand values in the test's comment hold.
	var four []featherbench.Record
	for _, r := range recs {
		if r.Task != "t5" {
			four = append(four, r)
		}
	}
	c, err = compare.FromRuns(&runs.Set{Featherbench: &runs.Featherbench{Records: four}}).Compare("a@"+runA, "b@"+runA)
	require.NoError(t, err)
	d = c.Sections[0]
	assert.InDelta(t, 0.125, d.Diff, 1e-12)
	assert.InDelta(t, -0.6367401, d.Lo, 1e-6)
	assert.InDelta(t, 0.8867401, d.Hi, 1e-6)
	assert.InDelta(t, 0.63762, d.P, 1e-5)
}

// mbResult is a μBench result over three tasks: a two-choice task "t"
// (items per outcome string), a grouped task "g" (two contrast pairs
// a,b and c,d) and the bits-per-byte task "b" (bits per document).
func mbResult(key, run, t, g string, bits []float64) *microbench.Result {
	r := &microbench.Result{Suite: microbench.Name, Run: run, Model: lm.Info{Key: key}, ItemsSHA256: "same",
		Tasks: []microbench.TaskResult{
			{ID: "t", Domain: "D1", Reduction: microbench.Sum},
			{ID: "g", Domain: "D1", Reduction: microbench.Sum, Grouped: true},
			{ID: "b", Domain: "D6", Reduction: microbench.BitsPerByte},
		}}
	item := func(task, id, group string, right byte) microbench.ItemRecord {
		it := microbench.ItemRecord{Task: task, ID: id, Group: group, Gold: 0, Choices: []microbench.ChoiceRecord{{Text: "gold"}, {Text: "other"}}}
		it.Correct = right == 'R'
		if !it.Correct {
			it.Prediction = 1
		}
		return it
	}
	for i := range t {
		r.Items = append(r.Items, item("t", fmt.Sprint("t", i+1), "", t[i]))
	}
	for i, id := range []string{"a", "b", "c", "d"} {
		r.Items = append(r.Items, item("g", id, map[bool]string{true: "g1", false: "g2"}[i < 2], g[i]))
	}
	for i, n := range []int{100, 200, 100} {
		r.Documents = append(r.Documents, microbench.DocumentRecord{Task: "b", ID: fmt.Sprint("doc", i), Bytes: n, Bits: bits[i]})
	}
	return r
}

// TestMicrobenchDifferences: task and domain differences with their
// paired standard errors, by hand.
func TestMicrobenchDifferences(t *testing.T) {
	ra := mbResult("m", runA, "RRRW", "RRRW", []float64{150, 320, 130})
	rb := mbResult("m", runB, "RWWR", "RWRR", []float64{100, 260, 120})
	set := compare.FromRuns(&runs.Set{Microbench: &runs.Microbench{Results: []*microbench.Result{ra, rb}}})
	c, err := set.Compare("m@"+runA, "m@"+runB)
	require.NoError(t, err)
	d := c.Sections[0]
	m := d.Microbench
	require.NotNil(t, m)
	got := map[string]compare.ScoreDiff{}
	for _, s := range m.Tasks {
		got[s.ID] = s
	}
	// t: 4 units at chance .5; A right on 3 (score 50), B on 2 (score 0);
	// differences −1 (twice), +1 and 0: Σd²/n = .75, d̄ = −.25, se of the
	// accuracy difference √((.75 − .0625)/4) = .4145781, times 100/(1 − .5).
	assert.InDelta(t, 50, got["t"].A, 1e-9)
	assert.InDelta(t, 0, got["t"].B, 1e-9)
	assert.InDelta(t, -50, got["t"].Diff, 1e-9)
	assert.InDelta(t, 82.91561976, got["t"].SE, 1e-6)
	// g: two contrast pairs at chance .25; A right on g1 only, B on g2
	// only: both score 100·(.5 − .25)/.75 = 33.33, d = −1, +1: se
	// √(1/2) · 100/.75.
	assert.InDelta(t, 100.0/3, got["g"].A, 1e-9)
	assert.InDelta(t, 0, got["g"].Diff, 1e-9)
	assert.InDelta(t, 94.28090416, got["g"].SE, 1e-6)
	assert.Equal(t, 2, got["g"].Units)
	// b: bpb 600/400 = 1.5 and 480/400 = 1.2: scores 100·ln(2.5/bpb)/ln 5
	// = 31.73938 and 45.60407; residuals r^A = 0, .05, −.05 and r^B = −.05,
	// .05, 0 give u = (100/ln 5)(r^A/1.5 − r^B/1.2) and se = √(3/2·Σu²).
	assert.InDelta(t, 31.73938055, got["b"].A, 1e-6)
	assert.InDelta(t, 45.60406894, got["b"].B, 1e-6)
	assert.InDelta(t, 13.86468839, got["b"].Diff, 1e-6)
	assert.InDelta(t, 4.10974429, got["b"].SE, 1e-6)
	// D1 is the mean of t and g, its se √(se_t² + se_g²)/2; D6 is b alone.
	require.Len(t, m.Domains, 2)
	assert.Equal(t, "D1", m.Domains[0].ID)
	assert.InDelta(t, -25, m.Domains[0].Diff, 1e-9)
	assert.InDelta(t, 62.77716322, m.Domains[0].SE, 1e-6)
	assert.Equal(t, "D6", m.Domains[1].ID)
	assert.Nil(t, m.Index, "four domains have no task: no index")
	// The item statistics count the contrast pair as one unit: t's four
	// items and g's two pairs.
	assert.Equal(t, 6, d.Units)
	assert.Equal(t, "scoring unit", d.Unit)
	assert.Equal(t, stats.Paired{BothRight: 1, OnlyA: 3, OnlyB: 2, BothWrong: 0}, d.Table)

	// An errored half of a pair leaves the pair out of both.
	rb.Items[5].Error, rb.Items[5].Correct = "request failed", false
	set = compare.FromRuns(&runs.Set{Microbench: &runs.Microbench{Results: []*microbench.Result{ra, rb}}})
	c, err = set.Compare("m@"+runA, "m@"+runB)
	require.NoError(t, err)
	d = c.Sections[0]
	assert.Equal(t, 5, d.Units)
	assert.Equal(t, 1, d.Partial)
	assert.Equal(t, 1, d.Microbench.Tasks[1].Units)
	assert.Equal(t, "1 errored, 1 scoring unit incomplete on a side", d.LeftOut())
}

// TestFixtureRuns compares the report fixtures' runs: two models of one
// run in Featherweight, and one model in two runs in μBench, whose paired
// scores over identical items are the recorded ones.
func TestFixtureRuns(t *testing.T) {
	set, err := runs.Load([]string{filepath.Join(fixtures, "runs", runA), filepath.Join(fixtures, "runs", runB)}, runs.Options{})
	require.NoError(t, err)
	s := compare.FromRuns(set)
	var ids []string
	for _, sd := range s.Sides {
		ids = append(ids, sd.ID)
	}
	assert.Equal(t, []string{"alpha@" + runA, "beta@" + runA, "alpha@" + runB, "mb-small@" + runA, "mb-tiny@" + runA, "mb-small@" + runB,
		"tiny@" + runA, "mid@" + runA, "big@" + runA, "local@" + runA, "tiny@" + runB}, ids)

	c, err := s.Compare("mb-small@"+runA, "mb-small@"+runB)
	require.NoError(t, err)
	m := c.Sections[0].Microbench
	ra, rb := set.Microbench.Results[0], set.Microbench.Results[2]
	require.NotNil(t, m.Index)
	assert.InDelta(t, *ra.Index, m.Index.A, 1e-9)
	assert.InDelta(t, *rb.Index, m.Index.B, 1e-9)
	for _, dom := range m.Domains {
		assert.InDelta(t, ra.DomainScores[dom.ID], dom.A, 1e-9, dom.ID)
		assert.InDelta(t, rb.DomainScores[dom.ID], dom.B, 1e-9, dom.ID)
	}
	// Paired, the index difference's error is below the unpaired one.
	assert.Less(t, m.Index.SE, *ra.StandardErrors.Index+*rb.StandardErrors.Index)

	for _, tc := range []struct{ name, a, b string }{
		{"two-models", "alpha@" + runA, "beta@" + runA},
		{"two-runs", "tiny@" + runA, "tiny@" + runB},
		{"microbench", "mb-small@" + runA, "mb-small@" + runB},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := s.Compare(tc.a, tc.b)
			require.NoError(t, err)
			golden(t, "compare-"+tc.name+".md", c.Markdown())
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(fixtures, "golden", name)
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "missing golden file; create it with go test ./harness/report/compare -update")
	assert.Equal(t, string(want), got, "%s differs; if the change is intended, rerun with -update and review the diff", p)
}

func TestCompareErrors(t *testing.T) {
	a, b := table(1, 1, 1, 1)
	set := compare.FromRuns(&runs.Set{
		Featherweight: &runs.Featherweight{Runs: []runs.FeatherweightRun{fwRun(runA, map[string]map[string]byte{"alpha": a, "beta": b})}},
		Featherbench:  &runs.Featherbench{Records: []featherbench.Record{fbRecord("tiny", "t1", 1, 'P')}},
	})
	for _, tc := range []struct{ a, b, want string }{
		{"alpha@" + runA, "gamma@" + runA, "no results of gamma@" + runA + "; the runs hold alpha@" + runA + ", beta@" + runA + ", tiny@" + runA},
		{"alpha@" + runA, "alpha@" + runA, "alpha@" + runA + " is compared with itself; name two models, or one model in two runs"},
		{"alpha@" + runA, "tiny@" + runA, "alpha and tiny have no suite in common: Featherweight · plain: only alpha has results; Featherbench: only tiny has results"},
	} {
		_, err := set.Compare(tc.a, tc.b)
		assert.EqualError(t, err, tc.want)
	}
	assert.True(t, strings.HasPrefix(compare.FormatP(0.00001), "<"))
}

// TestShort: Short is the whole text with its whitespace collapsed, cut
// to n runes with an ellipsis, whatever the text.
func TestShort(t *testing.T) {
	want := func(s string, n int) string {
		s = strings.Join(strings.Fields(s), " ")
		if r := []rune(s); len(r) > n {
			return string(r[:n-1]) + "…"
		}
		return s
	}
	texts := []string{"", " ", "abc", "  a  b\n\tc  ", "exactly10!", "exactly10! ", "exactly 10", "héllo wörld, ça va?", strings.Repeat("word ", 40), "a b c d e f"}
	for _, s := range texts {
		for n := 1; n <= 12; n++ {
			assert.Equal(t, want(s, n), compare.Short(s, n), "%q, %d", s, n)
		}
	}
}
