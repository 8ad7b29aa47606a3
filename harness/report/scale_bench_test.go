package report_test

import (
	"math"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// BenchmarkScaleSummaryHTML100k writes what a Featherbench run writes when
// it finishes, from 100,000 trials (manyRecords: 20 models, 10 trials per
// task, rubric grids on a tenth, errors and refusals on some): the
// Markdown summary file (featherbench.WriteSummary) and the review page
// (report.WriteFeatherbenchReport), both to disk. best-s is the wall time
// of the fastest of the b.N writes (other work on a shared machine only
// ever adds time); the goal is under 5 s.
func BenchmarkScaleSummaryHTML100k(b *testing.B) {
	recs, cats := manyRecords(100_000)
	tasks := scaleTasks(cats)
	dir := b.TempDir()
	summary, page := filepath.Join(dir, "summary.md"), filepath.Join(dir, "report.html")
	b.ReportAllocs()
	best := time.Duration(math.MaxInt64)
	for b.Loop() {
		start := time.Now()
		if err := featherbench.WriteSummary(recs, summary, cats); err != nil {
			b.Fatal(err)
		}
		if err := report.WriteFeatherbenchReport(page, recs, tasks); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	b.ReportMetric(best.Seconds(), "best-s")
}

// scaleTasks are the task files behind manyRecords' records, as a run
// hands them to the report: category, prompt and the hash the records carry.
func scaleTasks(cats map[string]string) []featherbench.Task {
	tasks := make([]featherbench.Task, 0, len(cats))
	for id, cat := range cats {
		tasks = append(tasks, featherbench.Task{ID: id, Category: cat, Hash: "0123456789ab", Prompt: "Plan the " + id + " work and give the total."})
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	return tasks
}

// BenchmarkComparePage100k writes the Compare page for 100,000 trials of
// two models (50,000 paired items): reading them into the comparison,
// every pair's statistics, the list and the drill-down records. best-s
// is the fastest write; html-MB the page's size.
func BenchmarkComparePage100k(b *testing.B) {
	recs := compareRecords(100_000)
	b.ReportAllocs()
	best := time.Duration(math.MaxInt64)
	var page counter
	for b.Loop() {
		start := time.Now()
		page = 0
		cs := compare.FromRuns(&runs.Set{Featherbench: &runs.Featherbench{Records: recs}})
		if err := report.ComparePage(&page, cs, report.PageOptions{}); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(start))
	}
	b.ReportMetric(best.Seconds(), "best-s")
	b.ReportMetric(float64(page)/1e6, "html-MB")
}
