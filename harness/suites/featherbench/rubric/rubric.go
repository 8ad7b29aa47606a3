// Package rubric is Featherbench's LLM rubric judging: every judge on a
// panel scores a response blind (the prompt it sees holds the task, the
// criteria and the response, nothing that names the contestant) from 1 to
// 10 with a one-line rationale. A reply that does not parse, or a score
// that is not a whole number from 1 to 10, is a judge error: recorded with
// the raw reply and left out of every mean, never turned into a score.
//
// A judge's scores of its own answers (judge key == contestant key) are
// kept in the grid and shown, marked, in the bias matrix, but never count
// towards the contestant's headline mean.
package rubric

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/jsonspan"
)

// Scale is the range a score must fall in.
const (
	MinScore = 1
	MaxScore = 10
)

// VerdictSchema is the JSON Schema of a verdict, asked of every judge as
// structured output. Endpoints that enforce it return exactly the object
// ParseVerdict reads; the others ignore it, and ParseVerdict still finds
// the object in free text. The score is an enum because strict structured
// outputs do not enforce minimum and maximum everywhere.
const VerdictSchema = `{"title":"judgement","type":"object",` +
	`"properties":{"score":{"type":"integer","enum":[1,2,3,4,5,6,7,8,9,10],"description":"how well the response meets the criteria as a whole, 1 to 10"},` +
	`"rationale":{"type":"string","description":"one sentence: the main reason for the score"}},` +
	`"required":["score","rationale"],"additionalProperties":false}`

// Judge is one member of a panel.
type Judge struct {
	// Key is the judge's catalog key; it is compared with contestant keys
	// to find self-grading, and never shown to any judge.
	Key string
	// Gen is called the way the judge is called as a contestant: the
	// request sets no cap or sampling, so the judge's catalog defaults
	// (lm.WithDefaults, applied when the catalog opens it) decide.
	Gen lm.Generator
}

// TaskView is what a judge sees of a task.
type TaskView struct {
	Prompt   string
	Criteria []string
}

// Response is what a judge sees of one contestant's answer.
type Response struct {
	Text      string
	ToolCalls []lm.ToolCall
}

// Score is one judge's verdict on one response. Exactly one of Score and
// Error is set.
type Score struct {
	Judge string `json:"judge"`
	// Score is the whole number from 1 to 10; null on a judge error.
	Score     *int   `json:"score"`
	Rationale string `json:"rationale,omitempty"`
	// Self marks a judge grading its own answer: shown, never averaged
	// into the headline.
	Self  bool   `json:"self,omitempty"`
	Error string `json:"error,omitempty"`
	// Raw is the judge's reply as it came back, so a reader can check
	// the parse.
	Raw string `json:"raw"`
	// CostUSD is what the judge call cost, when the backend reports it:
	// rubric calls are spent on top of the contestants'.
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

// Grid is every judge's verdict on one response, in panel order. It is a
// record's "rubric" field.
type Grid []Score

// Panel grades responses with its judges through one prompt template.
type Panel struct {
	Judges []Judge
	// Prompt is the judge prompt; nil means DefaultPrompt().
	Prompt *Prompt
}

// Grade asks every judge, concurrently, to score resp to task. contestant
// is the answering model's key: it only marks self-grading and never
// reaches a judge. Every failure is a judge error in the grid, so Grade
// has no error of its own; a cancelled ctx shows up as errors too.
func (p Panel) Grade(ctx context.Context, task TaskView, contestant string, resp Response) Grid {
	prompt := p.Prompt
	if prompt == nil {
		prompt = DefaultPrompt()
	}
	grid := make(Grid, len(p.Judges))
	text, err := prompt.Render(task, resp)
	if err != nil {
		for i, j := range p.Judges {
			grid[i] = Score{Judge: j.Key, Self: j.Key == contestant, Error: fmt.Sprintf("rendering judge prompt %s: %v", prompt.Name, trimTemplateErr(err))}
		}
		return grid
	}
	var wg sync.WaitGroup
	for i, j := range p.Judges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			grid[i] = ask(ctx, j, text)
			grid[i].Self = j.Key == contestant
		}()
	}
	wg.Wait()
	return grid
}

