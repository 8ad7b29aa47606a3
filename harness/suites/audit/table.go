package audit

import (
	"fmt"
	"strings"
)

// Table is an audit: one row per task (or group of items), one column per
// heuristic, each cell the heuristic's score there in the suite's metric.
type Table struct {
	// Suite names the item set; Metric the unit of the cells.
	Suite, Metric string
	// Threshold is the highest score a heuristic may reach on a gated row.
	Threshold  float64
	Heuristics []string
	Rows       []Row
}

// Row is one task's scores, in the table's heuristic order.
type Row struct {
	Name string
	// Gated rows are held to the threshold; the others are shown to help
	// find where a cue comes from (a Featherweight category of ten items,
	// say, is too small to judge alone).
	Gated bool
	Cells []float64
}

// Max is the row's highest score and the heuristic that reaches it first.
func (r Row) Max(heuristics []string) (float64, string) {
	best := 0
	for i, v := range r.Cells {
		if v > r.Cells[best] {
			best = i
		}
	}
	return r.Cells[best], heuristics[best]
}

// Over lists the cells of gated rows above the threshold, as
// "row/heuristic score".
func (t *Table) Over() []string {
	var out []string
	for _, r := range t.Rows {
		if !r.Gated {
			continue
		}
		for i, v := range r.Cells {
			if v > t.Threshold {
				out = append(out, fmt.Sprintf("%s/%s %.1f", r.Name, t.Heuristics[i], v))
			}
		}
	}
	return out
}

// Markdown renders the table with a max column; gated cells above the
// threshold are in bold, and a closing line says what the numbers are.
func (t *Table) Markdown() string {
	var b strings.Builder
	b.WriteString("| task |")
	for _, h := range t.Heuristics {
		b.WriteString(" " + h + " |")
	}
	b.WriteString(" max |\n|---|")
	for range t.Heuristics {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	cell := func(r Row, v float64) string {
		s := fmt.Sprintf("%.1f", v)
		if r.Gated && v > t.Threshold {
			return "**" + s + "**"
		}
		return s
	}
	for _, r := range t.Rows {
		name := r.Name
		if !r.Gated {
			name = "· " + name
		}
		b.WriteString("| " + name + " |")
		for _, v := range r.Cells {
			b.WriteString(" " + cell(r, v) + " |")
		}
		m, _ := r.Max(t.Heuristics)
		b.WriteString(" " + cell(r, m) + " |\n")
	}
	fmt.Fprintf(&b, "\n%s shortcut audit: %s of each heuristic; above %g (bold) gives answers away", t.Suite, t.Metric, t.Threshold)
	for _, r := range t.Rows {
		if !r.Gated {
			b.WriteString("; rows marked · are shown to find a cue, not held to it")
			break
		}
	}
	switch over := t.Over(); len(over) {
	case 0:
		b.WriteString(": none is over.\n")
	case 1:
		fmt.Fprintf(&b, ": 1 cell over (%s).\n", over[0])
	default:
		fmt.Fprintf(&b, ": %d cells over (%s).\n", len(over), strings.Join(over, ", "))
	}
	return b.String()
}
