package report

import (
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/report/gotest"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// overview is the index page: every suite's headline numbers for every
// model on one screen, each row a link to its model's items, and the
// comparisons a reader most likely wants.
type overview struct {
	Entries       []indexEntry
	Featherbench  []ovRow
	Featherweight []ovRow
	FWStyles      []string
	FWIncomplete  bool
	Microbench    []ovRow
	Tests         *ovTests
	Compare       []Link
}

// ovRow is one model's headline: its label, a link to its items, and the
// cells in the card's columns.
type ovRow struct {
	Label, Href string
	Cells       []string
}

type ovTests struct {
	Pass, Fail, Skip, Unfinished int
}

var indexBody = template.Must(template.New("index").Parse(`
<ul class="index">{{range .Entries}}
<li><a href="{{.HTML}}"><strong>{{.Label}}</strong></a> (<a href="{{.MD}}">Markdown</a>){{if .Lead}} — {{.Lead}}{{end}}</li>{{end}}
</ul>
<div class="cards">
{{- if .Featherbench}}
<section class="card"><h2><a href="featherbench.html">Featherbench</a></h2>
<div class="scroll"><table class="overview"><thead><tr><th>model</th><th class="num">pass rate [95% CI]</th><th class="num">cost / task</th></tr></thead>
<tbody>{{range .Featherbench}}<tr><td><a href="{{.Href}}">{{.Label}}</a></td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div></section>
{{- end}}
{{- if .Featherweight}}
<section class="card"><h2><a href="featherweight.html">Featherweight</a></h2>
<div class="scroll"><table class="overview"><thead><tr><th>model</th>{{range .FWStyles}}<th class="num">{{.}} [95% CI]</th>{{end}}</tr></thead>
<tbody>{{range .Featherweight}}<tr><td><a href="{{.Href}}">{{.Label}}</a></td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
{{if .FWIncomplete}}<p class="explain">* incomplete: some requests failed, counted as wrong.</p>{{end}}</section>
{{- end}}
{{- if .Microbench}}
<section class="card"><h2><a href="microbench.html">μBench</a></h2>
<div class="scroll"><table class="overview"><thead><tr><th>model</th><th class="num">index ± SE</th><th class="num">params</th></tr></thead>
<tbody>{{range .Microbench}}<tr><td><a href="{{.Href}}">{{.Label}}</a></td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div></section>
{{- end}}
{{- if .Tests}}
<section class="card"><h2><a href="tests.html">Tests</a></h2>
<p><span class="badge b-pass">{{.Tests.Pass}} passed</span> <span class="badge b-fail">{{.Tests.Fail}} failed</span> <span class="badge b-unscored">{{.Tests.Skip}} skipped</span>{{if .Tests.Unfinished}} <span class="badge b-error">{{.Tests.Unfinished}} did not finish</span>{{end}}</p>
{{if .Tests.Fail}}<p><a href="tests.html#f=fail">The failed tests</a></p>{{end}}</section>
{{- end}}
{{- if .Compare}}
<section class="card"><h2><a href="compare.html">Compare</a></h2>
<ul class="plain">{{range .Compare}}<li><a href="{{.Href}}">{{.Label}}</a></li>{{end}}</ul></section>
{{- end}}
</div>`))

func indexPage(w io.Writer, ov overview, o PageOptions) error {
	body, err := render(indexBody, ov)
	if err != nil {
		return err
	}
	return page{Kind: "index", Title: "feather report", Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes, Body: body}.write(w)
}

// headlines fills the overview's cards from the runs and the tests.
func headlines(set *runs.Set, tr *gotest.Run, cs *compare.Set) overview {
	var ov overview
	if set != nil {
		if fb := set.Featherbench; fb != nil {
			ov.Featherbench = fbHeadlines(MergeFeatherbench(fb), fb.Categories())
		}
		if fw := set.Featherweight; fw != nil {
			_, results, _ := MergeFeatherweight(fw)
			ov.Featherweight, ov.FWStyles, ov.FWIncomplete = fwHeadlines(results)
		}
		if mb := set.Microbench; mb != nil {
			ov.Microbench = mbHeadlines(mb.Results)
		}
	}
	if tr != nil {
		pass, fail, skip, unfinished := tr.Totals()
		ov.Tests = &ovTests{Pass: pass, Fail: fail, Skip: skip, Unfinished: unfinished}
	}
	if cs != nil && HasComparison(cs) {
		ov.Compare = suggestedComparisons(cs)
	}
	return ov
}

// fbHeadlines ranks the models by pass rate, as the leaderboard does;
// each links to the review list narrowed to it.
func fbHeadlines(recs []featherbench.Record, categories map[string]string) []ovRow {
	s := featherbench.Summarize(recs, categories)
	type ranked struct {
		row  ovRow
		rate float64
	}
	var rs []ranked
	for i, m := range s.Models {
		rate := "—"
		r := -1.0
		if m.Scored > 0 {
			rate, r = fmt.Sprintf("%.0f%% [%.0f–%.0f]", 100*m.PassRate, 100*m.Lo, 100*m.Hi), m.PassRate
		}
		cost := "—"
		if m.CostPerTaskUSD != nil {
			cost = "$" + featherbench.FormatUSD(m.CostPerTaskUSD)
		}
		rs = append(rs, ranked{ovRow{Label: m.Model, Href: fmt.Sprintf("featherbench.html#m=%d", i), Cells: []string{rate, cost}}, r})
	}
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].rate > rs[j].rate })
	out := make([]ovRow, len(rs))
	for i, r := range rs {
		out[i] = r.row
	}
	return out
}

