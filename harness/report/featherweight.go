package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/report/svg"
	"github.com/feather-eval/feather/harness/suites/featherweight"
)

// MergeFeatherweight joins the Featherweight results of several runs. A
// model that appears in more than one run is kept once per run, its key and
// name suffixed with the run's stamp, so the suite's summary (which groups
// rows by model key) keeps them apart. Runs over different question files
// are reported as warnings.
func MergeFeatherweight(fw *runs.Featherweight) (featherweight.DataInfo, []featherweight.ModelResult, []string) {
	var data featherweight.DataInfo
	var out []featherweight.ModelResult
	var warnings []string
	count := map[string]int{}
	for _, r := range fw.Runs {
		for _, m := range r.Results {
			count[m.Model.Key]++
		}
	}
	shas := map[string]string{}
	for _, r := range fw.Runs {
		if data.SHA256 == "" {
			data = r.Data
		}
		if r.Data.SHA256 != "" {
			shas[r.Data.SHA256] = r.Stamp
		}
		for _, m := range r.Results {
			if count[m.Model.Key] > 1 {
				label := m.Model.Name
				if label == "" {
					label = m.Model.Key
				}
				m.Model.Key += "@" + r.Stamp
				m.Model.Name = label + " (" + r.Stamp + ")"
			}
			out = append(out, m)
		}
	}
	if len(shas) > 1 {
		var list []string
		for sha, stamp := range shas {
			list = append(list, fmt.Sprintf("%s… in %s", sha[:min(12, len(sha))], stamp))
		}
		sort.Strings(list)
		warnings = append(warnings, "These runs asked different question files (sha256 "+strings.Join(list, ", ")+"): their scores are not comparable.")
	}
	return data, out, warnings
}

// FeatherweightMarkdown is the suite's own summary Markdown for the
// results, after any warnings.
func FeatherweightMarkdown(data featherweight.DataInfo, results []featherweight.ModelResult, warnings []string) (string, error) {
	var b strings.Builder
	if err := featherweight.WriteMarkdown(&b, data, featherweight.Summarize(results)); err != nil {
		return "", err
	}
	if len(warnings) == 0 {
		return b.String(), nil
	}
	md := b.String()
	head, rest, _ := strings.Cut(md, "\n\n")
	var w strings.Builder
	for _, s := range warnings {
		w.WriteString("> **Warning:** " + s + "\n\n")
	}
	return head + "\n\n" + w.String() + rest, nil
}

// fwCellFields names the columns of each grid cell in the page data.
var fwCellFields = []string{"status", "letter", "rule", "reply", "prompt_sent", "input_tokens", "output_tokens", "latency_ms", "stop_reason", "error"}

type fwColumn struct {
	Model string `json:"model"`
	Label string `json:"label"`
	Style string `json:"style"`
}

type fwItem struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Answer   string `json:"answer"`
}

type fwData struct {
	Kind       string     `json:"kind"`
	CellFields []string   `json:"cell_fields"`
	Columns    []fwColumn `json:"columns"`
	Items      []fwItem   `json:"items"`
	Cells      [][]any    `json:"-"`
}

func (d fwData) rows() (string, [][]any) { return "cells", d.Cells }

type fwRow struct {
	Label, Params string
	Cols          []fwStyleCell
}

type fwStyleCell struct {
	Ran                         bool
	Score, CI                   string
	ParseErrors, Errors, N, Cor int
}

type fwPage struct {
	Data    featherweight.DataInfo
	Styles  []featherweight.Style
	Rows    []fwRow
	Bars    template.HTML
	Heatmap template.HTML
	Smoke   bool
}

