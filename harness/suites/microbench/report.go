package microbench

import (
	"fmt"
	"github.com/feather-eval/feather/internal/plural"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Leaderboard renders result files as the spec's Markdown table (Rank,
// Model, Params, INDEX, D1…D6) in Rank's order: by index from high to low,
// a run within noise of the run ranked directly above marked ≈. Runs
// without an index (incomplete) are listed after the table, unranked.
func Leaderboard(results []*Result) string {
	ranked := Rank(results)
	labels := Labels(results)
	cell := func(r *Result) string {
		l := strings.ReplaceAll(labels[r], "|", `\|`)
		if r.Model.Smoke {
			l += " *smoke model*"
		}
		return l
	}

	var b strings.Builder
	fmt.Fprintf(&b, "# %s leaderboard\n\n", Name)
	fmt.Fprintf(&b, "%s v%s · %d max seq len · ranked by INDEX, high to low.\n\n", Name, Version, MaxLength)
	b.WriteString("| Rank | Model | Params | INDEX |")
	for _, d := range Domains {
		b.WriteString(" " + d.ID + " |")
	}
	b.WriteString("\n|---|---|---|---|")
	for range Domains {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	noise, smoke := false, false
	for i, rr := range ranked {
		r := rr.Result
		rank := strconv.Itoa(i + 1)
		if i < 3 {
			rank = []string{"🥇 ", "🥈 ", "🥉 "}[i] + rank
		}
		if rr.WithinNoise {
			rank += " ≈"
			noise = true
		}
		smoke = smoke || r.Model.Smoke
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f |", rank, cell(r), FormatParams(r.NumParameters), *r.Index)
		for _, d := range Domains {
			fmt.Fprintf(&b, " %.2f |", r.DomainScores[d.ID])
		}
		b.WriteString("\n")
	}
	if len(ranked) == 0 {
		b.WriteString("\nNo complete run yet: the index needs every item of every task.\n")
	} else {
		b.WriteString("\nStandard errors of the index (item sampling): ")
		var parts []string
		for _, rr := range ranked {
			parts = append(parts, fmt.Sprintf("%s ± %.2f", cell(rr.Result), rr.SE))
		}
		b.WriteString(strings.Join(parts, "; ") + ".\n")
	}
	if noise {
		b.WriteString("\n≈ the gap to the run ranked directly above is smaller than 2·√(se₁²+se₂²): treat it as noise.\n")
	}
	if smoke {
		b.WriteString("\n*smoke model*: the built-in deterministic model; its numbers measure the harness, not a language model.\n")
	}
	if len(ranked) < len(results) {
		b.WriteString("\n## Not ranked (incomplete runs)\n\n" +
			"These runs left items unscored (a -run filter, or requests the backend could not score). " +
			"Their index is withheld, and so is each domain score whose tasks are not all complete; " +
			"their task scores cover only the items scored.\n\n" +
			"| Model | Params | complete tasks | scored items | domain scores |\n|---|---|---|---|---|\n")
		for _, r := range results {
			if r.Index != nil {
				continue
			}
			complete, items, total := 0, 0, 0
			for _, t := range r.Tasks {
				if t.Complete {
					complete++
				}
				items += t.Items
				total += t.ItemsTotal
			}
			var domains []string
			for _, d := range Domains {
				if _, ok := r.DomainScores[d.ID]; ok {
					domains = append(domains, d.ID)
				}
			}
			scored := "none (withheld)"
			if len(domains) > 0 {
				scored = strings.Join(domains, ", ") + " only"
			}
			fmt.Fprintf(&b, "| %s | %s | %d of %d | %d of %d | %s |\n", cell(r), FormatParams(r.NumParameters), complete, len(r.Tasks), items, total, scored)
		}
	}
	return b.String()
}

func seOf(r *Result) float64 {
	if r.StandardErrors.Index == nil {
		return 0
	}
	return *r.StandardErrors.Index
}

// Ranked is one complete result in leaderboard order.
type Ranked struct {
	Result *Result
	// SE is the index's standard error (0 when the file has none).
	SE float64
	// WithinNoise: the gap to the result ranked directly above is noise
	// under the spec's rule (Differ is false).
	WithinNoise bool
}

// Rank is the leaderboard's order: the results that have an index
// (complete runs), from high to low, ties by model key.
func Rank(results []*Result) []Ranked {
	var out []Ranked
	for _, r := range results {
		if r.Index != nil {
			out = append(out, Ranked{Result: r, SE: seOf(r)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Result, out[j].Result
		if *a.Index != *b.Index {
			return *a.Index > *b.Index
		}
		return a.Model.Key < b.Model.Key
	})
	for i := 1; i < len(out); i++ {
		out[i].WithinNoise = !Differ(*out[i].Result.Index, out[i].SE, *out[i-1].Result.Index, out[i-1].SE)
	}
	return out
}

// Labels names each result by its model (catalog name, else key), adding
// the run stamp where two results share a name. These are the
// leaderboard's row labels before Markdown escaping and the smoke marker.
func Labels(results []*Result) map[*Result]string {
	count := map[string]int{}
	for _, r := range results {
		count[r.modelName()]++
	}
	out := map[*Result]string{}
	for _, r := range results {
		l := r.modelName()
		if count[l] > 1 && r.Run != "" {
			l += " (" + r.Run + ")"
		}
		out[r] = l
	}
	return out
}

// FormatParams writes a parameter count the way the spec's leaderboard
// does: millions with one decimal from 1M up (596.0M), the plain count
// below, and "—" when unknown.
func FormatParams(n int64) string {
	switch {
	case n <= 0:
		return "—"
	case n < 1_000_000:
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// LevelsTable is the per-level accuracy of every scored task (bits per
// byte for the bits-per-byte task), as plain aligned text.
func LevelsTable(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s levels for %s\n", Name, r.Label())
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "task\tlevel\tunits\tcorrect\taccuracy\tabout")
	for _, t := range r.Tasks {
		for _, l := range t.Levels {
			if l.Units == 0 {
				continue
			}
			if l.BitsPerByte != nil {
				fmt.Fprintf(w, "%s\t%d\t%d docs\t\t%.3f bpb\t%s\n", t.ID, l.Level, l.Units, *l.BitsPerByte, l.About)
				continue
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%.1f%%\t%s\n", t.ID, l.Level, l.Units, l.Correct, 100*l.Accuracy, l.About)
		}
	}
	w.Flush()
	return b.String()
}

// Summary is one line with the index (or why there is none) and the six
// domain scores.
func Summary(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", Name, r.Label())
	if r.Index != nil {
		fmt.Fprintf(&b, "index %.2f ± %.2f", *r.Index, seOf(r))
	} else {
		b.WriteString("no index (not every task was scored completely)")
	}
	for _, d := range Domains {
		if v, ok := r.DomainScores[d.ID]; ok {
			fmt.Fprintf(&b, ", %s %.2f", d.ID, v)
		}
	}
	trunc := 0
	for _, n := range r.TruncatedItems {
		trunc += n
	}
	if trunc > 0 {
		fmt.Fprintf(&b, "; %s left-truncated to %d tokens", plural.Of(trunc, "item"), r.MaxLength)
	}
	if c := r.Model.ContextLength; c > 0 && c < MaxLength {
		fmt.Fprintf(&b, "; the model's context is %d tokens, under the %d the spec asks for", c, MaxLength)
	}
	return b.String()
}
