package audit

import (
	"context"
	"fmt"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// Thresholds: a μBench task is given away when a heuristic's
// chance-normalised score exceeds MicrobenchThreshold; a Featherweight set
// when a heuristic's accuracy exceeds FeatherweightThreshold percent
// (chance is 25%).
const (
	MicrobenchThreshold    = 15
	FeatherweightThreshold = 35
)

// Microbench scores every choice task with every heuristic through
// microbench.Evaluate and returns one gated row per task (bits per byte,
// which has no choices, is left out).
func Microbench(ctx context.Context, tasks []*microbench.Task, tok Tokenizer) (*Table, error) {
	var choice []*microbench.Task
	for _, t := range tasks {
		if !t.IsBPB() {
			choice = append(choice, t)
		}
	}
	hs := Heuristics(tok)
	tab := &Table{Suite: microbench.Name, Metric: "chance-normalised score (0–100)", Threshold: MicrobenchThreshold}
	for _, t := range choice {
		tab.Rows = append(tab.Rows, Row{Name: t.ID, Gated: true, Cells: make([]float64, len(hs))})
	}
	for hi, h := range hs {
		tab.Heuristics = append(tab.Heuristics, h.Name)
		info := lm.Info{Key: "heuristic-" + h.Name, Backend: "audit"}
		res, err := microbench.Evaluate(ctx, NewScorer(h, choice), info, choice, microbench.Options{})
		if err != nil {
			return nil, fmt.Errorf("audit: heuristic %s: %w", h.Name, err)
		}
		for ti, tr := range res.Tasks {
			tab.Rows[ti].Cells[hi] = tr.Score
		}
	}
	return tab, nil
}

// Featherweight asks every item with every heuristic in both prompt
// styles through featherweight.Evaluate and returns the accuracy per style
// (gated rows) and, for the plain style, per category (not gated: ten
// items are too few to judge a category alone).
func Featherweight(ctx context.Context, items []featherweight.Item, tok Tokenizer) (*Table, error) {
	hs := Heuristics(tok)
	tab := &Table{Suite: "Featherweight", Metric: "accuracy %", Threshold: FeatherweightThreshold}
	rows := map[string]int{}
	row := func(name string, gated bool) int {
		if i, ok := rows[name]; ok {
			return i
		}
		rows[name] = len(tab.Rows)
		tab.Rows = append(tab.Rows, Row{Name: name, Gated: gated, Cells: make([]float64, len(hs))})
		return rows[name]
	}
	for _, st := range featherweight.Styles {
		row(string(st), true)
	}
	for hi, h := range hs {
		tab.Heuristics = append(tab.Heuristics, h.Name)
		info := lm.Info{Key: "heuristic-" + h.Name, Backend: "audit"}
		gen := NewGenerator(h, items)
		var result featherweight.ModelResult
		result.Model = info
		for _, st := range featherweight.Styles {
			recs, err := featherweight.Evaluate(ctx, gen, info, st, items)
			if err != nil {
				return nil, fmt.Errorf("audit: heuristic %s, %s prompts: %w", h.Name, st, err)
			}
			for _, r := range recs {
				if r.Error != "" {
					return nil, fmt.Errorf("audit: heuristic %s, %s prompt of item %s: %s", h.Name, st, r.ID, r.Error)
				}
			}
			result.Records = append(result.Records, recs...)
		}
		for _, s := range featherweight.Summarize([]featherweight.ModelResult{result}) {
			tab.Rows[row(string(s.Style), true)].Cells[hi] = s.ScorePct
			if s.Style != featherweight.Plain {
				continue
			}
			for _, c := range s.Categories {
				tab.Rows[row(c.Category, false)].Cells[hi] = c.ScorePct
			}
		}
	}
	return tab, nil
}
