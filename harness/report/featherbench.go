package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/report/svg"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/markdown"
	"github.com/feather-eval/feather/internal/plural"
)

// CostPoint is one model on the cost/pass-rate chart.
type CostPoint struct {
	Model string
	// PassRate with its 95% Wilson interval, over Scored trials.
	PassRate, Lo, Hi float64
	Scored           int
	// CostPerTask is the mean cost of one trial, USD.
	CostPerTask float64
}

// CostPoints places every model that has both a pass rate (some scored
// trial) and a reported cost; the others are returned by name.
func CostPoints(s featherbench.Summary) (points []CostPoint, noCost, noScore []string) {
	for _, m := range s.Models {
		switch {
		case m.Scored == 0:
			noScore = append(noScore, m.Model)
		case m.CostPerTaskUSD == nil:
			noCost = append(noCost, m.Model)
		default:
			points = append(points, CostPoint{Model: m.Model, PassRate: m.PassRate, Lo: m.Lo, Hi: m.Hi, Scored: m.Scored, CostPerTask: *m.CostPerTaskUSD})
		}
	}
	return points, noCost, noScore
}

// Frontier returns the Pareto frontier of points, cheapest first: the
// cheapest model at each pass rate it reaches. A model is on it when every
// cheaper model (or equally cheap one listed before it) has a lower pass
// rate; at equal cost and pass rate the model named first is kept.
func Frontier(points []CostPoint) []int {
	idx := make([]int, len(points))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := points[idx[a]], points[idx[b]]
		if pa.CostPerTask != pb.CostPerTask {
			return pa.CostPerTask < pb.CostPerTask
		}
		if pa.PassRate != pb.PassRate {
			return pa.PassRate > pb.PassRate
		}
		return pa.Model < pb.Model
	})
	var out []int
	best := math.Inf(-1)
	for _, i := range idx {
		if points[i].PassRate > best {
			out = append(out, i)
			best = points[i].PassRate
		}
	}
	return out
}

// MergeFeatherbench joins the Featherbench trials of several runs. A
// model that appears in more than one run is kept once per run, its name
// suffixed with the run's stamp, so the suite's summary (which groups
// trials by model) keeps the runs apart, as MergeFeatherweight does; the
// shards of one run carry one run id and stay one model.
func MergeFeatherbench(fb *runs.Featherbench) []featherbench.Record {
	runsOf := map[string]map[string]bool{}
	for _, r := range fb.Records {
		if runsOf[r.Model] == nil {
			runsOf[r.Model] = map[string]bool{}
		}
		runsOf[r.Model][r.RunID] = true
	}
	out := make([]featherbench.Record, len(fb.Records))
	for i, r := range fb.Records {
		if len(runsOf[r.Model]) > 1 {
			r.Model += " (" + r.RunID + ")"
		}
		out[i] = r
	}
	return out
}

// FeatherbenchMarkdown is the Featherbench summary of records: the suite's
// own summary (which carries the rubric and the judge-bias matrix when
// trials were judged), then the cost/pass-rate frontier. categories may be
// nil.
func FeatherbenchMarkdown(recs []featherbench.Record, categories map[string]string) string {
	s := featherbench.Summarize(recs, categories)
	var b strings.Builder
	b.WriteString(s.Markdown())

	points, noCost, _ := CostPoints(s)
	if len(points) > 0 {
		b.WriteString("\n## Cheapest model at each pass rate\n\n")
		b.WriteString("The Pareto frontier of cost per task against pass rate: each row is the cheapest model that reaches its pass rate, so the cheapest model that clears a bar is the first row at or above it.\n\n")
		b.WriteString("| pass rate [95% CI] | model | cost / task (USD) |\n|---|---|---|\n")
		for _, i := range Frontier(points) {
			p := points[i]
			fmt.Fprintf(&b, "| %.0f%% [%.0f–%.0f] | %s | %s |\n", 100*p.PassRate, 100*p.Lo, 100*p.Hi, markdown.Cell(p.Model), featherbench.FormatUSD(&p.CostPerTask))
		}
		if len(noCost) > 0 {
			fmt.Fprintf(&b, "\nNo cost reported, so not compared: %s.\n", strings.Join(noCost, ", "))
		}
	}
	return b.String()
}

