package featherbench

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/stats"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/plural"
)

// Cell counts one model's trials of one task (or one category).
type Cell struct {
	Trials int
	// Scored trials are the pass-rate denominator: those with a checker
	// verdict, including refusals a "pass" or "fail" policy scores.
	Scored, Passed int
	// Refused counts hard refusals under any policy.
	Refused int
	// Errors have no verdict and are excluded from the pass rate.
	Errors int
	// Unsupported counts the errors that are capability mismatches (see
	// Record.Unsupported): part of Errors, shown apart.
	Unsupported int
	// Unscored: the task has no checker, or a refusal under the neutral
	// policy.
	Unscored int
}

func (c *Cell) add(r *Record) {
	c.Trials++
	switch {
	case r.Error != nil:
		c.Errors++
		if r.Unsupported() {
			c.Unsupported++
		}
	case r.Passed == nil:
		c.Unscored++
	default:
		c.Scored++
		if *r.Passed {
			c.Passed++
		}
	}
	if r.Refusal && r.Error == nil {
		c.Refused++
	}
}

// ModelStats is one model's row of the summary.
type ModelStats struct {
	Model string
	Cell
	// PassRate is Passed/Scored with its 95% Wilson interval (0 and [0, 1]
	// when nothing was scored).
	PassRate, Lo, Hi float64
	// Medians over trials without errors that report the value; nil when
	// none does. Latency is time to first token.
	MedianLatencyS, MedianWallS *float64
	// NoLatency counts the trials without errors that report no time to
	// first token (a server that answered without streaming), which the
	// latency median leaves out.
	NoLatency int
	// Token totals over every trial.
	InputTokens, OutputTokens int
	// CostUSD is the total over trials that report a cost (errors included:
	// a failed request may still be billed); nil when none does.
	CostUSD *float64
	// CostPerTaskUSD is the mean cost of one trial that reports a cost.
	CostPerTaskUSD *float64
	CostReported   int
	// Rubric is the model's Rubric /10 over its judged trials (zero when
	// none was judged).
	Rubric rubric.Overall
	// Smoke: the records are the built-in smoke model's.
	Smoke bool
}

// SmokeNote explains the † that marks the built-in smoke model.
const SmokeNote = "† feather's built-in smoke model: its numbers measure the harness, not a language model."

// Label is the model's key, marked † when it is the smoke model.
func (m ModelStats) Label() string {
	if m.Smoke {
		return m.Model + " †"
	}
	return m.Model
}

// Summary aggregates records from any number of runs.
type Summary struct {
	RunIDs []string
	Models []ModelStats
	// Tasks are sorted by id; Grid[task][model] is a cell of the grid.
	Tasks        []string
	Grid         map[string]map[string]Cell
	TaskCategory map[string]string
	// Categories are sorted; ByCategory[category][model] rolls tasks up.
	Categories []string
	ByCategory map[string]map[string]Cell
	// Judges is the judge-bias matrix over every judged trial; empty when
	// nothing was judged.
	Judges rubric.Matrix
	// JudgeCalls counts the verdicts in the records' rubric grids, one
	// per judge call; JudgeCostUSD totals the cost the judges' providers
	// reported (nil when none did). Neither is in the models' cost.
	JudgeCalls   int
	JudgeCostUSD *float64
	// Warnings name tasks whose records blend more than one task_hash,
	// records whose rubric grid cannot be read, and how many trials the
	// response cache answered.
	Warnings []string
}

// Uncategorised labels tasks whose category is empty or unknown.
const Uncategorised = "(none)"