// fwHeadlines is each model's score in each prompt style.
func fwHeadlines(results []featherweight.ModelResult) (rows []ovRow, styles []string, incomplete bool) {
	sums := featherweight.Summarize(results)
	seen := map[string]bool{}
	for _, st := range featherweight.Styles {
		for _, s := range sums {
			if s.Style == st && !seen[string(st)] {
				seen[string(st)] = true
				styles = append(styles, string(st))
			}
		}
	}
	var out []ovRow
	row := map[string]int{}
	for _, s := range sums {
		i, ok := row[s.Model]
		if !ok {
			i = len(out)
			row[s.Model] = i
			out = append(out, ovRow{Label: s.Label(), Href: "featherweight.html", Cells: make([]string, len(styles))})
			for k := range out[i].Cells {
				out[i].Cells[k] = "—"
			}
		}
		for k, st := range styles {
			if string(s.Style) == st {
				out[i].Cells[k] = fmt.Sprintf("%.1f%% [%.1f–%.1f]", s.ScorePct, s.CILowPct, s.CIHighPct)
				if s.Incomplete {
					out[i].Cells[k] += "*"
					incomplete = true
				}
			}
		}
	}
	return out, styles, incomplete
}

// mbHeadlines ranks complete results by index; incomplete ones follow.
func mbHeadlines(results []*microbench.Result) []ovRow {
	labels := microbench.Labels(results)
	index := map[*microbench.Result]int{}
	for i, r := range results {
		index[r] = i
	}
	var out []ovRow
	for _, rr := range microbench.Rank(results) {
		r := rr.Result
		idx := fmt.Sprintf("%.2f ± %.2f", *r.Index, rr.SE)
		if rr.WithinNoise {
			idx = "≈ " + idx
		}
		out = append(out, ovRow{Label: labels[r], Href: fmt.Sprintf("microbench.html#m=%d", index[r]), Cells: []string{idx, microbench.FormatParams(r.NumParameters)}})
	}
	for _, r := range results {
		if r.Index == nil {
			out = append(out, ovRow{Label: labels[r], Href: fmt.Sprintf("microbench.html#m=%d", index[r]), Cells: []string{"incomplete", microbench.FormatParams(r.NumParameters)}})
		}
	}
	return out
}

// suggestedComparisons links to the Compare page on each model in two
// runs (its first run against each later one), and on the first two
// models of each run.
func suggestedComparisons(cs *compare.Set) []Link {
	var out []Link
	link := func(a, b compare.Side, label string) {
		if !shareSection(cs, a.ID, b.ID) {
			return
		}
		out = append(out, Link{Href: "compare.html" + hashLink(map[string]string{"a": a.ID, "b": b.ID}), Label: label})
	}
	firstRun := map[string]compare.Side{}
	for _, sd := range cs.Sides {
		if f, ok := firstRun[sd.Model]; !ok {
			firstRun[sd.Model] = sd
		} else {
			link(f, sd, fmt.Sprintf("%s: run %s against %s", sd.Model, sd.Run, f.Run))
		}
	}
	byRun := map[string][]compare.Side{}
	var runOrder []string
	for _, sd := range cs.Sides {
		if byRun[sd.Run] == nil {
			runOrder = append(runOrder, sd.Run)
		}
		byRun[sd.Run] = append(byRun[sd.Run], sd)
	}
	for _, run := range runOrder {
		sides := byRun[run]
		for i := 0; i+1 < len(sides) && i < 2; i++ {
			link(sides[i], sides[i+1], fmt.Sprintf("%s against %s (run %s)", sides[i+1].Model, sides[i].Model, run))
		}
	}
	return out
}

// hashLink writes a page address fragment as the pages' script reads it.
func hashLink(p map[string]string) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+urlComponent(p[k]))
	}
	return "#" + strings.Join(parts, "&")
}

// urlComponent escapes s as JavaScript's encodeURIComponent does.
func urlComponent(s string) string {
	const keep = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"
	var b strings.Builder
	for _, c := range []byte(s) {
		if strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
