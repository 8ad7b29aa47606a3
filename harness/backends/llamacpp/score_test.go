package llamacpp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/lm"
)

// scoringRequests are μBench-shaped requests: choices after a shared
// context (several tokens each, one token, sharing their first token),
// a context that is a prefix of another, an empty context, and repeats.
func scoringRequests() []lm.LLRequest {
	reqs := []lm.LLRequest{
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat sat on the", Continuation: " hat"},
		{Context: "The cat sat on the", Continuation: " warm windowsill"},
		{Context: "The cat sat on the", Continuation: " warm rug by the fire"},
		{Context: "The cat sat", Continuation: " down"},
		{Context: "", Continuation: "Once upon a time"},
		{Context: "Question: What is 2+2?\nAnswer:", Continuation: " 4"},
		{Context: "Question: What is 2+2?\nAnswer:", Continuation: " four"},
		{Context: "The cat sat on the", Continuation: " mat"},
	}
	// Enough sequences for several waves of 64, in batches of 16 tokens.
	for i := range 100 {
		reqs = append(reqs, lm.LLRequest{Context: fmt.Sprintf("Item %d: the answer is", i%7), Continuation: fmt.Sprintf(" %d apples and %d pears", i, 2*i)})
	}
	return reqs
}

// TestLogLikelihoodIsExact: however requests are grouped, shared, packed
// into batches and waves, each continuation gets the log-probability of
// its sequence decoded alone, [BOS] + context + continuation.
func TestLogLikelihoodIsExact(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{Batch: 16})
	reqs := scoringRequests()
	var progress [][2]int
	res, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{MaxLength: 512, Progress: func(done, total int) { progress = append(progress, [2]int{done, total}) }})
	require.NoError(t, err)
	require.Len(t, res, len(reqs))
	for i, r := range reqs {
		require.NoError(t, res[i].Err, i)
		c := ids(t, m, r.Context)
		k := ids(t, m, r.Context+r.Continuation)[len(c):]
		assert.Equal(t, len(c), res[i].ContextTokens, "request %d", i)
		assert.Equal(t, len(k), res[i].ContinuationTokens, "request %d", i)
		assert.False(t, res[i].Truncated)
		want := alone(t, path, append(append([]int{0}, c...), k...), len(k))
		assert.InDelta(t, want, res[i].LogProb, 1e-5, "request %d %q+%q", i, r.Context, r.Continuation)
	}
	assert.Equal(t, res[0], res[8], "a repeated request scores the same")

	require.GreaterOrEqual(t, len(progress), 2, "one report per wave")
	for i, p := range progress {
		assert.Equal(t, len(reqs), p[1])
		if i > 0 {
			assert.Greater(t, p[0], progress[i-1][0])
		}
	}
	assert.Equal(t, len(reqs), progress[len(progress)-1][0])
}

// TestTruncation: a sequence longer than MaxLength loses its left end
// (the BOS first) and says so; the continuation is scored given what is
// left.
func TestTruncation(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{})
	r := lm.LLRequest{Context: "A long context that will not fit in twelve tokens, not by a long way", Continuation: " at all"}
	res, err := m.LogLikelihood(context.Background(), []lm.LLRequest{r}, lm.ScoreOptions{MaxLength: 12})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	c := ids(t, m, r.Context)
	k := ids(t, m, r.Context+r.Continuation)[len(c):]
	require.Len(t, k, 2)
	assert.True(t, res[0].Truncated)
	assert.Equal(t, 10, res[0].ContextTokens)
	seq := append(append([]int{0}, c...), k...)
	assert.InDelta(t, alone(t, path, seq[len(seq)-12:], 2), res[0].LogProb, 1e-5)

	// The model's own context bounds MaxLength 0 and anything above it.
	short := open(t, path, llamacpp.Options{Context: 12})
	for _, max := range []int{0, 100} {
		res, err = short.LogLikelihood(context.Background(), []lm.LLRequest{r}, lm.ScoreOptions{MaxLength: max})
		require.NoError(t, err)
		assert.True(t, res[0].Truncated, max)
		assert.Equal(t, 10, res[0].ContextTokens, max)
	}
	assert.Equal(t, 12, short.Info().ContextLength)
}

// TestRollingLogLikelihood scores a document in lm.RollingWindows'
// windows, every token once.
func TestRollingLogLikelihood(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{})
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 3)
	tokens := ids(t, m, text)
	for _, window := range []int{512, 8} {
		res, err := m.RollingLogLikelihood(context.Background(), []string{text, ""}, lm.ScoreOptions{MaxLength: window})
		require.NoError(t, err)
		want := 0.0
		ws := lm.RollingWindows(tokens, 0, window)
		for _, w := range ws {
			want += alone(t, path, w.Tokens, w.Scored)
		}
		assert.InDelta(t, want, res[0].LogProb, 1e-4, "window %d", window)
		assert.Equal(t, lm.RollingResult{LogProb: res[0].LogProb, Tokens: len(tokens), Bytes: len(text), Windows: len(ws)}, res[0])
		assert.Equal(t, lm.RollingResult{}, res[1], "an empty document has nothing to score")
	}
}

// TestScoringErrors: requests that cannot be scored fail alone, with a
// message that says why.
func TestScoringErrors(t *testing.T) {
	m := open(t, smol(t), llamacpp.Options{})
	res, err := m.LogLikelihood(context.Background(), []lm.LLRequest{
		{Context: "Hello", Continuation: ""},
		{Context: "Hello", Continuation: " there my friend"},
		{Context: "Hello there", Continuation: " you"},
	}, lm.ScoreOptions{MaxLength: 3})
	require.NoError(t, err)
	require.EqualError(t, res[0].Err, `the continuation "" encodes to no tokens; there is nothing to score`)
	require.EqualError(t, res[1].Err, "the continuation has 3 tokens but at most 2 fit in a 3-token sequence with its context; raise MaxLength or shorten it")
	require.NoError(t, res[2].Err)
	assert.True(t, res[2].Truncated)

	rolling, err := m.RollingLogLikelihood(context.Background(), []string{"Hello"}, lm.ScoreOptions{MaxLength: 1})
	require.NoError(t, err)
	require.EqualError(t, rolling[0].Err, "a 1-token window cannot score anything; MaxLength must be at least 2")
}