// Summarize aggregates records; categories maps task ids to categories
// (see Categories) for the rollup. Models and tasks are listed sorted, so
// the summary does not depend on the order trials finished in.
func Summarize(records []Record, categories map[string]string) Summary {
	s := Summary{Grid: map[string]map[string]Cell{}, ByCategory: map[string]map[string]Cell{}, TaskCategory: map[string]string{}}
	runs := map[string]bool{}
	hashes := map[string]map[string]bool{}
	byModel := map[string]*modelTotals{}
	var graded []rubric.Graded
	judgeCost, judgeCostReported := 0.0, 0
	for i := range records {
		r := &records[i]
		grid, err := rubric.ParseGrid(r.Rubric)
		if err != nil {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s/%s/%d: unreadable rubric grid, left out of the rubric numbers: %v", r.Model, r.Task, r.Trial, err))
		} else if len(grid) > 0 {
			graded = append(graded, rubric.Graded{Contestant: r.Model, Grid: grid})
			s.JudgeCalls += len(grid)
			for _, v := range grid {
				if v.CostUSD != nil {
					judgeCost += *v.CostUSD
					judgeCostReported++
				}
			}
		}
		if r.RunID != "" {
			runs[r.RunID] = true
		}
		if hashes[r.Task] == nil {
			hashes[r.Task] = map[string]bool{}
		}
		hashes[r.Task][r.TaskHash] = true
		if byModel[r.Model] == nil {
			byModel[r.Model] = &modelTotals{ms: ModelStats{Model: r.Model}}
		}
		byModel[r.Model].add(r)

		cat := categories[r.Task]
		if cat == "" {
			cat = Uncategorised
		}
		s.TaskCategory[r.Task] = cat
		for _, g := range []struct {
			grid map[string]map[string]Cell
			key  string
		}{{s.Grid, r.Task}, {s.ByCategory, cat}} {
			if g.grid[g.key] == nil {
				g.grid[g.key] = map[string]Cell{}
			}
			c := g.grid[g.key][r.Model]
			c.add(r)
			g.grid[g.key][r.Model] = c
		}
	}
	s.RunIDs = keys(runs)
	s.Tasks = keys(s.Grid)
	s.Categories = keys(s.ByCategory)
	for _, task := range s.Tasks {
		if hs := keys(hashes[task]); len(hs) > 1 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("task %s: the records blend %d versions of the task (task_hash %s): its prompt, checker or tools changed between the runs combined here, so its numbers mix different tasks", task, len(hs), strings.Join(hs, ", ")))
		}
	}
	if n := cachedCount(records); n > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d of %d trials were answered from the response cache (-fb.cache), not asked in this run: their text, tokens, cost and timings are those of the original calls", n, len(records)))
	}
	overall := rubric.Overalls(graded)
	for _, m := range keys(byModel) {
		ms := byModel[m].stats()
		ms.Rubric = overall[m]
		s.Models = append(s.Models, ms)
	}
	s.Judges = rubric.BiasMatrix(graded)
	if judgeCostReported > 0 {
		s.JudgeCostUSD = ptr(judgeCost)
	}
	return s
}

// modelTotals gathers one model's row as Summarize reads its records,
// in order, so no model's records are copied out first.
type modelTotals struct {
	ms        ModelStats
	lat, wall []float64
	cost      float64
}

func (t *modelTotals) add(r *Record) {
	ms := &t.ms
	ms.add(r)
	ms.Smoke = ms.Smoke || r.Smoke
	ms.InputTokens += r.InputTokens
	ms.OutputTokens += r.OutputTokens
	if r.CostUSD != nil {
		t.cost += *r.CostUSD
		ms.CostReported++
	}
	if r.Error != nil {
		return
	}
	if r.LatencyS != nil {
		t.lat = append(t.lat, *r.LatencyS)
	} else {
		ms.NoLatency++
	}
	if r.WallClockS != nil {
		t.wall = append(t.wall, *r.WallClockS)
	}
}

