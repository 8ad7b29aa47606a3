package report

import (
	"fmt"
	"html/template"
	"io"

	"github.com/feather-eval/feather/harness/report/compare"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/plural"
)

// CompareName is the Compare page's file name, without extension.
const CompareName = "compare"

// listAnswer is how much of each answer the list shows and searches (the
// drill-down has all of it): short enough that 100,000 records' list
// stays plain JSON the browser reads as it parses the page.
const listAnswer = 48

// Outcome codes in the page data, one character per side and item: right,
// wrong, error, no verdict, and '-' where the side has no such item.
var outcomeCode = map[compare.Outcome]byte{compare.Right: 'R', compare.Wrong: 'W', compare.Error: 'E', compare.Unscored: 'U'}

type cmpSide struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Model string `json:"model"`
	Run   string `json:"run"`
}

type cmpSection struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Suite string `json:"suite"`
	Unit  string `json:"unit"`
}

// cmpStats is one section's paired statistics for one pair of sides,
// written out as the Markdown writes them, so the page and feather
// compare say the same.
type cmpStats struct {
	Section int    `json:"section"`
	Units   string `json:"units"`
	RateA   string `json:"rate_a"`
	RateB   string `json:"rate_b"`
	Diff    string `json:"diff"`
	P       string `json:"p"`
	Verdict string `json:"verdict"`
	Ahead   int    `json:"ahead"`
	Behind  int    `json:"behind"`
	// Table is both right, only A, only B, both wrong (binary sections).
	Table   *[4]int `json:"table,omitempty"`
	LeftOut string  `json:"left_out,omitempty"`
	Method  string  `json:"method"`
	MB      *cmpMB  `json:"microbench,omitempty"`
}

type cmpMB struct {
	Rows     []cmpScore `json:"rows"`
	NoIndex  bool       `json:"no_index,omitempty"`
	Warnings []string   `json:"warnings,omitempty"`
}

type cmpScore struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
	Diff string `json:"diff"`
	Sig  bool   `json:"sig,omitempty"`
}

type cmpPair struct {
	Sections []cmpStats `json:"sections"`
	Missing  []string   `json:"missing,omitempty"`
}

// cmpData is the Compare page's data: sides, sections, the statistics of
// every pair of sides that share a section (by "i,j", A then B), and the
// items as rows [section, key, outcome codes by side, answers by side].
type cmpData struct {
	Kind     string             `json:"kind"`
	Sides    []cmpSide          `json:"sides"`
	Sections []cmpSection       `json:"sections"`
	Pairs    map[string]cmpPair `json:"pairs"`
	Default  [2]int             `json:"default"`
	Items    [][]any            `json:"-"`
}

func (d cmpData) rows() (string, [][]any) { return "items", d.Items }

// cmpDetail is what a drill-down shows, embedded after the script: per
// item, per side, the suite's record in the fields named for its suite.
type cmpDetail struct {
	Fields map[string][]string `json:"fields"`
	Items  [][]any             `json:"-"`
}

func (d cmpDetail) rows() (string, [][]any) { return "items", d.Items }

var cmpDetailFields = map[string][]string{
	compare.Featherweight: {"reply", "letter", "rule", "answer", "prompt_sent", "error", "stop_reason"},
	compare.Microbench:    {"context", "choices", "gold", "prediction", "reduction", "tie", "truncated", "error"},
	compare.Featherbench:  {"text", "tool_calls", "check_detail", "rubric", "rubric_mean", "error", "refusal", "stop_reason", "cost_usd", "latency_s", "wall_clock_s"},
}

// HasComparison reports whether set has two sides with a suite in
// common: only then is there a Compare page.
func HasComparison(set *compare.Set) bool {
	for _, sec := range set.Sections {
		n := 0
		for _, sd := range set.Sides {
			if sec.Has(sd.ID) {
				n++
			}
		}
		if n > 1 {
			return true
		}
	}
	return false
}

