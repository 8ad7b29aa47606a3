package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/feather-eval/feather/harness/report/svg"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/markdown"
	"github.com/feather-eval/feather/internal/plural"
)

// MicrobenchMarkdown is the suite's leaderboard (ranked by index with the
// spec's significance rule), the domain legend, every model's task scores
// and its per-level table.
func MicrobenchMarkdown(results []*microbench.Result) string {
	var b strings.Builder
	b.WriteString(microbench.Leaderboard(results))
	b.WriteString("\n## Domains\n\n| domain | name | weight |\n|---|---|---|\n")
	for _, d := range microbench.Domains {
		fmt.Fprintf(&b, "| %s | %s | %.2f |\n", d.ID, d.Name, d.Weight)
	}
	labels := microbench.Labels(results)
	tasks := mbTasks(results)
	if len(tasks) > 0 {
		b.WriteString("\n## Per task\n\nScore (0–100, chance-normalised; bits-per-byte mapped onto 0–100) ± standard error.\n\n| task | domain | reduction |")
		for _, r := range results {
			b.WriteString(" " + markdown.Cell(labels[r]) + " |")
		}
		b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(results)) + "\n")
		for _, t := range tasks {
			fmt.Fprintf(&b, "| %s | %s | %s |", t.ID, t.Domain, t.Reduction)
			for _, r := range results {
				b.WriteString(" " + mbTaskCell(r, t.ID) + " |")
			}
			b.WriteString("\n")
		}
	}
	for _, r := range results {
		fmt.Fprintf(&b, "\n## Levels: %s\n\n```\n%s```\n", labels[r], microbench.LevelsTable(r))
	}
	return b.String()
}

