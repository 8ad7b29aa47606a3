package local_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/lm"
)

// TestEncodePair: the continuation is what follows the context's tokens
// in the whole text's; where a token would straddle the boundary, the
// two halves are encoded on their own.
func TestEncodePair(t *testing.T) {
	tests := []struct {
		context, continuation string
		ctx, cont             []int
		err                   string
	}{
		{"The cat", " sat on the mat", []int{1, 4}, []int{5, 6, 7, 8}, ""},
		{"Th", "e cat", []int{2}, []int{3, 4}, ""}, // "The cat" reads "The"
		{"", " mat", nil, []int{8}, ""},
		{"The cat", "", []int{1, 4}, []int{}, ""},
		{"The cat", " dog", nil, nil, `toy: no piece starts " dog"`},
		{"dog", " mat", nil, nil, `toy: no piece starts "dog"`},
	}
	for _, tt := range tests {
		ctx, cont, err := local.EncodePair(toy{}, tt.context, tt.continuation)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err, "%q+%q", tt.context, tt.continuation)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.ctx, ctx, "%q+%q", tt.context, tt.continuation)
		assert.Equal(t, tt.cont, cont, "%q+%q", tt.context, tt.continuation)
	}
}

// TestMaxLength: the option, capped by the model's context; 0 is the
// context.
func TestMaxLength(t *testing.T) {
	tests := []struct{ context, option, want int }{
		{6, 0, 6}, {6, 3, 3}, {6, 6, 6}, {6, 100, 6}, {6, -1, 6}, {0, 7, 7},
	}
	for _, tt := range tests {
		m := local.Model{Context: tt.context}
		assert.Equal(t, tt.want, m.MaxLength(lm.ScoreOptions{MaxLength: tt.option}), "context %d, option %d", tt.context, tt.option)
	}
}

// TestLogLikelihood: each request is scored as [BOS] + context +
// continuation, its left end cut to MaxLength and counted; a request
// that cannot be scored fails alone, saying why.
func TestLogLikelihood(t *testing.T) {
	e := &engine{}
	reqs := []lm.LLRequest{
		{Context: "The cat", Continuation: " sat"},
		{Context: "Th", Continuation: "e cat"},
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat", Continuation: ""},
		{Context: "The", Continuation: " cat sat on the mat"},
		{Context: "The", Continuation: " dog"},
		{Context: "The cat", Continuation: " rug"},
		{Context: "The cat", Continuation: " sat"},
	}
	var progress [][2]int
	res, err := model(e, 100).LogLikelihood(context.Background(), reqs, lm.ScoreOptions{MaxLength: 5, Progress: func(done, total int) {
		progress = append(progress, [2]int{done, total})
	}})
	require.NoError(t, err)
	assert.Equal(t, []local.ScoreSeq{
		{Tokens: []int{0, 1, 4, 5}, N: 1},
		{Tokens: []int{0, 2, 3, 4}, N: 2},
		{Tokens: []int{4, 5, 6, 7, 8}, N: 1},
		{Tokens: []int{0, 1, 4, 10}, N: 1},
		{Tokens: []int{0, 1, 4, 5}, N: 1},
	}, e.scored)
	assert.Equal(t, [][2]int{{5, 5}}, progress)

	sat := lm.LLResult{LogProb: -5, IsGreedy: true, ContextTokens: 2, ContinuationTokens: 1}
	want := []lm.LLResult{
		sat,
		{LogProb: -7, ContextTokens: 1, ContinuationTokens: 2},
		{LogProb: -8, IsGreedy: true, ContextTokens: 4, ContinuationTokens: 1, Truncated: true},
		{Err: errors.New(`the continuation "" encodes to no tokens; there is nothing to score`)},
		{ContinuationTokens: 5, Err: errors.New("the continuation has 5 tokens but at most 4 fit in a 5-token sequence with its context; raise MaxLength or shorten it")},
		{Err: errors.New(`toy: no piece starts " dog"`)},
		{},
		sat,
	}
	require.Len(t, res, len(want))
	for i := range want {
		if i == 6 {
			continue
		}
		assert.Equal(t, want[i], res[i], "request %d", i)
	}
	assert.True(t, math.IsNaN(res[6].LogProb))
	assert.ErrorIs(t, res[6].Err, local.ErrNaN)
	assert.EqualError(t, res[6].Err, "the model produced NaN log-probabilities (broken weights, or float16 overflow)")
}

