package featherweight

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// evaluateAll runs the shipped set under both styles, as the suite does.
func evaluateAll(t *testing.T, m *fake.Model) ModelResult {
	t.Helper()
	ds := shippedData(t)
	r := ModelResult{Model: m.Info()}
	for _, st := range Styles {
		recs, err := Evaluate(context.Background(), m, m.Info(), st, ds.Items)
		require.NoError(t, err)
		require.Len(t, recs, len(ds.Items))
		r.Records = append(r.Records, recs...)
	}
	return r
}

// TestAlwaysCScoresChance: "A model that always answers a single letter
// (e.g. always C) also scores 25%, because answer positions are exactly
// balanced".
func TestAlwaysCScoresChance(t *testing.T) {
	m := &fake.Model{ModelInfo: lm.Info{Key: "always-c", Backend: "fake"}, Reply: fake.Text("C")}
	sums := Summarize([]ModelResult{evaluateAll(t, m)})
	require.Len(t, sums, 2)
	for i, st := range Styles {
		s := sums[i]
		assert.Equal(t, st, s.Style)
		assert.Equal(t, 100, s.N)
		assert.Equal(t, 25, s.Correct)
		assert.Equal(t, 25.0, s.ScorePct)
		assert.Equal(t, 0, s.ParseErrors)
		assert.Equal(t, 0, s.Errors)
		assert.InDelta(t, 17.545211362287674, s.CILowPct, 1e-9)
		assert.InDelta(t, 34.304463548061605, s.CIHighPct, 1e-9)
		// A bare "C" has nothing after it for step 3, names no choice, and
		// is a standalone letter.
		assert.Equal(t, map[Rule]int{RuleStandaloneLetter: 100}, s.Rules)
		// C is the answer 2 or 3 times in each category (2-3-2-3 splits).
		want := []CategoryScore{
			{"geography", 10, 2, 20}, {"history", 10, 3, 30}, {"arithmetic", 10, 2, 20}, {"science", 10, 3, 30},
			{"language", 10, 2, 20}, {"vocabulary", 10, 3, 30}, {"common sense", 10, 2, 20}, {"logic", 10, 3, 30},
			{"categorization", 10, 2, 20}, {"reading", 10, 3, 30},
		}
		assert.Equal(t, want, s.Categories)
	}
	calls := m.Calls()
	assert.Equal(t, 2, calls.Batches, "one batch per style")
	assert.Len(t, calls.Generate, 200)
}

// TestChoiceTextScoresFull: a model that answers in prose with the right
// choice's text scores 100%, every verdict from step 4.
func TestChoiceTextScoresFull(t *testing.T) {
	ds := shippedData(t)
	answers := map[string]string{}
	for _, st := range Styles {
		for _, it := range ds.Items {
			answers[Prompt(st, it)] = it.Choices[it.Answer]
		}
	}
	m := &fake.Model{
		ModelInfo: lm.Info{Key: "prose", Backend: "fake", Chat: true},
		Reply: func(req lm.GenerateRequest) lm.GenerateResult {
			require.Len(t, req.Messages, 1, "a chat model gets the prompt as a message")
			return lm.GenerateResult{Text: answers[req.Messages[0].Content], StopReason: lm.StopEOS}
		},
	}
	sums := Summarize([]ModelResult{evaluateAll(t, m)})
	require.Len(t, sums, 2)
	for _, s := range sums {
		assert.Equal(t, 100, s.Correct, s.Style)
		assert.Equal(t, 100.0, s.ScorePct)
		assert.Equal(t, map[Rule]int{RuleChoiceText: 100}, s.Rules)
		assert.Equal(t, 0, s.ParseErrors)
	}
}

