// Package leaderboard merges runs into one leaderboard per suite, as
// Markdown for people and summary.json for programs. Rankings use the
// suites' own numbers: Featherbench's summary, μBench's leaderboard and
// significance rule, Featherweight's two prompt columns.
package leaderboard

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/markdown"
	"github.com/feather-eval/feather/internal/plural"
)

// File names written by Write.
const (
	MarkdownFile = "leaderboard.md"
	JSONFile     = "summary.json"
)

// Summary is summary.json: one section per suite found.
type Summary struct {
	Runs          []string       `json:"runs"`
	Featherbench  *Featherbench  `json:"featherbench,omitempty"`
	Featherweight *Featherweight `json:"featherweight,omitempty"`
	Microbench    *Microbench    `json:"microbench,omitempty"`
}

// Featherbench ranks models by pass rate, then by cost per task.
type Featherbench struct {
	RunIDs   []string    `json:"run_ids"`
	Warnings []string    `json:"warnings,omitempty"`
	Models   []FBModel   `json:"models"`
	Frontier []string    `json:"frontier"`
	Tasks    int         `json:"tasks"`
	Judges   *rubricInfo `json:"rubric,omitempty"`
}

type rubricInfo struct {
	Judges []string `json:"judges"`
}

// FBModel is one Featherbench row.
type FBModel struct {
	Rank           int      `json:"rank"`
	Model          string   `json:"model"`
	PassRate       *float64 `json:"pass_rate"`
	CILow          float64  `json:"ci_low"`
	CIHigh         float64  `json:"ci_high"`
	Passed         int      `json:"passed"`
	Scored         int      `json:"scored"`
	Trials         int      `json:"trials"`
	Refused        int      `json:"refused"`
	Errors         int      `json:"errors"`
	Unscored       int      `json:"unscored"`
	CostUSD        *float64 `json:"cost_usd"`
	CostPerTaskUSD *float64 `json:"cost_per_task_usd"`
	MedianLatencyS *float64 `json:"median_latency_s"`
	NoLatency      int      `json:"trials_without_latency,omitempty"` // left out of the median: no time to first token
	MedianWallS    *float64 `json:"median_wall_clock_s"`
	InputTokens    int      `json:"input_tokens"`
	OutputTokens   int      `json:"output_tokens"`
	RubricMean     *float64 `json:"rubric_mean"`
	RubricTrials   int      `json:"rubric_trials"`
}

// Featherweight is both prompt columns per model.
type Featherweight struct {
	Data     featherweight.DataInfo  `json:"data"`
	Warnings []string                `json:"warnings,omitempty"`
	Rows     []featherweight.Summary `json:"rows"`
}

// Microbench ranks complete results by index.
type Microbench struct {
	Ranked   []MBRow `json:"ranked"`
	Unranked []MBRow `json:"unranked"`
}

// MBRow is one μBench result.
type MBRow struct {
	Rank  int    `json:"rank,omitempty"`
	Model string `json:"model"`
	Label string `json:"label"`
	Run   string `json:"run"`
	// Params is the parameter count (0 when unknown).
	Params int64    `json:"params"`
	Index  *float64 `json:"mubench_intelligence_index"`
	SE     *float64 `json:"index_se"`
	// WithinNoise: the gap to the row ranked directly above is smaller
	// than 2·√(se₁²+se₂²) (the spec's rule).
	WithinNoise  bool               `json:"within_noise_of_above,omitempty"`
	DomainScores map[string]float64 `json:"domain_scores"`
	TaskScores   map[string]float64 `json:"task_scores"`
}

// Build computes the summary of set.
func Build(set *runs.Set) Summary {
	s := Summary{Runs: set.Stamps()}
	if fb := set.Featherbench; fb != nil {
		s.Featherbench = featherbenchBoard(fb)
	}
	if fw := set.Featherweight; fw != nil {
		data, results, warnings := report.MergeFeatherweight(fw)
		sortByParams(results)
		s.Featherweight = &Featherweight{Data: data, Warnings: warnings, Rows: featherweight.Summarize(results)}
	}
	if mb := set.Microbench; mb != nil {
		s.Microbench = microbenchBoard(mb.Results)
	}
	return s
}