var cmpBody = template.Must(template.New("cmp").Parse(`
<p>Pick two models, or one model in two runs. For each suite, over the units both answered: each side's score, B − A with its 95% interval, the units where each side is ahead and the two-sided p-value; a verdict needs p &lt; 0.05. Items one side lacks, or that errored, are counted and listed apart, never dropped.</p>
<div class="pick">
<label>A <select id="cmp-a">{{range $i, $s := .Sides}}<option value="{{$i}}">{{$s.Label}}</option>{{end}}</select></label>
<button type="button" id="cmp-swap" title="Swap A and B (x)">⇄</button>
<label>B <select id="cmp-b">{{range $i, $s := .Sides}}<option value="{{$i}}">{{$s.Label}}</option>{{end}}</select></label>
</div>
<div id="cmp-stats" aria-live="polite"></div>
<h2 id="items">Items</h2>
<div class="controls" id="controls">
<div role="group" aria-label="filter">
<button type="button" data-filter="differ" aria-pressed="true">Disagree</button>
<button type="button" data-filter="onlya" aria-pressed="false">Only A right</button>
<button type="button" data-filter="onlyb" aria-pressed="false">Only B right</button>
<button type="button" data-filter="bothwrong" aria-pressed="false">Both wrong</button>
<button type="button" data-filter="error" aria-pressed="false">Errors</button>
<button type="button" data-filter="oneside" aria-pressed="false">One side only</button>
<button type="button" data-filter="all" aria-pressed="false">All</button>
</div>
<select id="cmp-section" aria-label="suite"><option value="">all suites</option>{{range $i, $s := .Sections}}<option value="{{$i}}">{{$s.Label}}</option>{{end}}</select>
<input type="search" id="search" placeholder="Search items and answers" aria-label="search items and answers">
<span id="count" aria-live="polite"></span>
</div>
<p class="explain keys">Keys: <kbd>j</kbd>/<kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> next and previous item, <kbd>Esc</kbd> close it, <kbd>/</kbd> search, <kbd>x</kbd> swap A and B, <kbd>1</kbd>–<kbd>7</kbd> the filters. The address always links to what is shown.</p>
<div class="cmp-view">
<div class="cmp-list scroll"><table class="list"><thead><tr><th>suite</th><th>item</th><th>A</th><th>B</th></tr></thead>
<tbody id="rows"></tbody></table>
<button type="button" id="more" hidden>Show more</button></div>
<aside id="cmp-detail" hidden></aside>
</div>
`))

// ComparePage renders the Compare page for set.
func ComparePage(w io.Writer, set *compare.Set, o PageOptions) error {
	d, detail := compareData(set)
	body, err := render(cmpBody, d)
	if err != nil {
		return fmt.Errorf("rendering the Compare page: %w", err)
	}
	return page{Kind: CompareName, Title: "Compare", Subtitle: o.Subtitle, Nav: o.Nav, Notes: o.Notes, Body: body, Data: d, Detail: detail}.write(w)
}

// CompareMarkdown is the comparison the Compare page opens on, as
// feather compare writes it.
func CompareMarkdown(set *compare.Set) (string, error) {
	a, b := defaultPair(set)
	c, err := set.Compare(set.Sides[a].ID, set.Sides[b].ID)
	if err != nil {
		return "", err
	}
	return c.Markdown(), nil
}

func compareData(set *compare.Set) (cmpData, cmpDetail) {
	d := cmpData{Kind: CompareName, Pairs: map[string]cmpPair{}, Items: [][]any{}}
	det := cmpDetail{Fields: cmpDetailFields, Items: [][]any{}}
	for _, sd := range set.Sides {
		d.Sides = append(d.Sides, cmpSide{ID: sd.ID, Label: sd.Label, Model: sd.Model, Run: sd.Run})
	}
	for si, sec := range set.Sections {
		d.Sections = append(d.Sections, cmpSection{ID: sec.ID, Label: sec.Label, Suite: sec.Suite, Unit: sec.Unit})
		for _, key := range sec.Keys {
			codes := make([]byte, len(set.Sides))
			answers := make([]string, len(set.Sides))
			details := make([]any, len(set.Sides))
			for i, sd := range set.Sides {
				it := sec.Item(sd.ID, key)
				if it == nil {
					codes[i] = '-'
					continue
				}
				codes[i] = outcomeCode[it.Outcome]
				answers[i] = compare.Short(it.Answer, listAnswer)
				if it.Error != "" {
					answers[i] = compare.Short(it.Error, listAnswer)
				}
				details[i] = itemDetail(sec, sd.ID, it)
			}
			d.Items = append(d.Items, []any{si, key, string(codes), answers})
			det.Items = append(det.Items, details)
		}
	}
	for i, a := range set.Sides {
		for j, b := range set.Sides {
			if i == j || !shareSection(set, a.ID, b.ID) {
				continue
			}
			c, err := set.Compare(a.ID, b.ID)
			if err != nil {
				continue
			}
			d.Pairs[fmt.Sprintf("%d,%d", i, j)] = pairStats(set, c)
		}
	}
	d.Default[0], d.Default[1] = defaultPair(set)
	return d, det
}