// Trial statuses in the page data, decided in the order the suite's
// summary counts them: an error first, then the scored verdict.
const (
	statusPass     = "pass"
	statusFail     = "fail"
	statusError    = "error"
	statusUnscored = "unscored"
)

func trialStatus(r featherbench.Record) string {
	switch {
	case r.Error != nil:
		return statusError
	case r.Passed == nil:
		return statusUnscored
	case *r.Passed:
		return statusPass
	}
	return statusFail
}

// fbFields names the columns of each trial row in the page data.
var fbFields = []string{"task", "model", "run", "trial", "status", "refusal", "refusal_category", "text", "tool_calls",
	"check_detail", "stop_reason", "latency_s", "wall_clock_s", "input_tokens", "output_tokens", "cost_usd",
	"rubric_mean", "rubric", "error", "timestamp", "sampling_sent", "task_hash", "disagree"}

type fbTask struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Summary  string `json:"summary"`
	Prompt   string `json:"prompt,omitempty"`
	// Changed: the task file's hash differs from the records', so the
	// prompt shown is not the one these trials answered.
	Changed bool `json:"changed,omitempty"`
}

type fbScore struct {
	Judge     string `json:"judge"`
	Score     *int   `json:"score"`
	Rationale string `json:"rationale,omitempty"`
	Self      bool   `json:"self,omitempty"`
	Error     string `json:"error,omitempty"`
}

type fbData struct {
	Kind   string   `json:"kind"`
	Fields []string `json:"fields"`
	Models []string `json:"models"`
	Runs   []string `json:"runs"`
	Tasks  []fbTask `json:"tasks"`
	Trials [][]any  `json:"-"`
}

func (d fbData) rows() (string, [][]any) { return "trials", d.Trials }

// fbModelRow is one row of the page's model table.
type fbModelRow struct {
	featherbench.ModelStats
	Rate, PerTask, Cost, Latency, Wall, Rubric string
}

type fbPage struct {
	Summary    featherbench.Summary
	Trials     int
	Rows       []fbModelRow
	Chart      template.HTML
	Frontier   []CostPoint
	NoCost     []string
	NoScore    []string
	HasChart   bool
	Categories []fbGridRow
	Grid       []fbGridRow
	MatrixRows []fbGridRow
	TasksDir   string
	HasTasks   bool
	// NoLatency: a median latency leaves out trials without a time to
	// first token, and its cell says how many.
	NoLatency bool
	// Smoke: a model is the built-in smoke model, marked † (SmokeNote).
	Smoke     bool
	SmokeNote string
}

type fbGridRow struct {
	Label string
	Tag   string
	Cells []string
}

