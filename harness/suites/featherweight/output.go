package featherweight

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/markdown"
	"github.com/feather-eval/feather/internal/plural"
)

// SuiteName labels every results file.
const SuiteName = "Featherweight v1"

// Files in a Featherweight results directory. Per-model files go under
// ModelsDir as <model key>.json, so no model key can collide with a
// summary file.
const (
	ModelsDir   = "models"
	SummaryJSON = "summary.json"
	SummaryCSV  = "summary.csv"
	SummaryMD   = "summary.md"
	ChartJSON   = "chart.json"
)

// Decoding is what the suite asked every model for.
type Decoding struct {
	MaxNewTokens int         `json:"max_new_tokens"`
	Sampling     lm.Sampling `json:"sampling"`
}

// SpecDecoding is the spec's greedy decoding.
func SpecDecoding() Decoding { return Decoding{MaxNewTokens: MaxNewTokens, Sampling: Sampling()} }

// ModelFile is the per-model results file: the model, the data it was
// asked, its summary per style and every record.
type ModelFile struct {
	Suite    string    `json:"suite"`
	Data     DataInfo  `json:"data"`
	Model    lm.Info   `json:"model"`
	Decoding Decoding  `json:"decoding"`
	Summary  []Summary `json:"summary"`
	Items    []Record  `json:"items"`
}

// Result is the file's records as a ModelResult, for regenerating summaries.
func (f ModelFile) Result() ModelResult { return ModelResult{Model: f.Model, Records: f.Items} }

// WriteModelFile writes dir/models/<key>.json and returns its path.
func WriteModelFile(dir string, data DataInfo, r ModelResult) (string, error) {
	if err := checkKey(r.Model.Key); err != nil {
		return "", err
	}
	f := ModelFile{
		Suite: SuiteName, Data: data, Model: r.Model, Decoding: SpecDecoding(),
		Summary: Summarize([]ModelResult{r}), Items: r.Records,
	}
	if f.Items == nil {
		f.Items = []Record{}
	}
	b, err := marshal(f)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, ModelsDir, r.Model.Key+".json")
	return p, atomicfile.Write(p, b)
}

// ReadModelFile reads a per-model results file.
func ReadModelFile(path string) (ModelFile, error) {
	var f ModelFile
	b, err := os.ReadFile(path)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: not a Featherweight model results file: %v", path, err)
	}
	if f.Suite != SuiteName {
		return f, fmt.Errorf("%s: suite is %q, want %q", path, f.Suite, SuiteName)
	}
	return f, nil
}

// ReadModelFiles reads every dir/models/*.json, in file-name order.
func ReadModelFiles(dir string) (DataInfo, []ModelResult, error) {
	paths, err := filepath.Glob(filepath.Join(dir, ModelsDir, "*.json"))
	if err != nil {
		return DataInfo{}, nil, err
	}
	sort.Strings(paths)
	var data DataInfo
	var out []ModelResult
	for _, p := range paths {
		f, err := ReadModelFile(p)
		if err != nil {
			return DataInfo{}, nil, err
		}
		data = f.Data
		out = append(out, f.Result())
	}
	return data, out, nil
}

// WriteSummaries writes summary.json, summary.csv, summary.md and
// chart.json for the given models into dir, each file replaced whole.
func WriteSummaries(dir string, data DataInfo, results []ModelResult) error {
	sums := Summarize(results)
	if sums == nil {
		sums = []Summary{}
	}
	js, err := marshal(struct {
		Suite    string    `json:"suite"`
		Data     DataInfo  `json:"data"`
		Decoding Decoding  `json:"decoding"`
		Rows     []Summary `json:"rows"`
	}{SuiteName, data, SpecDecoding(), sums})
	if err != nil {
		return err
	}
	var csvBuf, mdBuf bytes.Buffer
	if err := WriteCSV(&csvBuf, sums); err != nil {
		return err
	}
	if err := WriteMarkdown(&mdBuf, data, sums); err != nil {
		return err
	}
	chart, err := marshal(ChartData(sums))
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{SummaryJSON: js, SummaryCSV: csvBuf.Bytes(), SummaryMD: mdBuf.Bytes(), ChartJSON: chart} {
		if err := atomicfile.Write(filepath.Join(dir, name), b); err != nil {
			return err
		}
	}
	return nil
}