func TestEvaluateRecords(t *testing.T) {
	items := []Item{
		{ID: "geo01", Category: "geography", Question: "What is the capital of France?", Choices: france, Answer: 1},
		{ID: "geo02", Category: "geography", Question: "Q2?", Choices: france, Answer: 0},
		{ID: "geo03", Category: "geography", Question: "Q3?", Choices: france, Answer: 2},
	}
	sent := map[string]any{"temperature": 0.0, "top_p": 1.0, "max_tokens": 20}
	replies := []lm.GenerateResult{
		{Text: "The capital of France is Paris.", PromptSent: "<s>templated", SamplingSent: sent, StopReason: lm.StopEOS,
			InputTokens: 31, OutputTokens: 8, Wall: 1500 * time.Microsecond, TTFT: 250 * time.Microsecond},
		{Text: "I don't know.", StopReason: lm.StopLength, OutputTokens: 20},
		{StopReason: lm.StopError, Err: errors.New("connection refused")},
	}
	var n int
	m := &fake.Model{ModelInfo: lm.Info{Key: "m", Chat: true}, Reply: func(lm.GenerateRequest) lm.GenerateResult {
		n++
		return replies[n-1]
	}}
	recs, err := Evaluate(context.Background(), m, m.Info(), Plain, items)
	require.NoError(t, err)
	assert.Equal(t, []Record{
		{ID: "geo01", Category: "geography", Style: Plain, Answer: "B", Chat: true, PromptSent: "<s>templated",
			Reply: "The capital of France is Paris.", Letter: "B", Rule: RuleChoiceText, Correct: true,
			InputTokens: 31, OutputTokens: 8, LatencyMS: 1.5, TTFTMS: 0.25, StopReason: lm.StopEOS, SamplingSent: sent},
		// Without a PromptSent from the backend, the record keeps the text the suite built.
		{ID: "geo02", Category: "geography", Style: Plain, Answer: "A", Chat: true, PromptSent: Prompt(Plain, items[1]),
			Reply: "I don't know.", Rule: RuleParseError, ParseError: true, OutputTokens: 20, StopReason: lm.StopLength},
		{ID: "geo03", Category: "geography", Style: Plain, Answer: "C", Chat: true, PromptSent: Prompt(Plain, items[2]),
			StopReason: lm.StopError, Error: "connection refused"},
	}, recs)

	s := Summarize([]ModelResult{{Model: m.Info(), Records: recs}})
	require.Len(t, s, 1)
	assert.Equal(t, 3, s[0].N, "a failed request counts, as wrong")
	assert.Equal(t, 1, s[0].Correct)
	assert.Equal(t, 1, s[0].ParseErrors)
	assert.Equal(t, 1, s[0].Errors)
	assert.True(t, s[0].Incomplete)
	assert.Equal(t, []FailedItem{{ID: "geo03", Error: "connection refused"}}, s[0].Failed)
	assert.InDelta(t, 100.0/3, s[0].ScorePct, 1e-12)
	assert.InDelta(t, 6.149194472039615, s[0].CILowPct, 1e-9)
	assert.InDelta(t, 79.23403991979524, s[0].CIHighPct, 1e-9)
	assert.Equal(t, map[Rule]int{RuleChoiceText: 1, RuleParseError: 1}, s[0].Rules)
}

type brokenGenerator struct {
	results []lm.GenerateResult
	err     error
}

func (b brokenGenerator) Generate(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return b.results, b.err
}

func TestEvaluateBatchErrors(t *testing.T) {
	items := []Item{{ID: "a", Category: "c", Question: "?", Choices: france}, {ID: "b", Category: "c", Question: "?", Choices: france}}
	info := lm.Info{Key: "m"}
	_, err := Evaluate(context.Background(), brokenGenerator{err: errors.New("out of memory")}, info, Plain, items)
	assert.EqualError(t, err, "model m, plain prompts: out of memory")
	_, err = Evaluate(context.Background(), brokenGenerator{results: make([]lm.GenerateResult, 1)}, info, Completion, items)
	assert.EqualError(t, err, "model m, completion prompts: the backend returned 1 results for 2 requests")
	recs, err := Evaluate(context.Background(), brokenGenerator{err: errors.New("never called")}, info, Plain, nil)
	assert.NoError(t, err)
	assert.Empty(t, recs)
}