var fbBody = template.Must(template.New("fb").Funcs(funcs).Parse(`
<p>{{plural (len .Summary.Models) "model"}}, {{plural (len .Summary.Tasks) "task"}}, {{plural .Trials "trial"}}{{if gt (len .Summary.RunIDs) 1}} from {{len .Summary.RunIDs}} runs combined{{end}}.
{{- if .TasksDir}} Task files: <code>{{.TasksDir}}</code>.{{else if .HasTasks}} Categories and prompts come from the task files.{{else}} No task directory was given, so tasks have no category or prompt here (<code>--tasks DIR</code>).{{end}}</p>
{{range .Summary.Warnings}}<p class="note">Warning: {{.}}.</p>{{end}}
<h2 id="models">Models</h2>
<div class="scroll"><table class="models">
<thead><tr><th>model</th><th class="num">pass rate [95% CI]</th><th class="num">passed / scored</th><th class="num">refused</th><th class="num">errors</th><th class="num">unscored</th><th class="num">Rubric /10</th><th class="num">median latency</th><th class="num">median wall</th><th class="num">tokens in / out</th><th class="num">cost</th><th class="num">cost / task</th></tr></thead>
<tbody>{{range .Rows}}<tr data-model="{{.Model}}"><td>{{.Label}}</td><td class="num">{{.Rate}}</td><td class="num">{{.Passed}} / {{.Scored}}</td><td class="num">{{.Refused}}</td><td class="num">{{.Errors}}</td><td class="num">{{.Unscored}}</td><td class="num">{{.Rubric}}</td><td class="num">{{.Latency}}</td><td class="num">{{.Wall}}</td><td class="num">{{.InputTokens}} / {{.OutputTokens}}</td><td class="num">{{.Cost}}</td><td class="num">{{.PerTask}}</td></tr>{{end}}</tbody>
</table></div>
<p class="explain">Pass rate = passed / scored with the 95% Wilson interval. Errors, refusals under a neutral policy and tasks without a checker are not scored. Latency is time to first token; medians are over trials without errors.{{if .NoLatency}} "(N n/a)" after a median latency counts the model's trials that have no time to first token (a server that answered without streaming): the median leaves them out.{{end}} Cost is what the provider reported; cost / task is the mean cost of one trial.{{if .Smoke}} {{.SmokeNote}}{{end}}</p>
{{if .HasChart}}
<h2 id="cost">Cost and pass rate</h2>
<div class="barpick"><label for="bar">Your bar: pass rate ≥ <output id="bar-value">80%</output></label>
<input type="range" id="bar" min="0" max="100" step="1" value="80">
<label><input type="checkbox" id="bar-lower"> count the 95% lower bound, not the point estimate</label></div>
<p id="bar-result" aria-live="polite"></p>
{{.Chart}}
<p class="explain">One point per model: mean cost of a trial against pass rate, with the 95% Wilson interval as the error bar. The dashed green line is the Pareto frontier — the cheapest model at each pass rate.
{{- if .NoCost}} No cost reported, not shown: {{range $i, $m := .NoCost}}{{if $i}}, {{end}}{{$m}}{{end}}.{{end}}
{{- if .NoScore}} Nothing scored, not shown: {{range $i, $m := .NoScore}}{{if $i}}, {{end}}{{$m}}{{end}}.{{end}}</p>
<div class="scroll"><table><thead><tr><th>pass rate [95% CI]</th><th>cheapest model reaching it</th><th class="num">cost / task</th></tr></thead>
<tbody>{{range .Frontier}}<tr><td>{{printf "%.0f" (pct .PassRate)}}% [{{printf "%.0f" (pct .Lo)}}–{{printf "%.0f" (pct .Hi)}}]</td><td>{{.Model}}</td><td class="num">${{usd .CostPerTask}}</td></tr>{{end}}</tbody></table></div>
{{end}}
<h2 id="categories">Per category</h2>
<div class="scroll"><table><thead><tr><th>category</th>{{range .Summary.Models}}<th class="num">{{.Model}}</th>{{end}}</tr></thead>
<tbody>{{range .Categories}}<tr><td>{{.Label}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
<h2 id="tasks">Per task</h2>
<p class="explain">Passed / scored trials; R refused, E errors (X: how many of them are unsupported), U unscored.</p>
<div class="scroll"><table><thead><tr><th>task</th><th>category</th>{{range .Summary.Models}}<th class="num">{{.Model}}</th>{{end}}</tr></thead>
<tbody>{{range .Grid}}<tr><td>{{.Label}}</td><td><span class="tag">{{.Tag}}</span></td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
{{if .MatrixRows}}
<h2 id="bias">Judge bias</h2>
<div class="scroll"><table><thead><tr><th>judge ↓ / contestant →</th>{{range .Summary.Judges.Contestants}}<th class="num">{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .MatrixRows}}<tr><td>{{.Label}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>{{end}}</tbody></table></div>
<p class="explain">Mean score (1–10) each judge gave each contestant, with the number of valid scores; * marks a judge grading its own answers, which never counts towards that contestant's Rubric /10.</p>
{{end}}
<h2 id="review">Review</h2>
<div class="controls" id="controls">
<div role="group" aria-label="filter">
<button type="button" data-filter="all" aria-pressed="true">All</button>
<button type="button" data-filter="notpassed" aria-pressed="false">Not passed</button>
<button type="button" data-filter="fail" aria-pressed="false">Fails</button>
<button type="button" data-filter="disagree" aria-pressed="false">Models disagree</button>
<button type="button" data-filter="refused" aria-pressed="false">Refusals</button>
<button type="button" data-filter="error" aria-pressed="false">Errors</button>
</div>
<select id="model" aria-label="model"><option value="">all models</option>{{range $i, $m := .Summary.Models}}<option value="{{$i}}">{{$m.Model}}</option>{{end}}</select>
<input type="search" id="search" placeholder="Search tasks, responses and tool calls" aria-label="search tasks and responses">
<span id="count" aria-live="polite"></span>
</div>
<div class="scroll"><table class="list"><thead><tr><th>model</th><th class="num">trial</th><th>verdict</th><th class="num">rubric</th><th class="num">cost</th><th class="num">latency</th><th class="num">wall</th><th>response</th></tr></thead>
<tbody id="rows"></tbody></table></div>
<button type="button" id="more" hidden>Show more</button>
`))