// CategoryNames is every category of the summaries in first-seen order:
// the columns of the per-category tables.
func CategoryNames(sums []Summary) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range sums {
		for _, c := range s.Categories {
			if !seen[c.Category] {
				seen[c.Category] = true
				out = append(out, c.Category)
			}
		}
	}
	return out
}

// WriteCSV writes one row per model × style, for spreadsheets.
func WriteCSV(w io.Writer, sums []Summary) error {
	cats := CategoryNames(sums)
	head := []string{"model", "name", "backend", "params", "chat", "smoke", "style", "n", "correct", "score_pct", "ci_low_pct", "ci_high_pct", "parse_errors", "errors", "incomplete"}
	for _, c := range cats {
		head = append(head, c+"_pct")
	}
	for _, r := range Rules {
		head = append(head, "rule_"+string(r))
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, s := range sums {
		row := []string{
			s.Model, s.Name, s.Backend, paramsCSV(s.Params), strconv.FormatBool(s.Chat), strconv.FormatBool(s.Smoke), string(s.Style),
			strconv.Itoa(s.N), strconv.Itoa(s.Correct), f2(s.ScorePct), f2(s.CILowPct), f2(s.CIHighPct),
			strconv.Itoa(s.ParseErrors), strconv.Itoa(s.Errors), strconv.FormatBool(s.Incomplete),
		}
		for _, c := range cats {
			if pct, ok := s.CategoryPct(c); ok {
				row = append(row, f2(pct))
			} else {
				row = append(row, "")
			}
		}
		for _, r := range Rules {
			row = append(row, strconv.Itoa(s.Rules[r]))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func paramsCSV(n int64) string {
	if n <= 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// WriteMarkdown writes the report table: both prompt columns side by side
// with their intervals and parse errors, then the per-category scores.
func WriteMarkdown(w io.Writer, data DataInfo, sums []Summary) error {
	var b strings.Builder
	b.WriteString("# " + SuiteName + "\n\n")
	name := data.Name
	if name == "" {
		name = filepath.Base(data.File)
	}
	sha := data.SHA256
	if len(sha) > 12 {
		sha = sha[:12]
	}
	fmt.Fprintf(&b, "Questions: %s (`%s`, sha256 %s…, %d items). Greedy decoding, at most %d new tokens.\n", markdown.Cell(name), filepath.Base(data.File), sha, data.Items, MaxNewTokens)
	b.WriteString("Each score is the percentage answered correctly (correct/n, n every item asked) with its 95% Wilson interval; a parse error counts as wrong and is also listed on its own. An item whose request failed also counts as wrong, is listed below with its error, and marks its score incomplete.\n\n")

	type row struct {
		label  string
		params int64
		smoke  bool
		by     map[Style]Summary
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range sums {
		r, ok := index[s.Model]
		if !ok {
			r = &row{label: s.Label(), params: s.Params, smoke: s.Smoke, by: map[Style]Summary{}}
			index[s.Model] = r
			rows = append(rows, r)
		}
		r.by[s.Style] = s
	}
	b.WriteString("| model | params | plain | 95% CI | parse errors | completion | 95% CI | parse errors |\n")
	b.WriteString("|---|--:|--:|:-:|--:|--:|:-:|--:|\n")
	var notes []string
	smoke := false
	for _, r := range rows {
		label := markdown.Cell(r.label)
		if r.smoke {
			label += " †"
			smoke = true
		}
		fmt.Fprintf(&b, "| %s | %s |", label, ParamsLabel(r.params))
		for _, st := range Styles {
			s, ok := r.by[st]
			if !ok {
				b.WriteString(" — | — | — |")
				continue
			}
			mark := ""
			if s.Incomplete {
				mark = ", incomplete"
				notes = append(notes, failedNote(r.label, s))
			}
			fmt.Fprintf(&b, " %.1f%% (%d/%d%s) | %.1f–%.1f | %d |", s.ScorePct, s.Correct, s.N, mark, s.CILowPct, s.CIHighPct, s.ParseErrors)
		}
		b.WriteString("\n")
	}
	if smoke {
		notes = append([]string{"† feather's built-in smoke model: its numbers measure the harness, not a language model."}, notes...)
	}
	if len(notes) > 0 {
		b.WriteString("\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}

	cats := CategoryNames(sums)
	if len(cats) > 0 {
		b.WriteString("\n## Per category\n\nOne question is 100/n points of its category: read small differences with care.\n\n| model | style |")
		for _, c := range cats {
			b.WriteString(" " + markdown.Cell(c) + " |")
		}
		b.WriteString("\n|---|---|" + strings.Repeat("--:|", len(cats)) + "\n")
		for _, s := range sums {
			fmt.Fprintf(&b, "| %s | %s |", markdown.Cell(s.Label()), s.Style)
			for _, c := range cats {
				if pct, ok := s.CategoryPct(c); ok {
					fmt.Fprintf(&b, " %.0f%% |", pct)
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// failedNote lists an incomplete row's failed items, grouped by error so
// that a backend that failed every request takes one line.
func failedNote(label string, s Summary) string {
	var errs []string
	ids := map[string][]string{}
	for _, f := range s.Failed {
		if _, ok := ids[f.Error]; !ok {
			errs = append(errs, f.Error)
		}
		ids[f.Error] = append(ids[f.Error], f.ID)
	}
	var parts []string
	for _, e := range errs {
		parts = append(parts, strings.Join(ids[e], ", ")+" ("+markdown.Cell(e)+")")
	}
	return fmt.Sprintf("%s, %s: incomplete: %s got no answer because the request failed, counted as wrong: %s.",
		markdown.Cell(label), s.Style, plural.Of(s.Errors, "item"), strings.Join(parts, "; "))
}

// ParamsLabel formats a parameter count as 82M or 1.1B; "—" when unknown.
func ParamsLabel(n int64) string {
	switch {
	case n <= 0:
		return "—"
	case n >= 1e9:
		return strconv.FormatFloat(float64(n)/1e9, 'f', 1, 64) + "B"
	case n >= 1e7:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 0, 64) + "M"
	case n >= 1e6:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 1e3:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 0, 64) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// Chart is the bar-chart data for the report: one group of bars per model,
// one bar per style, sorted by parameter count (unknown counts last, in
// run order), as the spec's leaderboard chart is.
type Chart struct {
	Suite  string       `json:"suite"`
	Title  string       `json:"title"`
	Styles []Style      `json:"styles"`
	Models []ChartModel `json:"models"`
}

// ChartModel is one model's bars.
type ChartModel struct {
	Model  string             `json:"model"`
	Label  string             `json:"label"`
	Params int64              `json:"params,omitempty"`
	Smoke  bool               `json:"smoke,omitempty"`
	Bars   map[Style]ChartBar `json:"bars"`
}

// ChartBar is one score with its 95% interval, in percent.
type ChartBar struct {
	ScorePct  float64 `json:"score_pct"`
	CILowPct  float64 `json:"ci_low_pct"`
	CIHighPct float64 `json:"ci_high_pct"`
	N         int     `json:"n"`
}

// ChartData arranges summaries for the bar chart.
func ChartData(sums []Summary) Chart {
	c := Chart{Suite: SuiteName, Title: SuiteName + ", score by model and prompt format", Models: []ChartModel{}}
	index := map[string]int{}
	styles := map[Style]bool{}
	for _, s := range sums {
		i, ok := index[s.Model]
		if !ok {
			i = len(c.Models)
			index[s.Model] = i
			c.Models = append(c.Models, ChartModel{Model: s.Model, Label: s.Label(), Params: s.Params, Smoke: s.Smoke, Bars: map[Style]ChartBar{}})
		}
		c.Models[i].Bars[s.Style] = ChartBar{ScorePct: s.ScorePct, CILowPct: s.CILowPct, CIHighPct: s.CIHighPct, N: s.N}
		styles[s.Style] = true
	}
	for _, st := range Styles {
		if styles[st] {
			c.Styles = append(c.Styles, st)
		}
	}
	sort.SliceStable(c.Models, func(i, j int) bool {
		a, b := c.Models[i].Params, c.Models[j].Params
		switch {
		case a > 0 && b > 0:
			return a < b
		default:
			return a > 0 && b <= 0
		}
	})
	return c
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// checkKey keeps a model key usable as a file name.
func checkKey(k string) error {
	if k == "" || k == "." || k == ".." || strings.ContainsAny(k, `/\`) {
		return fmt.Errorf("model key %q cannot name a results file; use letters, digits, '-', '_' or '.'", k)
	}
	return nil
}