// ask sends the rendered prompt to one judge and parses its verdict.
func ask(ctx context.Context, j Judge, prompt string) Score {
	s := Score{Judge: j.Key}
	req := lm.GenerateRequest{
		Messages:       []lm.Message{{Role: "user", Content: prompt}},
		ResponseFormat: json.RawMessage(VerdictSchema),
	}
	res, err := lm.GenerateOne(ctx, j.Gen, req)
	if err != nil {
		s.Error = "judge call failed: " + err.Error()
		return s
	}
	s.Raw = res.Text
	if res.CostUSD != nil {
		c := *res.CostUSD
		s.CostUSD = &c
	}
	switch {
	case res.Err != nil:
		s.Error = "judge call failed: " + res.Err.Error()
		return s
	case res.StopReason == lm.StopRefusal:
		s.Error = "the judge refused to grade"
		if res.RefusalCategory != "" {
			s.Error += " (" + res.RefusalCategory + ")"
		}
		return s
	}
	score, rationale, err := ParseVerdict(res.Text)
	if err != nil {
		s.Error = err.Error()
		if res.StopReason == lm.StopLength {
			s.Error += " (the reply hit the token limit)"
		}
		return s
	}
	s.Score, s.Rationale = &score, rationale
	return s
}

// ParseVerdict reads a judge's reply: the last JSON object in it that has
// a "score" field (so prose or reasoning around the object is tolerated,
// and a judge that revises itself is taken at its final word). The score
// must be a JSON number equal to a whole number from 1 to 10 (8 and 8.0
// are 8; 7.5, "8" and 11 are errors). The rationale, a string, is
// optional; it is collapsed to one line.
func ParseVerdict(reply string) (score int, rationale string, err error) {
	obj, ok := lastScoreObject(reply)
	if !ok {
		if strings.TrimSpace(reply) == "" {
			return 0, "", errors.New("the judge's reply is empty")
		}
		return 0, "", errors.New(`no JSON object with a "score" field in the judge's reply`)
	}
	var num json.Number
	dec := json.NewDecoder(bytes.NewReader(obj["score"]))
	dec.UseNumber()
	if raw := bytes.TrimSpace(obj["score"]); len(raw) == 0 || raw[0] == '"' || dec.Decode(&num) != nil {
		return 0, "", fmt.Errorf("score %s is not a number; want a whole number from %d to %d", clip(string(obj["score"]), 40), MinScore, MaxScore)
	}
	f, err := num.Float64()
	if err != nil || math.IsInf(f, 0) {
		return 0, "", fmt.Errorf("score %s is not a number; want a whole number from %d to %d", clip(string(obj["score"]), 40), MinScore, MaxScore)
	}
	if f != math.Trunc(f) {
		return 0, "", fmt.Errorf("score %s is not a whole number; want a whole number from %d to %d", num, MinScore, MaxScore)
	}
	if f < MinScore || f > MaxScore {
		return 0, "", fmt.Errorf("score %s is outside %d to %d", num, MinScore, MaxScore)
	}
	if raw, ok := obj["rationale"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &rationale); err != nil {
			return 0, "", fmt.Errorf("rationale %s is not a string", clip(string(raw), 40))
		}
	}
	return int(f), strings.Join(strings.Fields(rationale), " "), nil
}

// lastScoreObject finds the last well-formed JSON object in text with a
// "score" member. Objects nested inside a match are not searched again.
func lastScoreObject(text string) (map[string]json.RawMessage, bool) {
	var found map[string]json.RawMessage
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		end := jsonspan.ClosingBrace(text, i)
		if end < 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(text[i:end+1]), &obj) != nil {
			continue
		}
		if _, ok := obj["score"]; ok {
			found = obj
			i = end
		}
	}
	return found, found != nil
}

// Mean is a response's headline rubric score: the mean of the valid scores
// from judges other than the contestant itself. It is nil when there is
// none (every judge erred, or the only judge is the contestant).
func Mean(grid Grid, contestant string) *float64 {
	sum, n := 0, 0
	for _, s := range grid {
		if s.Score == nil || s.Judge == contestant {
			continue
		}
		sum += *s.Score
		n++
	}
	if n == 0 {
		return nil
	}
	m := float64(sum) / float64(n)
	return &m
}

// Errors counts the judge errors in grid.
func (g Grid) Errors() int {
	n := 0
	for _, s := range g {
		if s.Score == nil {
			n++
		}
	}
	return n
}

// ParseGrid reads a record's "rubric" field back; null or absent is an
// empty grid.
func ParseGrid(raw json.RawMessage) (Grid, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var g Grid
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf(`rubric: not a rubric grid (a list of {"judge", "score", "rationale"}): %v`, err)
	}
	return g, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
