package report_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findBrowser returns Chromium's path: $CHROME, or the first of the usual
// names on PATH.
func findBrowser() string {
	for _, name := range []string{os.Getenv("CHROME"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium with a fresh profile; problems collects
// every console error, uncaught exception, error log entry and dialog.
type browser struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T) *browser {
	bin := findBrowser()
	if bin == "" {
		t.Skip("no Chromium found: run scripts/browser-deps.sh (it installs Debian's chromium with apt-get as root or with sudo), or set CHROME to a Chromium binary")
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	)
	t.Cleanup(cancelAlloc) // stops Chromium and waits for it to exit
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: ctx}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				p = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
			}
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				p += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				p = "log error (" + string(ev.Entry.Source) + "): " + ev.Entry.Text
			}
		case *page.EventJavascriptDialogOpening:
			p = "a dialog opened: " + ev.Message
		}
		if p != "" {
			b.mu.Lock()
			b.problems = append(b.problems, p)
			b.mu.Unlock()
		}
	}))
	return b
}

func (b *browser) open(path string) {
	b.t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(b.t, err)
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.Navigate("file://"+abs)))
	_, err = chromedp.Run(b.ctx, chromedp.Poll[bool](`document.readyState === "complete" && (!document.getElementById("feather-data") || document.body.getAttribute("data-ready") === "true")`,
		chromedp.WithPollingTimeout(60*time.Second)))
	require.NoError(b.t, err)
}

func (b *browser) eval(js string) {
	b.t.Helper()
	_, err := chromedp.Run(b.ctx, chromedp.Evaluate[chromedp.Void](js))
	require.NoError(b.t, err, js)
}

func (b *browser) count(sel string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
	require.NoError(b.t, err)
	return n
}

func (b *browser) text(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	require.NoError(b.t, err, js)
	return s
}

