package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/feather-eval/feather/internal/markdown"
	"github.com/feather-eval/feather/internal/plural"
)

// Markdown writes the comparison: the paired statistics of every section
// on top, μBench's domains and index, then per section the items that
// differ and those left out of the pairing.
func (c *Comparison) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s against %s\n\n", c.B.Label, c.A.Label)
	fmt.Fprintf(&b, "A is %s, B is %s. For each suite, over the units both answered: each side's score, "+
		"B − A in percentage points with its 95%% interval, the units where each side is ahead, and the two-sided p-value. "+
		"A verdict needs p < %g.\n\n", cell(sideText(c.A)), cell(sideText(c.B)), Alpha)
	b.WriteString("| suite | paired | A | B | B − A [95% CI] | A ahead | B ahead | p | verdict |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, d := range c.Sections {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %d | %d | %s | %s |\n", d.Label, plural.Of(d.Units, d.Unit), pct(d.RateA), pct(d.RateB),
			d.DiffText(), d.Behind, d.Ahead, FormatP(d.P), d.Verdict)
	}
	var left []string
	for _, d := range c.Sections {
		if n := d.LeftOut(); n != "" {
			left = append(left, d.Label+": "+n)
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(&b, "\nLeft out of the pairing and listed below: %s.\n", strings.Join(left, "; "))
	}
	if len(c.Missing) > 0 {
		fmt.Fprintf(&b, "\nNot compared: %s.\n", strings.Join(c.Missing, "; "))
	}
	for _, d := range c.Sections {
		if m := d.Microbench; m != nil {
			m.markdown(&b)
		}
	}
	for _, d := range c.Sections {
		d.markdown(&b)
	}
	return b.String()
}

func sideText(s Side) string {
	if s.Run == "" {
		return s.Model
	}
	return s.Model + " in run " + s.Run
}

func cell(s string) string { return markdown.Cell(s) }

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// DiffText is B − A with its interval, in percentage points.
func (d SectionDiff) DiffText() string {
	if d.Units == 0 {
		return "—"
	}
	return fmt.Sprintf("%s [%s]", points(d.Diff), d.interval())
}

func (d SectionDiff) interval() string {
	end := func(v float64) string {
		if math.IsInf(v, 0) {
			return "?"
		}
		return fmt.Sprintf("%+.1f", 100*v)
	}
	return end(d.Lo) + ", " + end(d.Hi)
}

// LeftOut counts the items outside the pairing ("" when none).
func (d SectionDiff) LeftOut() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{len(d.OnlyA), "only in A"}, {len(d.OnlyB), "only in B"}, {len(d.Errored), "errored"}, {len(d.Unscored), "without a verdict"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if d.Partial > 0 {
		parts = append(parts, fmt.Sprintf("%s incomplete on a side", plural.Of(d.Partial, d.Unit)))
	}
	return strings.Join(parts, ", ")
}

func (m *MicrobenchDiff) markdown(b *strings.Builder) {
	b.WriteString("\n## μBench: domains and index\n\n")
	for _, w := range m.Warnings {
		fmt.Fprintf(b, "> **Warning:** %s.\n\n", w)
	}
	b.WriteString("Scores (0–100) over the units both scored; B − A with its paired standard error. ≠ marks a difference outside ±1.96 SE.\n\n")
	b.WriteString("| score | A | B | B − A ± SE | |\n|---|---|---|---|---|\n")
	rows := append([]ScoreDiff(nil), m.Domains...)
	if m.Index != nil {
		rows = append(rows, *m.Index)
	}
	for _, r := range rows {
		name := r.ID + " " + r.Name
		if r.ID == "index" {
			name = "**index**"
		}
		fmt.Fprintf(b, "| %s | %.2f | %.2f | %s | %s |\n", cell(name), r.A, r.B, r.DiffText(), map[bool]string{true: "≠"}[r.Significant()])
	}
	if m.Index == nil {
		b.WriteString("\nNo index difference: some domain has a task that only one side scored.\n")
	}
	b.WriteString("\n| task | A | B | B − A ± SE | units |\n|---|---|---|---|---|\n")
	for _, r := range m.Tasks {
		fmt.Fprintf(b, "| %s | %.2f | %.2f | %s | %d |\n", r.ID, r.A, r.B, r.DiffText(), r.Units)
	}
}

// DiffText is B − A ± SE with two decimals.
func (s ScoreDiff) DiffText() string { return fmt.Sprintf("%+.2f ± %.2f", s.Diff, s.SE) }

func (d SectionDiff) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "\n## %s\n\n", d.Label)
	fmt.Fprintf(b, "%s paired: A %s, B %s, B − A %s; %s.\n", plural.Of(d.Units, d.Unit), pct(d.RateA), pct(d.RateB), d.DiffText(), d.Method)
	if d.Binary && d.Units > 0 {
		fmt.Fprintf(b, "Both right %d, only A %d, only B %d, both wrong %d.\n", d.Table.BothRight, d.Table.OnlyA, d.Table.OnlyB, d.Table.BothWrong)
	}
	if d.Partial > 0 {
		fmt.Fprintf(b, "%s left out: one of their items is missing, errored or without a verdict on a side.\n", plural.Of(d.Partial, d.Unit))
	}
	pairs(b, fmt.Sprintf("%s differ", plural.Of(len(d.Differ), "item")), d.Differ, true, true)
	pairs(b, fmt.Sprintf("Only in A (%d)", len(d.OnlyA)), d.OnlyA, true, false)
	pairs(b, fmt.Sprintf("Only in B (%d)", len(d.OnlyB)), d.OnlyB, false, true)
	pairs(b, fmt.Sprintf("Errored (%d)", len(d.Errored)), d.Errored, true, true)
	pairs(b, fmt.Sprintf("Without a verdict (%d)", len(d.Unscored)), d.Unscored, true, true)
}

// pairs writes a list of items with the sides it has.
func pairs(b *strings.Builder, title string, ps []Pair, showA, showB bool) {
	if len(ps) == 0 {
		return
	}
	fmt.Fprintf(b, "\n### %s\n\n| item |", title)
	sep := "|---|"
	if showA {
		b.WriteString(" A | A answered |")
		sep += "---|---|"
	}
	if showB {
		b.WriteString(" B | B answered |")
		sep += "---|---|"
	}
	b.WriteString("\n" + sep + "\n")
	for _, p := range ps {
		b.WriteString("| " + cell(p.Key) + " |")
		for _, side := range []struct {
			show bool
			it   *Item
		}{{showA, p.A}, {showB, p.B}} {
			if !side.show {
				continue
			}
			if side.it == nil {
				b.WriteString(" — | |")
				continue
			}
			answer := side.it.Answer
			if side.it.Error != "" {
				answer = Short(side.it.Error, 80)
			}
			fmt.Fprintf(b, " %s | %s |", side.it.Outcome, cell(answer))
		}
		b.WriteString("\n")
	}
}
