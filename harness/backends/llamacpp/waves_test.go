package llamacpp_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/lm"
)

// TestScoringPastTheBatch: a context longer than a batch, shared by its
// choices past a batch of cells, and rolling windows longer than a
// batch decode in several calls and score as each sequence decoded alone.
func TestScoringPastTheBatch(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{Batch: 8})
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 2)
	reqs := []lm.LLRequest{
		{Context: long, Continuation: " Yes"},
		{Context: long, Continuation: " No"},
		{Context: long, Continuation: " Not at all, never"},
		{Context: "Short", Continuation: " and sweet"},
	}
	res, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{MaxLength: 512})
	require.NoError(t, err)
	for i, r := range reqs {
		require.NoError(t, res[i].Err, i)
		c := ids(t, m, r.Context)
		k := ids(t, m, r.Context+r.Continuation)[len(c):]
		if i < 3 {
			require.Greater(t, len(c), 8, "the context is longer than a batch")
		}
		assert.InDelta(t, alone(t, path, append(append([]int{0}, c...), k...), len(k)), res[i].LogProb, 1e-5, "request %d", i)
	}

	text := strings.Repeat("Pack my box with five dozen liquor jugs. ", 3)
	tokens := ids(t, m, text)
	rolling, err := m.RollingLogLikelihood(context.Background(), []string{text}, lm.ScoreOptions{MaxLength: 20})
	require.NoError(t, err)
	want := 0.0
	for _, w := range lm.RollingWindows(tokens, 0, 20) {
		want += alone(t, path, w.Tokens, w.Scored)
	}
	assert.InDelta(t, want, rolling[0].LogProb, 1e-4)
	assert.Greater(t, rolling[0].Windows, 1)
}