var funcs = template.FuncMap{
	"pct":    func(x float64) float64 { return 100 * x },
	"usd":    func(v float64) string { return featherbench.FormatUSD(&v) },
	"plural": plural.Of,
}

// FeatherbenchPage renders the Featherbench review page for records.
// tasks (by id, may be nil) give categories, prompts and a check that the
// task files still match the records' task_hash.
func FeatherbenchPage(w io.Writer, recs []featherbench.Record, tasks map[string]featherbench.Task, o PageOptions) error {
	categories := map[string]string{}
	for id, t := range tasks {
		categories[id] = t.Category
	}
	s := featherbench.Summarize(recs, categories)

	p := fbPage{Summary: s, Trials: len(recs), TasksDir: o.TasksDir, HasTasks: len(tasks) > 0, SmokeNote: featherbench.SmokeNote}
	for _, m := range s.Models {
		p.Smoke = p.Smoke || m.Smoke
		row := fbModelRow{ModelStats: m, Rate: "—", PerTask: "—", Cost: "—", Latency: "—", Wall: "—"}
		if m.Scored > 0 {
			row.Rate = fmt.Sprintf("%.0f%% [%.0f–%.0f]", 100*m.PassRate, 100*m.Lo, 100*m.Hi)
		}
		if m.CostUSD != nil {
			row.Cost = "$" + featherbench.FormatUSD(m.CostUSD)
		}
		if m.CostPerTaskUSD != nil {
			row.PerTask = "$" + featherbench.FormatUSD(m.CostPerTaskUSD)
		}
		if m.MedianLatencyS != nil {
			row.Latency = fmt.Sprintf("%.2f s", *m.MedianLatencyS)
			if m.PartlyTimed() {
				row.Latency += fmt.Sprintf(" (%d n/a)", m.NoLatency)
				p.NoLatency = true
			}
		}
		if m.MedianWallS != nil {
			row.Wall = fmt.Sprintf("%.2f s", *m.MedianWallS)
		}
		row.Rubric = m.Rubric.String()
		p.Rows = append(p.Rows, row)
	}

	points, noCost, noScore := CostPoints(s)
	p.NoCost, p.NoScore = noCost, noScore
	if len(points) > 0 {
		p.HasChart = true
		front := Frontier(points)
		for _, i := range front {
			p.Frontier = append(p.Frontier, points[i])
		}
		p.Chart = template.HTML(costChart(points, front))
	}

	for _, c := range s.Categories {
		row := fbGridRow{Label: c}
		for _, m := range s.Models {
			cell, ok := s.ByCategory[c][m.Model]
			switch {
			case !ok:
				row.Cells = append(row.Cells, "")
			case cell.Scored == 0:
				row.Cells = append(row.Cells, "— (0 / 0)")
			default:
				row.Cells = append(row.Cells, fmt.Sprintf("%.0f%% (%d / %d)", 100*float64(cell.Passed)/float64(cell.Scored), cell.Passed, cell.Scored))
			}
		}
		p.Categories = append(p.Categories, row)
	}
	for _, t := range s.Tasks {
		row := fbGridRow{Label: t, Tag: s.TaskCategory[t]}
		for _, m := range s.Models {
			row.Cells = append(row.Cells, featherbench.GridCell(s.Grid[t][m.Model]))
		}
		p.Grid = append(p.Grid, row)
	}
	m := s.Judges
	for _, j := range m.Judges {
		row := fbGridRow{Label: j}
		for _, c := range m.Contestants {
			cell, ok := m.Cells[j][c]
			text := ""
			if ok {
				if mean, ok := cell.Mean(); ok {
					text = fmt.Sprintf("%.2f (%d)", mean, cell.N)
				} else {
					text = "—"
				}
				if cell.Errors > 0 {
					text += fmt.Sprintf(" +%d err", cell.Errors)
				}
				if cell.Self {
					text += " *"
				}
			}
			row.Cells = append(row.Cells, text)
		}
		p.MatrixRows = append(p.MatrixRows, row)
	}
	body, err := render(fbBody, p)
	if err != nil {
		return fmt.Errorf("rendering the Featherbench page: %w", err)
	}
	return page{
		Kind: "featherbench", Title: "Featherbench review", Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes,
		Body: body, Data: featherbenchData(recs, s, tasks),
	}.write(w)
}