// stats is the model's row: rates, interval, medians and costs.
func (t *modelTotals) stats() ModelStats {
	ms := t.ms
	if ms.Scored > 0 {
		ms.PassRate = float64(ms.Passed) / float64(ms.Scored)
	}
	ms.Lo, ms.Hi = stats.Wilson(ms.Passed, ms.Scored, stats.Z95)
	if len(t.lat) > 0 {
		ms.MedianLatencyS = ptr(stats.Median(t.lat))
	}
	if len(t.wall) > 0 {
		ms.MedianWallS = ptr(stats.Median(t.wall))
	}
	if ms.CostReported > 0 {
		ms.CostUSD = ptr(t.cost)
		ms.CostPerTaskUSD = ptr(t.cost / float64(ms.CostReported))
	}
	return ms
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Markdown renders the summary.
func (s Summary) Markdown() string {
	var b strings.Builder
	b.WriteString("# Featherbench summary\n\n")
	trials := 0
	for _, m := range s.Models {
		trials += m.Trials
	}
	runs := "Run " + strings.Join(s.RunIDs, "")
	switch {
	case len(s.RunIDs) == 0:
		runs = "Records without a run id"
	case len(s.RunIDs) > 1:
		runs = fmt.Sprintf("%d runs combined (%s)", len(s.RunIDs), strings.Join(s.RunIDs, ", "))
	}
	fmt.Fprintf(&b, "%s: %s, %s, %s.\n\n", runs, plural.Of(len(s.Models), "model"), plural.Of(len(s.Tasks), "task"), plural.Of(trials, "trial"))
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "> **Warning:** %s.\n\n", w)
	}

	judged := len(s.Judges.Judges) > 0
	rubricHead, rubricRule := "", ""
	if judged {
		rubricHead, rubricRule = " Rubric /10 |", "---|"
	}
	b.WriteString("| model | pass rate [95% CI] | passed / scored | refused | errors | unscored |" + rubricHead + " median latency (s) | median wall (s) | input tokens | output tokens | cost (USD) | cost / task (USD) |\n")
	b.WriteString("|---|---|---|---|---|---|" + rubricRule + "---|---|---|---|---|---|\n")
	unsupported, noLatency, smoke := 0, false, false
	for _, m := range s.Models {
		smoke = smoke || m.Smoke
		unsupported += m.Unsupported
		noLatency = noLatency || m.PartlyTimed()
		errs := strconv.Itoa(m.Errors)
		if m.Unsupported > 0 {
			errs += fmt.Sprintf(" (%d unsupported)", m.Unsupported)
		}
		rub := ""
		if judged {
			rub = " " + m.Rubric.String() + " |"
		}
		fmt.Fprintf(&b, "| %s | %s | %d / %d | %d | %s | %d |%s %s | %s | %d | %d | %s | %s |\n",
			m.Label(), rate(m.Passed, m.Scored, m.Lo, m.Hi), m.Passed, m.Scored, m.Refused, errs, m.Unscored, rub,
			m.LatencyCell(), FormatSeconds(m.MedianWallS), m.InputTokens, m.OutputTokens, FormatUSD(m.CostUSD), FormatUSD(m.CostPerTaskUSD))
	}
	b.WriteString("\nPass rate = passed / scored, with the 95% Wilson score interval. Scored trials exclude errors " +
		"(counted in their own column), refusals on tasks whose refusal policy is neutral, and tasks without a checker " +
		"(both counted as unscored); a refusal on a task whose policy is pass or fail is scored, and also counted as refused. " +
		"Latency is time to first token; medians are over trials without errors. Cost is the total reported by the provider; " +
		"cost / task is the mean cost of one trial.")
	if noLatency {
		b.WriteString(" \"(N n/a)\" after a median latency counts the model's trials that have no time to first token " +
			"(a server that answered without streaming): the median leaves them out.")
	}
	if unsupported > 0 {
		b.WriteString(" Unsupported errors are trials the backend cannot serve by design (a task with tools on a model that cannot take them): " +
			"recorded with their error, out of the pass rate, and skipped rather than failed by go test.")
	}
	if judged {
		b.WriteString(" Rubric /10 is the mean, over the model's judged trials, of each trial's rubric_mean " +
			"(the mean of the valid scores from judges other than the model itself); — when no trial has one.")
	}
	b.WriteString("\n")
	if smoke {
		b.WriteString("\n" + SmokeNote + "\n")
	}

	models := make([]string, len(s.Models))
	for i, m := range s.Models {
		models[i] = m.Model
	}
	b.WriteString("\n## Per task\n\nPassed / scored trials; R refused, E errors (X: how many of them are unsupported), U unscored.\n\n")
	b.WriteString("| task | category | " + strings.Join(models, " | ") + " |\n")
	b.WriteString("|---|---" + strings.Repeat("|---", len(models)) + "|\n")
	for _, task := range s.Tasks {
		b.WriteString("| " + task + " | " + s.TaskCategory[task])
		for _, m := range models {
			b.WriteString(" | " + GridCell(s.Grid[task][m]))
		}
		b.WriteString(" |\n")
	}

	b.WriteString("\n## Per category\n\nPass rate (passed / scored) over the category's tasks.\n\n")
	b.WriteString("| category | " + strings.Join(models, " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(models)) + "|\n")
	for _, cat := range s.Categories {
		b.WriteString("| " + cat)
		for _, m := range models {
			c, ok := s.ByCategory[cat][m]
			switch {
			case !ok:
				b.WriteString(" | ")
			case c.Scored == 0:
				b.WriteString(" | — (0 / 0)")
			default:
				fmt.Fprintf(&b, " | %s (%d / %d)", pct(float64(c.Passed)/float64(c.Scored)), c.Passed, c.Scored)
			}
		}
		b.WriteString(" |\n")
	}

	if judged {
		b.WriteString("\n## Judge-bias matrix\n\n")
		var counts []string
		for _, m := range s.Models {
			if m.Rubric.Graded > 0 {
				counts = append(counts, fmt.Sprintf("%s %d (%d with a Rubric /10 score)", m.Model, m.Rubric.Graded, m.Rubric.Trials))
			}
		}
		fmt.Fprintf(&b, "Judged trials: %s. Judge calls: %d; their cost: %s USD, not included in the models' cost above.\n\n",
			strings.Join(counts, ", "), s.JudgeCalls, FormatUSD(s.JudgeCostUSD))
		b.WriteString(s.Judges.Markdown())
	}
	return b.String()
}

// WriteSummary writes the Markdown summary of records to path, atomically:
// a reader never sees half a file. categories may be nil.
func WriteSummary(records []Record, path string, categories map[string]string) error {
	return atomicfile.Write(path, []byte(Summarize(records, categories).Markdown()))
}

func rate(passed, scored int, lo, hi float64) string {
	if scored == 0 {
		return "—"
	}
	return fmt.Sprintf("%s [%.0f–%.0f]", pct(float64(passed)/float64(scored)), 100*lo, 100*hi)
}

func pct(p float64) string { return fmt.Sprintf("%.0f%%", 100*p) }

// GridCell is c as the per-task grid shows it: "passed / scored", then
// the non-zero counts of refusals (R), errors (E), unsupported errors
// among them (X) and unscored trials (U); "" for no trials. A function,
// not a String method, which ModelStats would inherit from its Cell.
func GridCell(c Cell) string {
	if c.Trials == 0 {
		return ""
	}
	s := fmt.Sprintf("%d / %d", c.Passed, c.Scored)
	var notes []string
	for _, n := range []struct {
		count int
		tag   string
	}{{c.Refused, "R"}, {c.Errors, "E"}, {c.Unsupported, "X"}, {c.Unscored, "U"}} {
		if n.count > 0 {
			notes = append(notes, strconv.Itoa(n.count)+n.tag)
		}
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, " ") + ")"
	}
	return s
}

// FormatSeconds is a summary's seconds cell: two decimals, "—" for none.
func FormatSeconds(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

// LatencyCell is a model's median latency cell: FormatSeconds, and when
// some of the trials it covers have no time to first token, how many:
// "0.41 (3 n/a)".
func (m ModelStats) LatencyCell() string {
	cell := FormatSeconds(m.MedianLatencyS)
	if m.PartlyTimed() {
		cell += fmt.Sprintf(" (%d n/a)", m.NoLatency)
	}
	return cell
}

// PartlyTimed reports whether some of the model's trials without errors
// have a time to first token and some have none.
func (m ModelStats) PartlyTimed() bool { return m.MedianLatencyS != nil && m.NoLatency > 0 }

// FormatUSD is a summary's cost cell: four decimals, six below a cent
// (so a trial's cost is not rounded away), "—" for none.
func FormatUSD(v *float64) string {
	switch {
	case v == nil:
		return "—"
	case *v != 0 && *v < 0.01:
		return fmt.Sprintf("%.6f", *v)
	}
	return fmt.Sprintf("%.4f", *v)
}

func cachedCount(records []Record) int {
	n := 0
	for _, r := range records {
		if r.Cached {
			n++
		}
	}
	return n
}