func shareSection(set *compare.Set, a, b string) bool {
	for _, sec := range set.Sections {
		if sec.Has(a) && sec.Has(b) {
			return true
		}
	}
	return false
}

// defaultPair is the pair the page opens on: the first two sides with a
// suite in common, preferring one model in two runs, what a before and
// after looks like.
func defaultPair(set *compare.Set) (a, b int) {
	a, b = -1, -1
	for i, x := range set.Sides {
		for j := i + 1; j < len(set.Sides); j++ {
			y := set.Sides[j]
			if !shareSection(set, x.ID, y.ID) {
				continue
			}
			if x.Model == y.Model {
				return i, j
			}
			if a < 0 {
				a, b = i, j
			}
		}
	}
	return max(a, 0), max(b, min(1, len(set.Sides)-1))
}

func pairStats(set *compare.Set, c *compare.Comparison) cmpPair {
	index := map[string]int{}
	for i, sec := range set.Sections {
		index[sec.ID] = i
	}
	p := cmpPair{Missing: c.Missing}
	for _, s := range c.Sections {
		st := cmpStats{Section: index[s.ID], Units: plural.Of(s.Units, s.Unit), RateA: pct1(s.RateA), RateB: pct1(s.RateB),
			Diff: s.DiffText(), P: compare.FormatP(s.P), Verdict: string(s.Verdict), Ahead: s.Ahead, Behind: s.Behind,
			LeftOut: s.LeftOut(), Method: s.Method}
		if s.Binary && s.Units > 0 {
			st.Table = &[4]int{s.Table.BothRight, s.Table.OnlyA, s.Table.OnlyB, s.Table.BothWrong}
		}
		if m := s.Microbench; m != nil {
			mb := &cmpMB{Warnings: m.Warnings, NoIndex: m.Index == nil}
			rows := append([]compare.ScoreDiff(nil), m.Domains...)
			if m.Index != nil {
				rows = append(rows, *m.Index)
			}
			for _, r := range rows {
				name := r.ID + " " + r.Name
				if r.ID == "index" {
					name = r.Name
				}
				mb.Rows = append(mb.Rows, cmpScore{Name: name, A: fmt.Sprintf("%.2f", r.A), B: fmt.Sprintf("%.2f", r.B), Diff: r.DiffText(), Sig: r.Significant()})
			}
			st.MB = mb
		}
		p.Sections = append(p.Sections, st)
	}
	return p
}

func pct1(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// itemDetail is one side's record of an item in its suite's detail
// fields (cmpDetailFields).
func itemDetail(sec *compare.Section, side string, it *compare.Item) []any {
	switch rec := it.Source.(type) {
	case *featherweight.Record:
		return []any{rec.Reply, rec.Letter, string(rec.Rule), rec.Answer, rec.PromptSent, rec.Error, rec.StopReason}
	case *microbench.ItemRecord:
		choices := make([][]any, len(rec.Choices))
		for i, c := range rec.Choices {
			choices[i] = []any{c.Text, c.LogProb, c.Value, c.NullLogProb}
		}
		reduction := ""
		if r := sec.Result(side); r != nil {
			for _, t := range r.Tasks {
				if t.ID == rec.Task {
					reduction = string(t.Reduction)
					if t.Grouped {
						reduction += ", group accuracy"
					}
				}
			}
		}
		return []any{rec.Context, choices, rec.Gold, rec.Prediction, reduction, rec.Tie, rec.Truncated, rec.Error}
	case *featherbench.Record:
		var calls any
		if len(rec.ToolCalls) > 0 {
			calls = rec.ToolCalls
		}
		return []any{rec.Text, calls, rec.CheckDetail, fbGrid(rec.Rubric), rec.RubricMean, rec.Error, rec.Refusal, rec.StopReason, rec.CostUSD, rec.LatencyS, rec.WallClockS}
	}
	return nil
}
