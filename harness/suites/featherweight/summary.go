package featherweight

import (
	"sort"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/stats"
)

// ModelResult is one model's records, in the order they were evaluated.
type ModelResult struct {
	Model   lm.Info  `json:"model"`
	Records []Record `json:"items"`
}

// Summary is one model under one prompt style.
type Summary struct {
	Model   string `json:"model"`
	Name    string `json:"name,omitempty"`
	Backend string `json:"backend,omitempty"`
	Params  int64  `json:"params,omitempty"`
	Chat    bool   `json:"chat"`
	Smoke   bool   `json:"smoke,omitempty"`
	Style   Style  `json:"style"`
	// N counts every item asked. An item whose request failed has no
	// verdict but still counts, as wrong: leaving it out would score a run
	// with errors over fewer items and inflate its percentage.
	N           int `json:"n"`
	Correct     int `json:"correct"`
	ParseErrors int `json:"parse_errors"`
	// Errors counts the items whose request failed; Failed lists them.
	Errors int `json:"errors"`
	// Incomplete is true when any request failed: the score is a lower
	// bound on what the model would get.
	Incomplete bool         `json:"incomplete"`
	Failed     []FailedItem `json:"failed,omitempty"`
	// ScorePct is 100·Correct/N; the interval is the 95% Wilson interval.
	ScorePct   float64         `json:"score_pct"`
	CILowPct   float64         `json:"ci_low_pct"`
	CIHighPct  float64         `json:"ci_high_pct"`
	Categories []CategoryScore `json:"categories"`
	// Rules counts which extraction step decided each verdict.
	Rules map[Rule]int `json:"rules"`
}

// FailedItem is an item whose request failed, with the backend's error.
type FailedItem struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// CategoryScore is the score on one category's items.
type CategoryScore struct {
	Category string  `json:"category"`
	N        int     `json:"n"`
	Correct  int     `json:"correct"`
	ScorePct float64 `json:"score_pct"`
}

// Label is the model's display name.
func (s Summary) Label() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Model
}

// CategoryPct is the score on a category's items; false when the summary
// has no scored item of that category.
func (s Summary) CategoryPct(category string) (float64, bool) {
	for _, c := range s.Categories {
		if c.Category == category && c.N > 0 {
			return c.ScorePct, true
		}
	}
	return 0, false
}

// Summarize scores every model under every style it has records for, in
// model order and then style order (plain before completion).
func Summarize(results []ModelResult) []Summary {
	var out []Summary
	for _, r := range results {
		byStyle := map[Style][]Record{}
		var styles []Style
		for _, rec := range r.Records {
			if _, ok := byStyle[rec.Style]; !ok {
				styles = append(styles, rec.Style)
			}
			byStyle[rec.Style] = append(byStyle[rec.Style], rec)
		}
		sort.SliceStable(styles, func(i, j int) bool { return styleRank(styles[i]) < styleRank(styles[j]) })
		for _, st := range styles {
			out = append(out, summarize(r.Model, st, byStyle[st]))
		}
	}
	return out
}

func styleRank(s Style) int {
	for i, k := range Styles {
		if s == k {
			return i
		}
	}
	return len(Styles)
}

func summarize(info lm.Info, style Style, recs []Record) Summary {
	s := Summary{
		Model: info.Key, Name: info.Name, Backend: info.Backend, Params: info.Params,
		Chat: info.Chat, Smoke: info.Smoke, Style: style, Rules: map[Rule]int{}, Categories: []CategoryScore{},
	}
	catIndex := map[string]int{}
	for _, r := range recs {
		ci, ok := catIndex[r.Category]
		if !ok {
			ci = len(s.Categories)
			catIndex[r.Category] = ci
			s.Categories = append(s.Categories, CategoryScore{Category: r.Category})
		}
		s.N++
		s.Categories[ci].N++
		if r.Error != "" {
			s.Errors++
			s.Incomplete = true
			s.Failed = append(s.Failed, FailedItem{ID: r.ID, Error: r.Error})
			continue
		}
		s.Rules[r.Rule]++
		if r.ParseError {
			s.ParseErrors++
		}
		if r.Correct {
			s.Correct++
			s.Categories[ci].Correct++
		}
	}
	s.ScorePct = pct(s.Correct, s.N)
	lo, hi := stats.Wilson(s.Correct, s.N, stats.Z95)
	s.CILowPct, s.CIHighPct = 100*lo, 100*hi
	for i := range s.Categories {
		c := &s.Categories[i]
		c.ScorePct = pct(c.Correct, c.N)
	}
	return s
}

func pct(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(k) / float64(n)
}
