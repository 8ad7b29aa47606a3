package compare

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// Suite names, as the report's pages are named.
const (
	Featherweight = "featherweight"
	Microbench    = "microbench"
	Featherbench  = "featherbench"
)

// featherweight adds one section per prompt style: the two styles are
// two scores, so each is compared on its own.
func (b *builder) featherweight(fw *runs.Featherweight) {
	for _, r := range fw.Runs {
		for _, m := range r.Results {
			side := b.side(m.Model.Key, r.Stamp)
			for i := range m.Records {
				rec := &m.Records[i]
				sec := b.section(Featherweight+"/"+string(rec.Style), Featherweight, "Featherweight · "+string(rec.Style), "item")
				it := &Item{Key: rec.ID, Source: rec, Answer: fwAnswer(rec)}
				switch {
				case rec.Error != "":
					it.Outcome, it.Error = Error, rec.Error
				case rec.Correct:
					it.Outcome = Right
				default:
					it.Outcome = Wrong
				}
				sec.add(side, it)
			}
		}
	}
}

// fwAnswer is the extracted letter and the reply's start.
func fwAnswer(rec *featherweight.Record) string {
	letter := rec.Letter
	if letter == "" {
		letter = "no letter"
	}
	if rec.Error != "" {
		return "error"
	}
	return letter + ": " + quote(Short(rec.Reply, 40))
}

// microbench adds μBench's choice items; a contrast pair on a
// group-accuracy task is one unit, as the suite scores it.
func (b *builder) microbench(mb *runs.Microbench) {
	sec := b.section(Microbench, Microbench, "μBench", "scoring unit")
	sec.allRight = true
	sec.results = map[string]*microbench.Result{}
	for _, r := range mb.Results {
		side := b.side(r.Model.Key, r.Run)
		sec.results[side] = r
		grouped := map[string]bool{}
		for _, t := range r.Tasks {
			grouped[t.ID] = t.Grouped
		}
		for i := range r.Items {
			rec := &r.Items[i]
			it := &Item{Key: rec.Task + "/" + rec.ID, Source: rec}
			if grouped[rec.Task] && rec.Group != "" {
				it.Unit = rec.Task + "/" + rec.Group
			}
			switch {
			case rec.Error != "":
				it.Outcome, it.Error, it.Answer = Error, rec.Error, "error"
			case rec.Correct:
				it.Outcome = Right
			default:
				it.Outcome = Wrong
			}
			if rec.Error == "" && rec.Prediction >= 0 && rec.Prediction < len(rec.Choices) {
				it.Answer = quote(Short(rec.Choices[rec.Prediction].Text, 40))
				if rec.Tie {
					it.Answer += " (tie)"
				}
			}
			sec.add(side, it)
		}
	}
}

// featherbench adds the trials; a task is the unit, its trials scored as
// its share of passes.
func (b *builder) featherbench(fb *runs.Featherbench) {
	sec := b.section(Featherbench, Featherbench, "Featherbench", "task")
	for i := range fb.Records {
		rec := &fb.Records[i]
		side := b.side(rec.Model, rec.RunID)
		it := &Item{Key: rec.Task + "/" + strconv.Itoa(rec.Trial), Unit: rec.Task, Source: rec, Answer: fbAnswer(rec)}
		switch {
		case rec.Error != nil:
			it.Outcome, it.Error = Error, *rec.Error
		case rec.Passed == nil:
			it.Outcome = Unscored
		case *rec.Passed:
			it.Outcome = Right
		default:
			it.Outcome = Wrong
		}
		sec.add(side, it)
	}
}

// fbAnswer is the response's start, or what stood for it.
func fbAnswer(rec *featherbench.Record) string {
	switch {
	case rec.Error != nil:
		return "error"
	case rec.Refusal:
		return "refused"
	case strings.TrimSpace(rec.Text) == "" && len(rec.ToolCalls) > 0:
		names := make([]string, len(rec.ToolCalls))
		for i, c := range rec.ToolCalls {
			names[i] = c.Name
		}
		return "tool calls: " + strings.Join(names, ", ")
	case strings.TrimSpace(rec.Text) == "":
		return "(empty)"
	}
	return quote(Short(rec.Text, 80))
}

// Short is s on one line, whitespace collapsed, cut to n runes (n ≥ 1)
// with an ellipsis. It reads no further into s than it keeps, so it is
// cheap on long responses.
func Short(s string, n int) string {
	out := make([]rune, 0, min(n, len(s)))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = len(out) > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if len(out)+need > n {
			// More follows than fits: out holds at least n−1 runes.
			return string(out[:n-1]) + "…"
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
	}
	return string(out)
}

// quote puts s in double quotes as it is, without escapes.
func quote(s string) string { return `"` + s + `"` }

// FormatP writes a p-value: four significant digits, "< 0.0001" below.
func FormatP(p float64) string {
	if p < 1e-4 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}

// points writes a difference of rates in percentage points, signed.
func points(d float64) string {
	return fmt.Sprintf("%+.1f pts", 100*d)
}