// mbTasks lists every task any result has, in the first result's order.
func mbTasks(results []*microbench.Result) []microbench.TaskResult {
	var out []microbench.TaskResult
	seen := map[string]bool{}
	for _, r := range results {
		for _, t := range r.Tasks {
			if !seen[t.ID] {
				seen[t.ID] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func mbTask(r *microbench.Result, id string) (microbench.TaskResult, bool) {
	for _, t := range r.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return microbench.TaskResult{}, false
}

func mbTaskCell(r *microbench.Result, id string) string {
	t, ok := mbTask(r, id)
	switch {
	case !ok:
		return "—"
	case t.Items == 0 && t.Units == 0 && t.BitsPerByte == nil:
		return "not run"
	}
	s := fmt.Sprintf("%.2f ± %.2f", t.Score, t.SE)
	if t.BitsPerByte != nil {
		s += fmt.Sprintf(" (%.3f bpb)", *t.BitsPerByte)
	}
	if !t.Complete {
		s += " (partial)"
	}
	return s
}

// mbFields names the columns of each item row in the page data.
var mbFields = []string{"model", "task", "id", "level", "correct", "tie", "truncated", "error", "prediction", "gold", "context", "choices", "disagree"}

type mbData struct {
	Kind   string   `json:"kind"`
	Fields []string `json:"fields"`
	Models []string `json:"models"`
	Items  [][]any  `json:"-"`
}

func (d mbData) rows() (string, [][]any) { return "items", d.Items }

type mbRankRow struct {
	Rank, Label, Params, Index string
	Domains                    []string
}

type mbTaskRow struct {
	Task      microbench.TaskResult
	Cells     []string
	Reduction string
}

type mbLevelRow struct {
	Task, About, Accuracy string
	Level, Units, Correct int
}

type mbModelLevels struct {
	Label string
	Rows  []mbLevelRow
}

type mbPage struct {
	Chart     template.HTML
	Ranked    []mbRankRow
	Unranked  []string
	Domains   []microbench.Domain
	DomainSE  [][]string
	Labels    []string
	Tasks     []mbTaskRow
	Levels    []mbModelLevels
	Noise     bool
	Smoke     bool
	Truncated []string
}

var mbBody = template.Must(template.New("mb").Parse(`
<p>{{len .Labels}} result{{if ne (len .Labels) 1}}s{{end}}. Every score is on a 0–100 scale; the index weighs the six domain scores, each the mean of its tasks. Standard errors are item-sampling errors.</p>
<h2 id="leaderboard">Index leaderboard</h2>
{{.Chart}}
<p class="explain">Bars are the μBench Intelligence Index; whiskers span ±2 standard errors.{{if .Smoke}} The smoke model measures the harness, not a language model.{{end}}</p>
<div class="scroll"><table><thead><tr><th>rank</th><th>model</th><th class="num">params</th><th class="num">index ± SE</th>{{range .Domains}}<th class="num" title="{{.Name}}">{{.ID}}</th>{{end}}</tr></thead>
<tbody>{{range .Ranked}}<tr><td>{{.Rank}}</td><td>{{.Label}}</td><td class="num">{{.Params}}</td><td class="num">{{.Index}}</td>{{range .Domains}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
{{if .Noise}}<p class="explain">≈ the gap to the run ranked directly above is smaller than 2·√(se₁²+se₂²): treat it as noise.</p>{{end}}
{{if .Unranked}}<p class="note">Not ranked (incomplete: the index needs every item of every task): {{range $i, $l := .Unranked}}{{if $i}}, {{end}}{{$l}}{{end}}.</p>{{end}}
{{if .Truncated}}<p class="note">{{range .Truncated}}{{.}} {{end}}</p>{{end}}
<h2 id="domains">Domains</h2>
<div class="scroll"><table><thead><tr><th>domain</th><th>name</th><th class="num">weight</th>{{range .Labels}}<th class="num">{{.}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $d := .Domains}}<tr><td>{{$d.ID}}</td><td>{{$d.Name}}</td><td class="num">{{printf "%.2f" $d.Weight}}</td>{{range index $.DomainSE $i}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
<h2 id="tasks">Per task</h2>
<div class="scroll"><table><thead><tr><th>task</th><th>domain</th><th>reduction</th>{{range .Labels}}<th class="num">{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Tasks}}<tr><td title="{{.Task.Name}}">{{.Task.ID}}</td><td>{{.Task.Domain}}</td><td>{{.Reduction}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
<p class="explain">Score ± standard error; accuracy is over scoring units (a contrast pair is one unit on group-accuracy tasks).</p>
<h2 id="levels">Levels</h2>
{{range .Levels}}<h3>{{.Label}}</h3>
<div class="scroll"><table><thead><tr><th>task</th><th class="num">level</th><th class="num">units</th><th class="num">correct</th><th class="num">accuracy</th><th>level means</th></tr></thead>
<tbody>{{range .Rows}}<tr><td>{{.Task}}</td><td class="num">{{.Level}}</td><td class="num">{{.Units}}</td><td class="num">{{.Correct}}</td><td class="num">{{.Accuracy}}</td><td>{{.About}}</td></tr>{{end}}</tbody></table></div>
{{end}}
<h2 id="items">Items</h2>
<div class="controls" id="controls">
<div role="group" aria-label="filter">
<button type="button" data-filter="all" aria-pressed="true">All</button>
<button type="button" data-filter="wrong" aria-pressed="false">Wrong</button>
<button type="button" data-filter="disagree" aria-pressed="false">Models disagree</button>
<button type="button" data-filter="tie" aria-pressed="false">Ties</button>
<button type="button" data-filter="truncated" aria-pressed="false">Truncated</button>
<button type="button" data-filter="error" aria-pressed="false">Errors</button>
</div>
<select id="model" aria-label="model"><option value="">all models</option>{{range $i, $l := .Labels}}<option value="{{$i}}">{{$l}}</option>{{end}}</select>
<input type="search" id="search" placeholder="Search tasks, contexts and choices" aria-label="search items">
<span id="count" aria-live="polite"></span>
</div>
<div class="scroll"><table class="list"><thead><tr><th>model</th><th>task</th><th>item</th><th class="num">level</th><th>verdict</th><th>predicted</th><th>gold</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<button type="button" id="more" hidden>Show more</button>
`))

// MicrobenchPage renders the μBench page: the index leaderboard with error
// bars, domain and task scores, levels, and every scored item.
func MicrobenchPage(w io.Writer, results []*microbench.Result, o PageOptions) error {
	labels := microbench.Labels(results)
	var p mbPage
	p.Domains = microbench.Domains
	for _, r := range results {
		p.Labels = append(p.Labels, labels[r])
		p.Smoke = p.Smoke || r.Model.Smoke
	}

	ranked := microbench.Rank(results)
	bc := svg.BarChart{Title: microbench.Name + " Intelligence Index", Max: 100, YLabel: "index (0–100)", Series: []string{"index ± 2 SE"}}
	for i, rr := range ranked {
		r := rr.Result
		se := rr.SE
		row := mbRankRow{Rank: fmt.Sprint(i + 1), Label: labels[r], Params: microbench.FormatParams(r.NumParameters), Index: fmt.Sprintf("%.2f ± %.2f", *r.Index, se)}
		if rr.WithinNoise {
			row.Rank += " ≈"
			p.Noise = true
		}
		for _, d := range microbench.Domains {
			row.Domains = append(row.Domains, fmt.Sprintf("%.2f", r.DomainScores[d.ID]))
		}
		p.Ranked = append(p.Ranked, row)
		bc.Groups = append(bc.Groups, svg.BarGroup{Label: labels[r], Bars: []*svg.Bar{{
			Value: *r.Index, Lo: *r.Index - 2*se, Hi: *r.Index + 2*se, Interval: true,
			Tip: fmt.Sprintf("%s: index %.2f ± %.2f (SE)", labels[r], *r.Index, se),
		}}})
	}
	p.Chart = template.HTML(bc.SVG())
	for _, r := range results {
		if r.Index == nil {
			p.Unranked = append(p.Unranked, labels[r])
		}
		trunc := 0
		for _, n := range r.TruncatedItems {
			trunc += n
		}
		if trunc > 0 {
			p.Truncated = append(p.Truncated, fmt.Sprintf("%s: %s left-truncated to %d tokens.", labels[r], plural.Of(trunc, "item"), r.MaxLength))
		}
	}
	for _, d := range microbench.Domains {
		var cells []string
		for _, r := range results {
			v, ok := r.DomainScores[d.ID]
			if !ok {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.2f ± %.2f", v, r.StandardErrors.Domains[d.ID]))
		}
		p.DomainSE = append(p.DomainSE, cells)
	}
	for _, t := range mbTasks(results) {
		row := mbTaskRow{Task: t, Reduction: string(t.Reduction)}
		if t.Grouped {
			row.Reduction += ", group accuracy"
		}
		for _, r := range results {
			cell := mbTaskCell(r, t.ID)
			if rt, ok := mbTask(r, t.ID); ok && rt.BitsPerByte == nil && rt.Units > 0 {
				cell += fmt.Sprintf(" · acc %.1f%% (%d/%d, chance %.0f%%)", 100*rt.Accuracy, rt.CorrectUnits, rt.Units, 100*rt.Chance)
			}
			row.Cells = append(row.Cells, cell)
		}
		p.Tasks = append(p.Tasks, row)
	}
	for _, r := range results {
		ml := mbModelLevels{Label: labels[r]}
		for _, t := range r.Tasks {
			for _, l := range t.Levels {
				if l.Units == 0 {
					continue
				}
				row := mbLevelRow{Task: t.ID, About: l.About, Level: l.Level, Units: l.Units, Correct: l.Correct, Accuracy: fmt.Sprintf("%.1f%%", 100*l.Accuracy)}
				if l.BitsPerByte != nil {
					row.Accuracy = fmt.Sprintf("%.3f bpb", *l.BitsPerByte)
					row.Correct = 0
				}
				ml.Rows = append(ml.Rows, row)
			}
		}
		p.Levels = append(p.Levels, ml)
	}
	body, err := render(mbBody, p)
	if err != nil {
		return fmt.Errorf("rendering the μBench page: %w", err)
	}
	return page{Kind: "microbench", Title: microbench.Name + " v" + microbench.Version, Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes,
		Body: body, Data: microbenchData(results, p.Labels)}.write(w)
}

func microbenchData(results []*microbench.Result, labels []string) mbData {
	d := mbData{Kind: "microbench", Fields: mbFields, Models: labels, Items: [][]any{}}
	// An item is disagreed on when the results did not all choose the
	// same (an error counts as a choice of its own), as the Featherweight
	// grid's columns disagree on a letter.
	chose := map[string]map[int]bool{}
	for _, r := range results {
		for _, it := range r.Items {
			k := it.Task + "/" + it.ID
			if chose[k] == nil {
				chose[k] = map[int]bool{}
			}
			p := it.Prediction
			if it.Error != "" {
				p = -1
			}
			chose[k][p] = true
		}
	}
	for mi, r := range results {
		for _, it := range r.Items {
			choices := make([][]any, len(it.Choices))
			for ci, c := range it.Choices {
				choices[ci] = []any{c.Text, c.LogProb, c.Value, c.NullLogProb}
			}
			d.Items = append(d.Items, []any{mi, it.Task, it.ID, it.Level, it.Correct, it.Tie, it.Truncated, it.Error, it.Prediction, it.Gold, it.Context, choices,
				len(chose[it.Task+"/"+it.ID]) > 1})
		}
	}
	return d
}