var fwBody = template.Must(template.New("fw").Parse(`
<p>Questions: {{if .Data.Name}}{{.Data.Name}} {{end}}<code>{{.Data.File}}</code> ({{.Data.Items}} items, sha256 <code>{{.Data.SHA256}}</code>). Greedy decoding; each score is the share of the items asked that was answered correctly, with its 95% Wilson interval. A parse error counts as wrong and is also counted on its own; so does a failed request, which marks the score incomplete.</p>
<h2 id="leaderboard">Leaderboard</h2>
<div class="scroll"><table>
<thead><tr><th rowspan="2">model</th><th rowspan="2" class="num">params</th>{{range .Styles}}<th colspan="3">{{.}}</th>{{end}}</tr>
<tr>{{range .Styles}}<th class="num">score</th><th class="num">95% CI</th><th class="num">parse errors</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Label}}</td><td class="num">{{.Params}}</td>{{range .Cols}}{{if .Ran}}<td class="num">{{.Score}} ({{.Cor}}/{{.N}})</td><td class="num">{{.CI}}</td><td class="num">{{.ParseErrors}}{{if .Errors}} · {{.Errors}} failed (incomplete){{end}}</td>{{else}}<td class="num">—</td><td class="num">—</td><td class="num">—</td>{{end}}{{end}}</tr>{{end}}</tbody>
</table></div>
{{.Bars}}
<p class="explain">Bars are scores, whiskers the 95% Wilson intervals, models sorted by parameter count; the dashed line is chance (25%). With about 100 items an interval is roughly ±9 points: read smaller gaps with care.{{if .Smoke}} The smoke model measures the harness, not a language model.{{end}}</p>
<h2 id="categories">Per category</h2>
{{.Heatmap}}
<p class="explain">One question is 100/n points of its category (10 points with the official set).</p>
<h2 id="items">Per item</h2>
<p class="explain">One row per question, one column per model and prompt style: the extracted letter, green when correct, red when wrong, <strong>?</strong> a parse error, <strong>!</strong> a failed request. Click a cell for the raw reply and the prompt sent.</p>
<div class="controls" id="controls">
<div role="group" aria-label="filter">
<button type="button" data-filter="all" aria-pressed="true">All</button>
<button type="button" data-filter="wrong" aria-pressed="false">Any miss</button>
<button type="button" data-filter="parse" aria-pressed="false">Parse errors</button>
<button type="button" data-filter="disagree" aria-pressed="false">Columns disagree</button>
<button type="button" data-filter="error" aria-pressed="false">Errors</button>
</div>
<input type="search" id="search" placeholder="Search ids, categories and replies" aria-label="search replies">
<span id="count" aria-live="polite"></span>
</div>
<div id="fw-detail" hidden></div>
<div class="scroll"><table class="list"><thead><tr><th>item</th><th>category</th><th class="num">answer</th>{{range .Columns}}<th class="num" title="{{.Label}} · {{.Style}}">{{.Label}}<br><span class="muted">{{.Style}}</span></th>{{end}}</tr></thead>
<tbody id="rows"></tbody></table></div>
<button type="button" id="more" hidden>Show more</button>
`))