// TestRollingLogLikelihood: each text is [BOS] + its tokens in
// lm.RollingWindows' windows, every token scored once.
func TestRollingLogLikelihood(t *testing.T) {
	e := &engine{}
	res, err := model(e, 100).RollingLogLikelihood(context.Background(), []string{"The cat sat on the mat", "", "dog", " rug"}, lm.ScoreOptions{MaxLength: 4})
	require.NoError(t, err)
	assert.Equal(t, []local.ScoreSeq{
		{Tokens: []int{0, 1, 4, 5}, N: 3},
		{Tokens: []int{5, 6, 7, 8}, N: 3},
		{Tokens: []int{0, 10}, N: 1},
	}, e.scored)
	assert.Equal(t, lm.RollingResult{LogProb: -31, Tokens: 6, Bytes: 22, Windows: 2}, res[0])
	assert.Equal(t, lm.RollingResult{}, res[1], "an empty text has nothing to score")
	assert.Equal(t, lm.RollingResult{Bytes: 3, Err: errors.New(`toy: no piece starts "dog"`)}, res[2])
	assert.ErrorIs(t, res[3].Err, local.ErrNaN)

	res, err = model(e, 100).RollingLogLikelihood(context.Background(), []string{"The"}, lm.ScoreOptions{MaxLength: 1})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, "a 1-token window cannot score anything; MaxLength must be at least 2")
	// The model's context is the window when MaxLength is 0.
	e.scored = nil
	_, err = model(e, 3).RollingLogLikelihood(context.Background(), []string{"The cat sat"}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.Equal(t, []local.ScoreSeq{{Tokens: []int{0, 1, 4}, N: 2}, {Tokens: []int{1, 4, 5}, N: 1}}, e.scored)
}

// TestScoringFailures: a closed model and an engine that fails fail the
// whole call.
func TestScoringFailures(t *testing.T) {
	closed := model(&engine{}, 100)
	closed.Closed = true
	_, err := closed.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "The", Continuation: " cat"}}, lm.ScoreOptions{})
	assert.ErrorIs(t, err, local.ErrClosed)
	_, err = closed.RollingLogLikelihood(context.Background(), []string{"The"}, lm.ScoreOptions{})
	assert.ErrorIs(t, err, local.ErrClosed)
	assert.EqualError(t, err, "the model is closed")

	broken := model(&engine{err: errors.New("engine down")}, 100)
	_, err = broken.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "The", Continuation: " cat"}}, lm.ScoreOptions{})
	assert.EqualError(t, err, "engine down")
	_, err = broken.RollingLogLikelihood(context.Background(), []string{"The"}, lm.ScoreOptions{})
	assert.EqualError(t, err, "engine down")
}

// TestSortByTokens: sequences beginning alike are neighbours, ties in
// index order, each with what it shares with the one before.
func TestSortByTokens(t *testing.T) {
	seqs := [][]int{{1, 2, 3}, {1, 2}, {0, 5}, {1, 2, 3}, {1, 4}, {}}
	order, common := local.SortByTokens(len(seqs), func(i int) []int { return seqs[i] })
	assert.Equal(t, []int{5, 2, 1, 0, 3, 4}, order)
	assert.Equal(t, []int{0, 0, 0, 2, 3, 1}, common)
	order, common = local.SortByTokens(0, nil)
	assert.Empty(t, order)
	assert.Empty(t, common)
}
