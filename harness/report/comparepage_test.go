package report_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/feather-eval/feather/internal/plural"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pageJSON is a page's data element (id) decoded.
func pageJSON(t *testing.T, page, id string, v any) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="` + id + `">(.*?)</script>`).FindStringSubmatch(page)
	require.NotNil(t, m, "no plain JSON element %s", id)
	require.NoError(t, json.Unmarshal([]byte(m[1]), v))
}

// TestComparePageData: the Compare page carries every side, every pair
// that shares a suite with feather compare's own statistics, and every
// item once with each side's outcome; the records for the drill-down
// come after the script.
func TestComparePageData(t *testing.T) {
	set := loadRuns(t, runA, runB)
	cs := compare.FromRuns(set)
	var b strings.Builder
	require.NoError(t, report.ComparePage(&b, cs, report.PageOptions{}))
	page := b.String()
	var d struct {
		Sides    []struct{ ID, Label string }
		Sections []struct{ ID, Label string }
		Pairs    map[string]struct {
			Sections []struct {
				Section                           int
				Units, Diff, P, Verdict, Left_out string
			}
		}
		Default [2]int
		Items   [][]any
	}
	pageJSON(t, page, "feather-data", &d)
	require.Len(t, d.Sides, len(cs.Sides))
	assert.Equal(t, [2]int{0, 2}, d.Default, "one model in two runs: alpha in both")
	// Pairs: both orders of every two sides of one suite (3 sides each in
	// Featherweight and μBench, 5 in Featherbench).
	assert.Len(t, d.Pairs, 3*2+3*2+5*4)
	for key, p := range d.Pairs {
		var i, j int
		_, err := fmt.Sscanf(key, "%d,%d", &i, &j)
		require.NoError(t, err)
		c, err := cs.Compare(cs.Sides[i].ID, cs.Sides[j].ID)
		require.NoError(t, err)
		require.Len(t, p.Sections, len(c.Sections), key)
		for k, s := range c.Sections {
			got := p.Sections[k]
			assert.Equal(t, []string{s.Label, plural.Of(s.Units, s.Unit), s.DiffText(), compare.FormatP(s.P), string(s.Verdict), s.LeftOut()},
				[]string{d.Sections[got.Section].Label, got.Units, got.Diff, got.P, got.Verdict, got.Left_out}, key)
		}
	}
	n := 0
	for _, sec := range cs.Sections {
		n += len(sec.Keys)
	}
	require.Len(t, d.Items, n)
	first := d.Items[0]
	key := first[1].(string)
	codes := first[2].(string)
	for i, sd := range cs.Sides {
		it := cs.Sections[0].Item(sd.ID, key)
		want := byte('-')
		if it != nil {
			want = map[compare.Outcome]byte{compare.Right: 'R', compare.Wrong: 'W', compare.Error: 'E', compare.Unscored: 'U'}[it.Outcome]
		}
		assert.Equal(t, string(want), codes[i:i+1], sd.ID)
	}
	// The drill-down's records follow the script, one per item.
	script := strings.Index(page, "<script>")
	detail := strings.Index(page, `id="feather-detail"`)
	assert.Greater(t, detail, script)
	var det struct {
		Fields map[string][]string
		Items  [][]json.RawMessage
	}
	pageJSON(t, page, "feather-detail", &det)
	assert.Len(t, det.Items, n)
	assert.Equal(t, []string{"reply", "letter", "rule", "answer", "prompt_sent", "error", "stop_reason"}, det.Fields["featherweight"])
}

// TestMergeFeatherbenchKeepsRunsApart: the same model in two runs is two
// models, labelled by run; the shards of one run, one run id, stay one.
func TestMergeFeatherbenchKeepsRunsApart(t *testing.T) {
	set := loadRuns(t, runA, runB)
	count := map[string]int{}
	for _, r := range report.MergeFeatherbench(set.Featherbench) {
		count[r.Model]++
	}
	assert.Equal(t, map[string]int{"tiny (" + runA + ")": 14, "tiny (" + runB + ")": 14, "mid": 14, "big": 14, "local": 14}, count)
	one := loadRuns(t, runA)
	for _, r := range report.MergeFeatherbench(one.Featherbench) {
		assert.NotContains(t, r.Model, "(")
	}
}

// TestOverview: the overview shows every suite's headline numbers for
// every model, each row a link to its items, and the comparisons to make.
func TestOverview(t *testing.T) {
	out := t.TempDir()
	_, err := report.Build(report.Options{RunDirs: []string{fixtureRun(runA), fixtureRun(runB)}, Events: filepath.Join(fixtures, "tests", "test-events.json"),
		TasksDir: filepath.Join(fixtures, "tasks"), Out: out})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	page := string(b)
	for _, want := range []string{
		`<td><a href="featherbench.html#m=2">mid</a></td><td class="num">100% [72–100]</td><td class="num">$0.002000</td>`,
		`<td><a href="featherbench.html#m=4">tiny (20260705T090000Z)</a></td><td class="num">55% [28–79]</td>`,
		`<td><a href="featherweight.html">Beta 135M Instruct</a></td><td class="num">57.0% [47.2–66.3]*</td><td class="num">47.0% [37.5–56.7]*</td>`,
		`<td><a href="microbench.html#m=0">Small 50M (20260704T101530Z)</a></td><td class="num">72.77 ± 4.65</td><td class="num">51.8M</td>`,
		`<td><a href="microbench.html#m=2">Small 50M (20260705T090000Z)</a></td><td class="num">≈ 69.42 ± 4.93</td>`,
		`<span class="badge b-fail">5 failed</span>`,
		`<a href="compare.html#a=alpha%4020260704T101530Z&amp;b=alpha%4020260705T090000Z">alpha: run 20260705T090000Z against 20260704T101530Z</a>`,
		`<a href="compare.html#a=alpha%4020260704T101530Z&amp;b=beta%4020260704T101530Z">beta against alpha (run 20260704T101530Z)</a>`,
	} {
		assert.Contains(t, page, want)
	}
	// Ranked by pass rate, as the leaderboard.
	assert.Less(t, strings.Index(page, ">big</a>"), strings.Index(page, ">local</a>"))
}

// TestTestsPageLinks: a failed suite test links to its item on the
// suite's page, and a failing gate to each item it names as regressed.
func TestTestsPageLinks(t *testing.T) {
	all := map[string]bool{report.FeatherweightName: true, report.MicrobenchName: true, report.FeatherbenchName: true}
	for _, tt := range []struct {
		name   string
		test   gotest.Test
		pages  map[string]bool
		hrefs  []string
		labels []string
	}{
		{"a Featherweight item", gotest.Test{Name: "TestFeatherweight/gpt2/plain/geo07"}, all, []string{"featherweight.html#q=geo07"}, []string{"geo07"}},
		{"a μBench item", gotest.Test{Name: "TestMicrobench/m/agreement/agreement-003"}, all, []string{"microbench.html#q=agreement%2Fagreement-003"}, []string{"agreement/agreement-003"}},
		{"a Featherbench trial", gotest.Test{Name: "TestFeatherbench/m/data-total/2"}, all, []string{"featherbench.html#q=data-total"}, []string{"data-total/2"}},
		{"a gate", gotest.Test{Name: "TestFeatherweight/gpt2/plain/gate", Output: "    gate.go:1: gate: featherweight gpt2/plain: 3 items regressed and 0 improved since the baseline x (plain): a significant drop (exact McNemar test, one-sided, p = 0.04 < 0.05). Regressed: geo07, his02, sci10\n"},
			all, []string{"featherweight.html#q=geo07", "featherweight.html#q=his02", "featherweight.html#q=sci10"}, []string{"geo07", "his02", "sci10"}},
		{"a gate with more than it lists", gotest.Test{Name: "TestMicrobench/m/gate", Output: "Regressed: a/1, b/2 and 30 more\n"}, all,
			[]string{"microbench.html#q=a%2F1", "microbench.html#q=b%2F2"}, []string{"a/1", "b/2"}},
		{"no page for the suite", gotest.Test{Name: "TestFeatherweight/gpt2/plain/geo07"}, map[string]bool{report.MicrobenchName: true}, nil, nil},
		{"not a suite's test", gotest.Test{Name: "TestSomething/else/entirely"}, all, nil, nil},
		{"a model, not an item", gotest.Test{Name: "TestFeatherweight/gpt2/plain"}, all, nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var hrefs, labels []string
			for _, l := range report.ItemLinks(tt.test, tt.pages) {
				hrefs, labels = append(hrefs, l.Href), append(labels, l.Label)
			}
			assert.Equal(t, tt.hrefs, hrefs)
			assert.Equal(t, tt.labels, labels)
		})
	}
}

// TestDisagreeFlags: the per-suite pages mark, row by row, what their
// "Models disagree" filter keeps: a Featherbench trial of a task whose
// models did not all pass the same share of their trials, a μBench item
// the results did not all answer with the same choice.
func TestDisagreeFlags(t *testing.T) {
	set := loadRuns(t, runA, runB)
	recs := report.MergeFeatherbench(set.Featherbench)
	var b strings.Builder
	require.NoError(t, report.FeatherbenchPage(&b, recs, set.Featherbench.Tasks, report.PageOptions{}))
	var fb struct {
		Fields []string
		Tasks  []struct{ ID string }
		Models []string
		Trials [][]json.RawMessage
	}
	pageJSON(t, b.String(), "feather-data", &fb)
	col := map[string]int{}
	for i, f := range fb.Fields {
		col[f] = i
	}
	// By hand from the records: each task's per-model share of passes.
	type tally struct{ passed, scored, errors int }
	by := map[string]map[string]*tally{}
	for _, r := range recs {
		if by[r.Task] == nil {
			by[r.Task] = map[string]*tally{}
		}
		if by[r.Task][r.Model] == nil {
			by[r.Task][r.Model] = &tally{}
		}
		tl := by[r.Task][r.Model]
		switch {
		case r.Error != nil:
			tl.errors++
		case r.Passed != nil:
			tl.scored++
			if *r.Passed {
				tl.passed++
			}
		}
	}
	want := map[string]bool{}
	for task, models := range by {
		seen := map[string]bool{}
		for _, tl := range models {
			switch {
			case tl.scored > 0:
				seen[fmt.Sprint(float64(tl.passed)/float64(tl.scored))] = true
			case tl.errors > 0:
				seen["error"] = true
			default:
				seen["none"] = true
			}
		}
		want[task] = len(seen) > 1
	}
	require.Contains(t, want, "data-total")
	flagged := 0
	for _, row := range fb.Trials {
		var task int
		var disagree bool
		require.NoError(t, json.Unmarshal(row[col["task"]], &task))
		require.NoError(t, json.Unmarshal(row[col["disagree"]], &disagree))
		assert.Equal(t, want[fb.Tasks[task].ID], disagree, fb.Tasks[task].ID)
		if disagree {
			flagged++
		}
	}
	assert.NotZero(t, flagged)
	assert.Less(t, flagged, len(fb.Trials))

	b.Reset()
	require.NoError(t, report.MicrobenchPage(&b, set.Microbench.Results, report.PageOptions{}))
	var mb struct {
		Fields []string
		Items  [][]json.RawMessage
	}
	pageJSON(t, b.String(), "feather-data", &mb)
	col = map[string]int{}
	for i, f := range mb.Fields {
		col[f] = i
	}
	chose := map[string]map[int]bool{}
	for _, r := range set.Microbench.Results {
		for _, it := range r.Items {
			k := it.Task + "/" + it.ID
			if chose[k] == nil {
				chose[k] = map[int]bool{}
			}
			chose[k][it.Prediction] = true
		}
	}
	flagged = 0
	for _, row := range mb.Items {
		var task, id string
		var disagree bool
		require.NoError(t, json.Unmarshal(row[col["task"]], &task))
		require.NoError(t, json.Unmarshal(row[col["id"]], &id))
		require.NoError(t, json.Unmarshal(row[col["disagree"]], &disagree))
		assert.Equal(t, len(chose[task+"/"+id]) > 1, disagree, task+"/"+id)
		if disagree {
			flagged++
		}
	}
	assert.NotZero(t, flagged)
}