func featherbenchBoard(fb *runs.Featherbench) *Featherbench {
	sum := featherbench.Summarize(report.MergeFeatherbench(fb), fb.Categories())
	out := &Featherbench{RunIDs: sum.RunIDs, Warnings: sum.Warnings, Tasks: len(sum.Tasks), Frontier: []string{}}
	for _, m := range sum.Models {
		row := FBModel{Model: m.Model, CILow: m.Lo, CIHigh: m.Hi, Passed: m.Passed, Scored: m.Scored, Trials: m.Trials,
			Refused: m.Refused, Errors: m.Errors, Unscored: m.Unscored, CostUSD: m.CostUSD, CostPerTaskUSD: m.CostPerTaskUSD,
			MedianLatencyS: m.MedianLatencyS, NoLatency: m.NoLatency, MedianWallS: m.MedianWallS, InputTokens: m.InputTokens, OutputTokens: m.OutputTokens}
		if m.Scored > 0 {
			rate := m.PassRate
			row.PassRate = &rate
		}
		if m.Rubric.Trials > 0 {
			mean := m.Rubric.Mean
			row.RubricMean, row.RubricTrials = &mean, m.Rubric.Trials
		}
		out.Models = append(out.Models, row)
	}
	// Rank: pass rate high to low (nothing scored last), then cheaper
	// first (no reported cost after any cost), then by name.
	sort.SliceStable(out.Models, func(i, j int) bool {
		a, b := out.Models[i], out.Models[j]
		ra, rb := -1.0, -1.0
		if a.PassRate != nil {
			ra = *a.PassRate
		}
		if b.PassRate != nil {
			rb = *b.PassRate
		}
		if ra != rb {
			return ra > rb
		}
		ca, cb := math.Inf(1), math.Inf(1)
		if a.CostPerTaskUSD != nil {
			ca = *a.CostPerTaskUSD
		}
		if b.CostPerTaskUSD != nil {
			cb = *b.CostPerTaskUSD
		}
		if ca != cb {
			return ca < cb
		}
		return a.Model < b.Model
	})
	for i := range out.Models {
		out.Models[i].Rank = i + 1
	}
	points, _, _ := report.CostPoints(sum)
	for _, i := range report.Frontier(points) {
		out.Frontier = append(out.Frontier, points[i].Model)
	}
	if len(sum.Judges.Judges) > 0 {
		out.Judges = &rubricInfo{Judges: sum.Judges.Judges}
	}
	return out
}

// sortByParams orders models as the spec's chart does: by parameter count,
// unknown counts last in their run order.
func sortByParams(results []featherweight.ModelResult) {
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i].Model.Params, results[j].Model.Params
		switch {
		case a > 0 && b > 0:
			return a < b
		default:
			return a > 0 && b <= 0
		}
	})
}

func microbenchBoard(results []*microbench.Result) *Microbench {
	out := &Microbench{Ranked: []MBRow{}, Unranked: []MBRow{}}
	labels := microbench.Labels(results)
	row := func(r *microbench.Result) MBRow {
		return MBRow{Model: r.Model.Key, Label: labels[r], Run: r.Run, Params: r.NumParameters, Index: r.Index, SE: r.StandardErrors.Index,
			DomainScores: r.DomainScores, TaskScores: r.TaskScores}
	}
	for _, r := range results {
		if r.Index == nil {
			out.Unranked = append(out.Unranked, row(r))
		}
	}
	for i, rr := range microbench.Rank(results) {
		mr := row(rr.Result)
		mr.Rank, mr.WithinNoise = i+1, rr.WithinNoise
		out.Ranked = append(out.Ranked, mr)
	}
	return out
}

