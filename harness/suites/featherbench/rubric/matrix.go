package rubric

import (
	"fmt"
	"sort"
	"strings"
)

// Graded is one graded trial: who answered and the judges' grid.
type Graded struct {
	Contestant string
	Grid       Grid
}

// Cell is what one judge gave one contestant over every graded trial.
type Cell struct {
	// Sum and N are over valid scores; Errors counts judge errors.
	Sum, N, Errors int
	// Self marks the judge grading its own answers.
	Self bool
}

// Mean is Sum/N; ok is false when there is no valid score.
func (c Cell) Mean() (mean float64, ok bool) {
	if c.N == 0 {
		return 0, false
	}
	return float64(c.Sum) / float64(c.N), true
}

// Matrix is the judge-bias matrix: the mean score each judge gives each
// contestant, self-scores included and marked, so self-preference is a
// visible number rather than hidden in a headline.
type Matrix struct {
	Judges, Contestants []string // sorted
	// Cells[judge][contestant]; a missing cell means no verdict at all.
	Cells map[string]map[string]Cell
}

// BiasMatrix builds the matrix from graded trials.
func BiasMatrix(graded []Graded) Matrix {
	m := Matrix{Cells: map[string]map[string]Cell{}}
	contestants := map[string]bool{}
	for _, g := range graded {
		if len(g.Grid) == 0 {
			continue
		}
		contestants[g.Contestant] = true
		for _, s := range g.Grid {
			row := m.Cells[s.Judge]
			if row == nil {
				row = map[string]Cell{}
				m.Cells[s.Judge] = row
			}
			c := row[g.Contestant]
			c.Self = s.Judge == g.Contestant
			if s.Score == nil {
				c.Errors++
			} else {
				c.Sum += *s.Score
				c.N++
			}
			row[g.Contestant] = c
		}
	}
	m.Judges = sortedKeys(m.Cells)
	m.Contestants = sortedKeys(contestants)
	return m
}

// Overall is one contestant's Rubric /10: the mean over its graded trials
// of each trial's headline mean (Mean), so every trial weighs the same
// however many judges answered it.
type Overall struct {
	Mean float64
	// Trials is how many trials have a headline mean; Graded how many
	// were sent to judges (the rest had only errors or self-scores).
	Trials, Graded int
}

// String is the summary's Rubric /10 cell: "7.5" or "—".
func (o Overall) String() string {
	if o.Trials == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f", o.Mean)
}

// Overalls computes every contestant's Rubric /10.
func Overalls(graded []Graded) map[string]Overall {
	sums := map[string]float64{}
	out := map[string]Overall{}
	for _, g := range graded {
		if len(g.Grid) == 0 {
			continue
		}
		o := out[g.Contestant]
		o.Graded++
		if m := Mean(g.Grid, g.Contestant); m != nil {
			sums[g.Contestant] += *m
			o.Trials++
		}
		out[g.Contestant] = o
	}
	for k, o := range out {
		if o.Trials > 0 {
			o.Mean = sums[k] / float64(o.Trials)
			out[k] = o
		}
	}
	return out
}

// Markdown renders the matrix with judges as rows and contestants as
// columns; each cell is "mean (n)", self-scores are marked with "*", and
// judge errors get a column of their own. Empty when nothing was graded.
func (m Matrix) Markdown() string {
	if len(m.Judges) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| judge ↓ / contestant → | " + strings.Join(m.Contestants, " | ") + " | judge errors |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(m.Contestants)) + "|---|\n")
	self := false
	for _, j := range m.Judges {
		b.WriteString("| " + j)
		errs := 0
		for _, c := range m.Contestants {
			cell, ok := m.Cells[j][c]
			errs += cell.Errors
			b.WriteString(" | ")
			if !ok {
				continue
			}
			if mean, ok := cell.Mean(); ok {
				fmt.Fprintf(&b, "%.2f (%d)", mean, cell.N)
			} else {
				b.WriteString("—")
			}
			if cell.Self {
				b.WriteString(" *")
				self = true
			}
		}
		fmt.Fprintf(&b, " | %d |\n", errs)
	}
	b.WriteString("\nEach cell is the mean score (1–10) the judge gave the contestant, with the number of valid scores in brackets. " +
		"Judge errors (a reply that did not parse, or a score that is not a whole number from 1 to 10) are counted apart and never scored.")
	if self {
		b.WriteString(" * marks a judge grading its own answers: shown here, left out of the contestant's Rubric /10.")
	}
	b.WriteString("\n")
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