func costChart(points []CostPoint, front []int) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		lo, hi = math.Min(lo, p.CostPerTask), math.Max(hi, p.CostPerTask)
	}
	sc := svg.Scatter{
		Title:  "Pass rate against cost per task, one point per model",
		XLabel: "cost per task (USD" + map[bool]string{true: ", log scale", false: ""}[lo > 0 && hi/lo >= 10] + ")",
		YLabel: "pass rate", YMax: 1,
		LogX:     lo > 0 && hi/lo >= 10,
		Frontier: front,
		FormatX:  func(v float64) string { return "$" + strconv.FormatFloat(v, 'g', 3, 64) },
		FormatY:  func(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" },
		MarkerID: "bar-line",
	}
	for _, p := range points {
		sc.Points = append(sc.Points, svg.Point{
			Label: p.Model, X: p.CostPerTask, Y: p.PassRate, YLo: p.Lo, YHi: p.Hi,
			Tip: fmt.Sprintf("%s: pass rate %.0f%% [%.0f–%.0f] over %d scored trials, $%s per task", p.Model, 100*p.PassRate, 100*p.Lo, 100*p.Hi, p.Scored, featherbench.FormatUSD(&p.CostPerTask)),
			Attrs: svg.Attrs{
				"data-model": p.Model, "data-rate": ftoa(p.PassRate), "data-lo": ftoa(p.Lo), "data-hi": ftoa(p.Hi), "data-cost": ftoa(p.CostPerTask),
			},
		})
	}
	return sc.SVG()
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// featherbenchData is the review list: every trial, grouped by task, then
// model, run and trial, as rows of fbFields.
func featherbenchData(recs []featherbench.Record, s featherbench.Summary, tasks map[string]featherbench.Task) fbData {
	d := fbData{Kind: "featherbench", Fields: fbFields, Runs: s.RunIDs, Trials: make([][]any, 0, len(recs))}
	modelIdx, runIdx, taskIdx := map[string]int{}, map[string]int{}, map[string]int{}
	for i, m := range s.Models {
		d.Models = append(d.Models, m.Model)
		modelIdx[m.Model] = i
	}
	for i, r := range s.RunIDs {
		runIdx[r] = i
	}
	changed := map[string]bool{}
	for _, r := range recs {
		if t, ok := tasks[r.Task]; ok && t.Hash != "" && r.TaskHash != "" && t.Hash != r.TaskHash {
			changed[r.Task] = true
		}
	}
	for i, id := range s.Tasks {
		taskIdx[id] = i
		var c featherbench.Cell
		for _, cell := range s.Grid[id] {
			c.Trials += cell.Trials
			c.Scored += cell.Scored
			c.Passed += cell.Passed
			c.Refused += cell.Refused
			c.Errors += cell.Errors
			c.Unscored += cell.Unscored
		}
		ft := fbTask{ID: id, Category: s.TaskCategory[id], Changed: changed[id]}
		ft.Summary = fmt.Sprintf("%d trials · %d / %d passed", c.Trials, c.Passed, c.Scored)
		for _, n := range []struct {
			count int
			what  string
		}{{c.Refused, "refused"}, {c.Errors, "errors"}, {c.Unscored, "unscored"}} {
			if n.count > 0 {
				ft.Summary += fmt.Sprintf(" · %d %s", n.count, n.what)
			}
		}
		if t, ok := tasks[id]; ok {
			ft.Prompt = t.Prompt
		}
		d.Tasks = append(d.Tasks, ft)
	}
	// The positions are looked up once per record, not once per comparison.
	pos := make([]struct{ task, model, run int }, len(recs))
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
		pos[i].task, pos[i].model, pos[i].run = taskIdx[recs[i].Task], modelIdx[recs[i].Model], runIdx[recs[i].RunID]
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &recs[order[a]], &recs[order[b]]
		pa, pb := pos[order[a]], pos[order[b]]
		if ra.Task != rb.Task {
			return pa.task < pb.task
		}
		if ra.Model != rb.Model {
			return pa.model < pb.model
		}
		if ra.RunID != rb.RunID {
			return pa.run < pb.run
		}
		return ra.Trial < rb.Trial
	})
	disagree := tasksModelsDisagreeOn(recs)
	for _, i := range order {
		r := &recs[i]
		grid := fbGrid(r.Rubric)
		var calls any
		if len(r.ToolCalls) > 0 {
			calls = r.ToolCalls
		}
		d.Trials = append(d.Trials, []any{
			taskIdx[r.Task], modelIdx[r.Model], runIdx[r.RunID], r.Trial, trialStatus(*r), r.Refusal, r.RefusalCategory, r.Text, calls,
			r.CheckDetail, r.StopReason, r.LatencyS, r.WallClockS, r.InputTokens, r.OutputTokens, r.CostUSD,
			r.RubricMean, grid, r.Error, r.Timestamp, r.SamplingSent, r.TaskHash, disagree[r.Task],
		})
	}
	return d
}