// FeatherweightPage renders the Featherweight page: the leaderboard bar
// chart (both styles, interval whiskers), the per-category heatmap and the
// per-item grid with every raw reply.
func FeatherweightPage(w io.Writer, data featherweight.DataInfo, results []featherweight.ModelResult, o PageOptions) error {
	sums := featherweight.Summarize(results)
	chart := featherweight.ChartData(sums)
	d := featherweightData(results, sums)

	p := struct {
		fwPage
		Columns []fwColumn
	}{fwPage: fwPage{Data: data, Styles: chart.Styles}, Columns: d.Columns}
	byModel := map[string]map[featherweight.Style]featherweight.Summary{}
	var order []string
	for _, s := range sums {
		if byModel[s.Model] == nil {
			byModel[s.Model] = map[featherweight.Style]featherweight.Summary{}
			order = append(order, s.Model)
			p.Rows = append(p.Rows, fwRow{Label: s.Label(), Params: featherweight.ParamsLabel(s.Params)})
		}
		byModel[s.Model][s.Style] = s
		p.Smoke = p.Smoke || s.Smoke
	}
	for i, m := range order {
		for _, st := range chart.Styles {
			s, ok := byModel[m][st]
			if !ok {
				p.Rows[i].Cols = append(p.Rows[i].Cols, fwStyleCell{})
				continue
			}
			p.Rows[i].Cols = append(p.Rows[i].Cols, fwStyleCell{Ran: true, Score: fmt.Sprintf("%.1f%%", s.ScorePct), CI: fmt.Sprintf("%.1f–%.1f", s.CILowPct, s.CIHighPct),
				ParseErrors: s.ParseErrors, Errors: s.Errors, N: s.N, Cor: s.Correct})
		}
	}

	chance := 25.0
	bc := svg.BarChart{Title: chart.Title, Max: 100, YLabel: "score (%)", Reference: &chance, RefLabel: "chance 25%"}
	for _, st := range chart.Styles {
		bc.Series = append(bc.Series, string(st))
	}
	for _, m := range chart.Models {
		g := svg.BarGroup{Label: m.Label}
		for _, st := range chart.Styles {
			b, ok := m.Bars[st]
			if !ok {
				g.Bars = append(g.Bars, nil)
				continue
			}
			g.Bars = append(g.Bars, &svg.Bar{Value: b.ScorePct, Lo: b.CILowPct, Hi: b.CIHighPct, Interval: true,
				Tip: fmt.Sprintf("%s, %s: %.1f%% [%.1f–%.1f], n = %d", m.Label, st, b.ScorePct, b.CILowPct, b.CIHighPct, b.N)})
		}
		bc.Groups = append(bc.Groups, g)
	}
	p.Bars = template.HTML(bc.SVG())

	cats := featherweight.CategoryNames(sums)
	hm := svg.Heatmap{Title: "Score by category (%)", Cols: cats, Max: 100, Format: func(v float64) string { return fmt.Sprintf("%.0f", v) }}
	for _, s := range sums {
		hm.Rows = append(hm.Rows, s.Label()+" · "+string(s.Style))
		vals := make([]float64, len(cats))
		for i, name := range cats {
			vals[i] = math.NaN()
			if v, ok := s.CategoryPct(name); ok {
				vals[i] = v
			}
		}
		hm.Values = append(hm.Values, vals)
	}
	p.Heatmap = template.HTML(hm.SVG())

	body, err := render(fwBody, p)
	if err != nil {
		return fmt.Errorf("rendering the Featherweight page: %w", err)
	}
	return page{Kind: "featherweight", Title: featherweight.SuiteName, Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes, Body: body, Data: d}.write(w)
}

// featherweightData is the per-item grid: columns are model × style in the
// summary's order, rows the items in first-asked order.
func featherweightData(results []featherweight.ModelResult, sums []featherweight.Summary) fwData {
	d := fwData{Kind: "featherweight", CellFields: fwCellFields}
	col := map[string]int{}
	for _, s := range sums {
		col[s.Model+"\x00"+string(s.Style)] = len(d.Columns)
		d.Columns = append(d.Columns, fwColumn{Model: s.Model, Label: s.Label(), Style: string(s.Style)})
	}
	row := map[string]int{}
	for _, r := range results {
		for _, rec := range r.Records {
			i, ok := row[rec.ID]
			if !ok {
				i = len(d.Items)
				row[rec.ID] = i
				d.Items = append(d.Items, fwItem{ID: rec.ID, Category: rec.Category, Answer: rec.Answer})
				d.Cells = append(d.Cells, nil)
			}
			c, ok := col[r.Model.Key+"\x00"+string(rec.Style)]
			if !ok {
				continue
			}
			if d.Cells[i] == nil {
				d.Cells[i] = make([]any, len(d.Columns))
			}
			status := "wrong"
			switch {
			case rec.Error != "":
				status = "error"
			case rec.Correct:
				status = "correct"
			case rec.ParseError:
				status = "parse"
			}
			d.Cells[i][c] = []any{status, rec.Letter, string(rec.Rule), rec.Reply, rec.PromptSent, rec.InputTokens, rec.OutputTokens, rec.LatencyMS, rec.StopReason, rec.Error}
		}
	}
	for i := range d.Cells {
		if d.Cells[i] == nil {
			d.Cells[i] = make([]any, len(d.Columns))
		}
	}
	return d
}