// Markdown renders the leaderboards of set.
func Markdown(set *runs.Set, s Summary) (string, error) {
	var b strings.Builder
	b.WriteString("# feather leaderboard\n\n")
	fmt.Fprintf(&b, "Merged from %s: %s.\n", plural.Of(len(s.Runs), "run"), strings.Join(s.Runs, ", "))
	if fb := s.Featherbench; fb != nil {
		b.WriteString("\n## Featherbench\n\n")
		fmt.Fprintf(&b, "%s, %s, runs %s. Ranked by pass rate, then by cost per task.\n\n", plural.Of(len(fb.Models), "model"), plural.Of(fb.Tasks, "task"), strings.Join(fb.RunIDs, ", "))
		for _, w := range fb.Warnings {
			fmt.Fprintf(&b, "> **Warning:** %s.\n\n", w)
		}
		b.WriteString("| rank | model | pass rate [95% CI] | passed / scored | cost / task (USD) | median latency (s) | median wall (s) | Rubric /10 | trials |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
		noLatency := false
		for _, m := range fb.Models {
			rate := "—"
			if m.PassRate != nil {
				rate = fmt.Sprintf("%.0f%% [%.0f–%.0f]", 100**m.PassRate, 100*m.CILow, 100*m.CIHigh)
			}
			rub := "—"
			if m.RubricMean != nil {
				rub = fmt.Sprintf("%.1f", *m.RubricMean)
			}
			lat := featherbench.ModelStats{MedianLatencyS: m.MedianLatencyS, NoLatency: m.NoLatency}
			noLatency = noLatency || lat.PartlyTimed()
			fmt.Fprintf(&b, "| %d | %s | %s | %d / %d | %s | %s | %s | %s | %d |\n", m.Rank, markdown.Cell(m.Model), rate, m.Passed, m.Scored,
				featherbench.FormatUSD(m.CostPerTaskUSD), lat.LatencyCell(), featherbench.FormatSeconds(m.MedianWallS), rub, m.Trials)
		}
		b.WriteString("\nPass rate = passed / scored with the 95% Wilson interval; overlapping intervals mean the order is not settled. Latency is time to first token. ")
		if noLatency {
			b.WriteString(`"(N n/a)" after a median latency counts the trials that have none (a server that answered without streaming), which the median leaves out. `)
		}
		b.WriteString("Rubric /10 leaves out a judge's scores of its own answers.\n")
		if len(fb.Frontier) > 0 {
			fmt.Fprintf(&b, "\nCheapest model at each pass rate (the Pareto frontier, cheapest first): %s.\n", strings.Join(fb.Frontier, " → "))
		}
	}
	if fw := s.Featherweight; fw != nil {
		var md strings.Builder
		if err := featherweight.WriteMarkdown(&md, fw.Data, fw.Rows); err != nil {
			return "", err
		}
		b.WriteString("\n")
		for _, w := range fw.Warnings {
			fmt.Fprintf(&b, "> **Warning:** %s\n\n", w)
		}
		b.WriteString(demote(md.String()))
	}
	if mb := set.Microbench; mb != nil {
		b.WriteString("\n" + demote(microbench.Leaderboard(mb.Results)))
	}
	return b.String(), nil
}

// demote turns a suite's own Markdown into a section: every heading one
// level down.
func demote(md string) string {
	lines := strings.Split(md, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}

// Write writes leaderboard.md and summary.json into dir and returns the
// Markdown. Each file is written whole (a temporary file renamed into
// place).
func Write(set *runs.Set, dir string) (string, error) {
	s := Build(set)
	md, err := Markdown(set, s)
	if err != nil {
		return "", err
	}
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{MarkdownFile: []byte(md), JSONFile: append(js, '\n')} {
		if err := atomicfile.Write(filepath.Join(dir, name), data); err != nil {
			return "", err
		}
	}
	return md, nil
}
