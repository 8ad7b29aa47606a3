package report_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// golden compares got with testdata/report/golden/name, or rewrites it
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join(fixtures, "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "missing golden file; create it with go test ./harness/report -update")
	assert.Equal(t, string(want), got, "%s differs; if the change is intended, rerun with -update and review the diff", p)
}

func loadRuns(t *testing.T, stamps ...string) *runs.Set {
	t.Helper()
	var dirs []string
	for _, s := range stamps {
		dirs = append(dirs, fixtureRun(s))
	}
	set, err := runs.Load(dirs, runs.Options{TasksDir: filepath.Join(fixtures, "tasks")})
	require.NoError(t, err)
	return set
}

// TestMarkdownGolden: each suite's Markdown for the first fixture run, and
// the test run's, as committed.
func TestMarkdownGolden(t *testing.T) {
	set := loadRuns(t, runA)
	events, err := gotest.ReadEvents(filepath.Join(fixtures, "tests", "test-events.json"))
	require.NoError(t, err)
	events.Source = "test-events.json"
	fwData, fwResults, fwWarn := report.MergeFeatherweight(set.Featherweight)
	fw, err := report.FeatherweightMarkdown(fwData, fwResults, fwWarn)
	require.NoError(t, err)
	for name, md := range map[string]string{
		"featherbench.md":  report.FeatherbenchMarkdown(set.Featherbench.Records, set.Featherbench.Categories()),
		"featherweight.md": fw,
		"microbench.md":    report.MicrobenchMarkdown(set.Microbench.Results),
		"tests.md":         report.TestsMarkdown(events),
	} {
		t.Run(name, func(t *testing.T) { golden(t, name, md) })
	}
}

// TestFeatherweightMergeKeepsRunsApart: the same model in two runs is two
// rows, labelled by run.
func TestFeatherweightMergeKeepsRunsApart(t *testing.T) {
	set := loadRuns(t, runA, runB)
	_, results, warnings := report.MergeFeatherweight(set.Featherweight)
	var keys, names []string
	for _, r := range results {
		keys = append(keys, r.Model.Key)
		names = append(names, r.Model.Name)
	}
	assert.Equal(t, []string{"alpha@" + runA, "beta", "alpha@" + runB}, keys)
	assert.Equal(t, []string{"Alpha 82M (" + runA + ")", "Beta 135M Instruct", "Alpha 82M (" + runB + ")"}, names)
	assert.Empty(t, warnings)
}