// tasksModelsDisagreeOn lists the tasks on which the models (a model in
// another run counts as another) did not all do the same: each model's
// verdict on a task is its share of passing trials, or an error or no
// verdict when it has no scored trial, and the task is listed when those
// differ. It is the Featherweight grid's "columns disagree" for trials.
func tasksModelsDisagreeOn(recs []featherbench.Record) map[string]bool {
	type tally struct{ passed, scored, errors int }
	by := map[string]map[string]*tally{}
	for _, r := range recs {
		if by[r.Task] == nil {
			by[r.Task] = map[string]*tally{}
		}
		key := r.Model + "\x00" + r.RunID
		t := by[r.Task][key]
		if t == nil {
			t = &tally{}
			by[r.Task][key] = t
		}
		switch trialStatus(r) {
		case statusPass:
			t.passed++
			t.scored++
		case statusFail:
			t.scored++
		case statusError:
			t.errors++
		}
	}
	out := map[string]bool{}
	for task, models := range by {
		seen := ""
		for _, t := range models {
			v := "no verdict"
			switch {
			case t.scored > 0:
				v = strconv.FormatFloat(float64(t.passed)/float64(t.scored), 'g', -1, 64)
			case t.errors > 0:
				v = "error"
			}
			if seen != "" && v != seen {
				out[task] = true
			}
			seen = v
		}
	}
	return out
}

// fbGrid is a trial's rubric grid as the page shows it (nil when it was
// not judged).
func fbGrid(raw json.RawMessage) []fbScore {
	var grid []fbScore
	if g, err := rubric.ParseGrid(raw); err == nil {
		for _, sc := range g {
			grid = append(grid, fbScore{Judge: sc.Judge, Score: sc.Score, Rationale: sc.Rationale, Self: sc.Self, Error: sc.Error})
		}
	}
	return grid
}

// WriteFeatherbenchReport writes the review page for records to path
// (whole, via a temporary file): the spec's report-<stamp>.html, for the
// suite to write beside its results. tasks may be nil.
func WriteFeatherbenchReport(path string, recs []featherbench.Record, tasks []featherbench.Task) error {
	byID := map[string]featherbench.Task{}
	for _, t := range tasks {
		byID[t.ID] = t
	}
	var b bytes.Buffer
	if err := FeatherbenchPage(&b, recs, byID, PageOptions{Subtitle: "run " + strings.Join(runIDs(recs), ", ")}); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

func runIDs(recs []featherbench.Record) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		if !seen[r.RunID] {
			seen[r.RunID] = true
			out = append(out, r.RunID)
		}
	}
	sort.Strings(out)
	return out
}