// expectRows waits (the search box applies after a short pause) until sel
// matches want elements, then asserts the count, so a wrong count fails
// with the number seen.
func (b *browser) expectRows(what, sel string, want int) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll(%q).length === %d`, sel, want)))
	assert.Equal(b.t, want, b.count(sel), what)
}

func (b *browser) filter(name string) {
	b.eval(fmt.Sprintf(`document.querySelector('#controls button[data-filter=%q]').click()`, name))
}

// search types q and presses Enter, which applies it at once (typing alone
// applies after a pause).
func (b *browser) search(q string) {
	b.t.Helper()
	b.eval(`document.getElementById("search").value = ""`)
	require.NoError(b.t, chromedp.Do(b.ctx, chromedp.SendKeys(chromedp.ID("search"), q+"\r")))
}

func (b *browser) screenshot(name, scrollTo string) {
	b.t.Helper()
	if !*update {
		return
	}
	if scrollTo != "" {
		b.eval(fmt.Sprintf(`document.querySelector(%q).scrollIntoView()`, scrollTo))
	} else {
		b.eval(`window.scrollTo(0, 0)`)
	}
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	require.NoError(b.t, err)
	require.NoError(b.t, os.WriteFile(filepath.Join("..", "..", "docs", name), png, 0o644))
}

func (b *browser) noProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Empty(b.t, b.problems, "console errors, exceptions or dialogs")
	b.problems = nil
}

// TestBrowser opens every page of a report on both fixture runs and the
// test events from disk in Chromium: no console errors or exceptions, and
// each filter, search and control shows exactly the rows the data says.
// With -update it also refreshes the screenshots in docs/.
func TestBrowser(t *testing.T) {
	b := newBrowser(t)
	out := t.TempDir()
	_, err := report.Build(report.Options{
		RunDirs:  []string{fixtureRun(runA), fixtureRun(runB)},
		Events:   filepath.Join(fixtures, "tests", "test-events.json"),
		TasksDir: filepath.Join(fixtures, "tasks"),
		Out:      out,
	})
	require.NoError(t, err)
	set := loadRuns(t, runA, runB)

	t.Run("index", func(t *testing.T) {
		b.t = t
		b.open(filepath.Join(out, "index.html"))
		assert.Equal(t, 5, b.count("ul.index li"))
		b.noProblems()
	})

	t.Run("featherbench", func(t *testing.T) {
		b.t = t
		recs := set.Featherbench.Records
		want := func(keep func(r featherbench.Record) bool) int {
			n := 0
			for _, r := range recs {
				if keep(r) {
					n++
				}
			}
			return n
		}
		has := func(q string) func(r featherbench.Record) bool {
			return func(r featherbench.Record) bool {
				s := r.Text
				if len(r.ToolCalls) > 0 {
					calls, _ := json.Marshal(r.ToolCalls)
					s += string(calls)
				}
				return strings.Contains(strings.ToLower(s), q)
			}
		}
		b.open(filepath.Join(out, "featherbench.html"))
		b.screenshot("report-featherbench.png", "")
		const rows = "#rows tr.trial"
		b.expectRows("all", rows, len(recs))
		assert.Equal(t, 7, b.count("#rows tr.task"), "one header per task")
		for _, f := range []struct {
			name string
			keep func(r featherbench.Record) bool
		}{
			{"notpassed", func(r featherbench.Record) bool { return r.Passed == nil || !*r.Passed }},
			{"fail", func(r featherbench.Record) bool { return r.Error == nil && r.Passed != nil && !*r.Passed }},
			{"refused", func(r featherbench.Record) bool { return r.Refusal }},
			{"error", func(r featherbench.Record) bool { return r.Error != nil }},
			{"all", func(featherbench.Record) bool { return true }},
		} {
			b.filter(f.name)
			b.expectRows(f.name, rows, want(f.keep))
		}
		b.search("chickpea")
		b.expectRows("search chickpea", rows, want(has("chickpea")))
		b.search("paris")
		b.expectRows("search paris (text and tool calls)", rows, want(has("paris")))
		b.filter("fail")
		b.expectRows("paris among fails", rows, want(func(r featherbench.Record) bool {
			return has("paris")(r) && r.Error == nil && r.Passed != nil && !*r.Passed
		}))
		b.filter("all")
		b.search("")
		b.eval(`var m = document.getElementById("model"); m.value = [...m.options].find(o => o.text === "tiny (` + runA + `)").value; m.dispatchEvent(new Event("change"))`)
		b.filter("fail")
		b.expectRows("tiny's fails in the first run", rows, want(func(r featherbench.Record) bool {
			return r.Model == "tiny" && r.RunID == runA && r.Error == nil && r.Passed != nil && !*r.Passed
		}))
		b.eval(`var m = document.getElementById("model"); m.value = ""; m.dispatchEvent(new Event("change"))`)
		b.filter("all")

		// Markup in a response is shown as text, one click away.
		b.search("alert(")
		b.expectRows("search alert(", rows, want(has("alert(")))
		b.eval(`document.querySelector("#rows tr.trial td.snippet").click()`)
		assert.Equal(t, 1, b.count("#rows tr.detail"))
		assert.Contains(t, b.text(`document.querySelector("#rows tr.detail").textContent`), "<script>alert('x')</script>")
		assert.Zero(t, b.count("#rows script, #rows b, #rows i"), "no element made from a response")
		b.search("")

		// The bar picks the cheapest model whose pass rate clears it.
		s := featherbench.Summarize(report.MergeFeatherbench(set.Featherbench), set.Featherbench.Categories())
		cheapest := func(bar float64, lower bool) string {
			best, cost, bestRate := "", 0.0, 0.0
			for _, m := range s.Models {
				rate := m.PassRate
				if lower {
					rate = m.Lo
				}
				if m.Scored == 0 || m.CostPerTaskUSD == nil || rate < bar {
					continue
				}
				// At equal cost the better pass rate wins, as the page picks.
				if best == "" || *m.CostPerTaskUSD < cost || (*m.CostPerTaskUSD == cost && m.PassRate > bestRate) {
					best, cost, bestRate = m.Model, *m.CostPerTaskUSD, m.PassRate
				}
			}
			return best
		}
		for _, c := range []struct {
			bar   int
			lower bool
		}{{30, false}, {90, false}, {60, true}, {99, true}} {
			b.eval(fmt.Sprintf(`var l = document.getElementById("bar-lower"); if (l.checked !== %t) l.click(); var r = document.getElementById("bar"); r.value = %d; r.dispatchEvent(new Event("input"))`, c.lower, c.bar))
			name := cheapest(float64(c.bar)/100, c.lower)
			got := b.text(`(document.querySelector("g.point.cheapest") || {getAttribute: () => ""}).getAttribute("data-model")`)
			assert.Equal(t, name, got, "bar %d%%, lower bound %v", c.bar, c.lower)
			if name != "" {
				assert.Contains(t, b.text(`document.getElementById("bar-result").textContent`), "clearing "+fmt.Sprint(c.bar)+"%: "+name+" ")
				assert.Equal(t, 1, b.count(`tr.cheapest[data-model="`+name+`"]`))
			} else {
				assert.Zero(t, b.count("tr.cheapest"))
			}
		}
		b.eval(`var l = document.getElementById("bar-lower"); if (l.checked) l.click(); var r = document.getElementById("bar"); r.value = 80; r.dispatchEvent(new Event("input"))`)
		b.filter("fail")
		b.eval(`document.querySelectorAll("#rows tr.trial td.snippet")[0].click()`)
		b.screenshot("report-featherbench-review.png", "#review")
		b.noProblems()
	})

	t.Run("featherweight", func(t *testing.T) {
		b.t = t
		type item struct {
			letters                  map[string]bool
			miss, parse, err, search bool
		}
		items := map[string]*item{}
		for _, r := range set.Featherweight.Runs {
			for _, m := range r.Results {
				for _, rec := range m.Records {
					it := items[rec.ID]
					if it == nil {
						it = &item{letters: map[string]bool{}}
						items[rec.ID] = it
					}
					it.letters[rec.Letter] = true
					it.miss = it.miss || !rec.Correct
					it.parse = it.parse || rec.ParseError
					it.err = it.err || rec.Error != ""
					it.search = it.search || strings.Contains(strings.ToLower(rec.Reply), "which")
				}
			}
		}
		want := func(keep func(*item) bool) int {
			n := 0
			for _, it := range items {
				if keep(it) {
					n++
				}
			}
			return n
		}
		b.open(filepath.Join(out, "featherweight.html"))
		b.screenshot("report-featherweight.png", "")
		const rows = "#rows tr.item"
		b.expectRows("all", rows, len(items))
		assert.Equal(t, 6*len(items), b.count("#rows td.cell"), "three model runs × two styles per item")
		for _, f := range []struct {
			name string
			keep func(*item) bool
		}{
			{"wrong", func(it *item) bool { return it.miss }},
			{"parse", func(it *item) bool { return it.parse }},
			{"disagree", func(it *item) bool { return len(it.letters) > 1 }},
			{"error", func(it *item) bool { return it.err }},
			{"all", func(*item) bool { return true }},
		} {
			b.filter(f.name)
			b.expectRows(f.name, rows, want(f.keep))
		}
		b.search("which")
		b.expectRows("search which", rows, want(func(it *item) bool { return it.search }))
		b.eval(`document.querySelector("#rows td.c-parse").click()`)
		assert.Contains(t, b.text(`document.getElementById("fw-detail").textContent`), "I am not sure <b>which</b> one & why.")
		assert.Zero(t, b.count("#fw-detail b"))
		b.search("")
		b.expectRows("cleared search", rows, len(items))
		b.noProblems()
	})

	t.Run("microbench", func(t *testing.T) {
		b.t = t
		all, wrong := 0, 0
		for _, r := range set.Microbench.Results {
			for _, it := range r.Items {
				all++
				if !it.Correct && it.Error == "" {
					wrong++
				}
			}
		}
		b.open(filepath.Join(out, "microbench.html"))
		b.screenshot("report-microbench.png", "")
		const rows = "#rows tr.mbitem"
		b.expectRows("first page", rows, min(200, all))
		b.eval(`document.getElementById("more").click()`)
		b.expectRows("second page", rows, min(400, all))
		b.eval(`document.getElementById("more").click()`)
		b.expectRows("third page", rows, min(600, all))
		b.filter("wrong")
		b.expectRows("wrong", rows, min(200, wrong))
		b.filter("all")
		b.search("agreement/")
		b.expectRows("one task", rows, 3*8)
		b.search("")
		b.noProblems()
	})

	t.Run("tests", func(t *testing.T) {
		b.t = t
		// Count outcomes straight from the event file.
		f, err := os.Open(filepath.Join(fixtures, "tests", "test-events.json"))
		require.NoError(t, err)
		defer f.Close()
		status := map[string]string{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var e struct{ Action, Package, Test string }
			require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
			if e.Test == "" {
				continue
			}
			switch e.Action {
			case "run":
				status[e.Package+" "+e.Test] = "unfinished"
			case "pass", "fail", "skip":
				status[e.Package+" "+e.Test] = e.Action
			}
		}
		count := func(s string) int {
			n := 0
			for _, v := range status {
				if v == s {
					n++
				}
			}
			return n
		}
		b.open(filepath.Join(out, "tests.html"))
		b.screenshot("report-tests.png", "")
		const rows = "#rows tr.test"
		b.expectRows("all", rows, len(status))
		for _, s := range []string{"fail", "skip", "pass", "unfinished"} {
			b.filter(s)
			b.expectRows(s, rows, count(s))
		}
		b.filter("all")
		b.search("geo0")
		b.expectRows("search geo0", rows, 3)
		b.noProblems()
	})

	t.Run("100k trials render lazily", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: skips building and opening a 50 MB page")
		}
		b.t = t
		recs, _ := manyRecords(100_000)
		p := filepath.Join(t.TempDir(), "featherbench.html")
		f, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, report.FeatherbenchPage(f, recs, nil, report.PageOptions{}))
		require.NoError(t, f.Close())
		start := time.Now()
		b.open(p)
		info, err := os.Stat(p)
		require.NoError(t, err)
		t.Logf("opened 100,000 trials (%.1f MB) in %s", float64(info.Size())/1e6, time.Since(start).Round(time.Millisecond))
		t.Log(b.text(`(function(){var n=performance.getEntriesByType("navigation")[0]; return "responseEnd " + n.responseEnd + " domInteractive " + n.domInteractive + " loadEnd " + n.loadEventEnd + " ready " + performance.getEntriesByName("feather-ready")[0].startTime})()`))
		assert.Equal(t, "gzip+base64", b.text(`document.getElementById("feather-data").getAttribute("data-encoding")`))
		const rows = "#rows tr.trial"
		b.expectRows("first page only", rows, 200)
		assert.Equal(t, "Showing 200 of 100000 matching trials (100000 in all)", b.text(`document.getElementById("count").textContent`))
		errs := 0
		for _, r := range recs {
			if r.Error != nil {
				errs++
			}
		}
		b.filter("error")
		b.expectRows("errors, first page", rows, min(200, errs))
		assert.Equal(t, fmt.Sprintf("Showing %d of %d matching trials (100000 in all)", min(200, errs), errs), b.text(`document.getElementById("count").textContent`))
		b.noProblems()
	})
}