func TestFrontier(t *testing.T) {
	p := func(m string, rate, cost float64) report.CostPoint {
		return report.CostPoint{Model: m, PassRate: rate, CostPerTask: cost}
	}
	tests := []struct {
		name   string
		points []report.CostPoint
		want   []string
	}{
		{"none", nil, nil},
		{"dominated middle", []report.CostPoint{p("big", 0.9, 0.03), p("tiny", 0.4, 0.0001), p("mid", 0.35, 0.002)}, []string{"tiny", "big"}},
		{"staircase", []report.CostPoint{p("a", 0.5, 1), p("b", 0.6, 2), p("c", 0.7, 3)}, []string{"a", "b", "c"}},
		{"equal cost keeps the better", []report.CostPoint{p("a", 0.5, 1), p("b", 0.6, 1)}, []string{"b"}},
		{"equal cost and rate keeps the first name", []report.CostPoint{p("z", 0.5, 1), p("a", 0.5, 1)}, []string{"a"}},
		{"equal rate keeps the cheaper", []report.CostPoint{p("dear", 0.5, 2), p("cheap", 0.5, 1)}, []string{"cheap"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, i := range report.Frontier(tt.points) {
				got = append(got, tt.points[i].Model)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestBuild writes every page for both fixture runs and the test events,
// and checks what makes a page safe to open from disk.
func TestBuild(t *testing.T) {
	out := t.TempDir()
	written, err := report.Build(report.Options{
		RunDirs:  []string{fixtureRun(runA), fixtureRun(runB)},
		Events:   filepath.Join(fixtures, "tests", "test-events.json"),
		TasksDir: filepath.Join(fixtures, "tasks"),
		Out:      out,
	})
	require.NoError(t, err)
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	assert.Equal(t, []string{"compare.html", "compare.md", "featherbench.html", "featherbench.md", "featherweight.html", "featherweight.md", "index.html",
		"microbench.html", "microbench.md", "tests.html", "tests.md"}, names)

	scriptRE := regexp.MustCompile(`(?s)<script>(.*?)</script>`)
	cspRE := regexp.MustCompile(`script-src 'sha256-([^']+)'`)
	for _, name := range names {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(out, name))
			require.NoError(t, err)
			page := string(b)
			// Nothing is fetched: the only URL is the SVG namespace.
			for _, m := range regexp.MustCompile(`(?i)(?:src|href)\s*=\s*"([^"#]*)"`).FindAllStringSubmatch(page, -1) {
				assert.Regexp(t, `^[a-z]+\.(?:html|md)$`, m[1], "only links to sibling report files")
			}
			assert.NotContains(t, page, "https://")
			assert.NotRegexp(t, `http://(?:[^w]|w[^w])`, page)
			// The one executable script is the one the policy pins.
			scripts := scriptRE.FindAllStringSubmatch(page, -1)
			csp := cspRE.FindStringSubmatch(html.UnescapeString(page))
			require.NotNil(t, csp)
			if name == "index.html" {
				assert.Empty(t, scripts)
				return
			}
			require.Len(t, scripts, 1)
			sum := sha256.Sum256([]byte(scripts[0][1]))
			assert.Equal(t, base64.StdEncoding.EncodeToString(sum[:]), csp[1])
			// Response text never reaches the page as markup.
			assert.NotContains(t, page, "<script>alert")
			assert.NotContains(t, page, "<b>which</b>")
		})
	}
	fb, err := os.ReadFile(filepath.Join(out, "featherbench.html"))
	require.NoError(t, err)
	assert.Contains(t, string(fb), `\u003cscript\u003ealert('x')\u003c/script\u003e`, "the response is in the data, escaped")
	// The overview's lines are the summaries' first lines as HTML, not raw Markdown.
	idx, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.Contains(t, string(idx), "(<code>featherweight.jsonl</code>, sha256 ")
	assert.NotContains(t, string(idx), "`")
}

// TestBuildErrors: bad input names what is wrong and how to fix it, and
// leaves an existing report alone.
func TestBuildErrors(t *testing.T) {
	empty := t.TempDir()
	badJSONL := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(badJSONL, "featherbench"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(badJSONL, "featherbench", "results-x.jsonl"), []byte("{\"task\":\"t\",\"model\":\"m\"}\nnot json\n"), 0o644))
	badEvents := filepath.Join(t.TempDir(), "events.json")
	require.NoError(t, os.WriteFile(badEvents, []byte("{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T\"}\nPASS\n{\"Action\":\"pass\"}\n"), 0o644))
	tests := []struct {
		name string
		o    report.Options
		want string
	}{
		{"nothing", report.Options{Out: "x"}, "report: nothing to report; give run directories, test events or JUnit"},
		{"not a run", report.Options{RunDirs: []string{empty}, Out: "x"}, empty + " holds no results: a run directory has a featherweight/, microbench/ or featherbench/ subdirectory; pass results/latest or results/<stamp>"},
		{"missing dir", report.Options{RunDirs: []string{filepath.Join(empty, "nope")}, Out: "x"}, "run directory " + filepath.Join(empty, "nope") + ": lstat " + filepath.Join(empty, "nope") + ": no such file or directory"},
		{"bad record", report.Options{RunDirs: []string{badJSONL}, Out: "x"}, filepath.Join(badJSONL, "featherbench", "results-x.jsonl") + ":2: not a Featherbench record: invalid character 'o' in literal null (expecting 'u')"},
		{"bad events", report.Options{Events: badEvents, Out: "x"}, badEvents + ":2: not a go test -json event (write the file with gotestsum --jsonfile or go test -json): \"PASS\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			keep := filepath.Join(out, "featherbench.html")
			require.NoError(t, os.WriteFile(keep, []byte("previous"), 0o644))
			tt.o.Out = out
			_, err := report.Build(tt.o)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			b, err := os.ReadFile(keep)
			require.NoError(t, err)
			assert.Equal(t, "previous", string(b))
		})
	}
}

// TestWriteFeatherbenchReport writes the suite's report-<stamp>.html from
// records and task files, as a run's Finish hook would.
func TestWriteFeatherbenchReport(t *testing.T) {
	set := loadRuns(t, runA)
	var tasks []featherbench.Task
	for _, task := range set.Featherbench.Tasks {
		tasks = append(tasks, task)
	}
	p := filepath.Join(t.TempDir(), "report-"+runA+".html")
	require.NoError(t, report.WriteFeatherbenchReport(p, set.Featherbench.Records, tasks))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	page := string(b)
	for _, want := range []string{`<p class="sub">run ` + runA + `</p>`, `Categories and prompts come from the task files.`, `"prompt":"How many hearts does an octopus have?"`} {
		assert.True(t, strings.Contains(page, want), "the page has %s", want)
	}
}

// TestFeatherbenchUnsupported: a trial the backend cannot serve is an
// error marked X in the per-task grid, on the page as in the Markdown.
func TestFeatherbenchUnsupported(t *testing.T) {
	pass := true
	unsupported := featherbench.UnsupportedPrefix + "tools on a local model"
	other := "503 upstream unavailable"
	recs := []featherbench.Record{
		{RunID: runA, Task: "tool-use-weather", Model: "local", Trial: 1, Passed: &pass},
		{RunID: runA, Task: "tool-use-weather", Model: "local", Trial: 2, Error: &unsupported},
		{RunID: runA, Task: "tool-use-weather", Model: "local", Trial: 3, Error: &other},
	}
	const cell = "1 / 1 (2E 1X)"
	assert.Contains(t, report.FeatherbenchMarkdown(recs, nil), "| tool-use-weather | (none) | "+cell+" |")
	var page strings.Builder
	require.NoError(t, report.FeatherbenchPage(&page, recs, nil, report.PageOptions{}))
	assert.Contains(t, page.String(), `<td class="num">`+cell+`</td>`)
}
