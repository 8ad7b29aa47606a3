package ckpt_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// A model with sliding-window layers scores a batch, and generates for
// several prompts, exactly as it does each request alone. Its window
// counts a row's slots, padding included, as transformers counts them, so
// the engine must put no padding inside a row (between a cache and the
// tokens after it), which for other models it does to fill its calls.
// Before the engine knew, a six-layer Gemma 3 moved 378 of 835 μBench
// requests scored together by up to 7.6 nats, and changed 21 of 200
// greedy replies (found against llama.cpp, TestLlamaCppAgreesWithONNX).
// Here the fixture's window is 6 positions; the requests share
// beginnings of several lengths, run past the window, and end in
// continuations of one to six words, so a padded plan would put gaps of
// every size inside rows. The export runs the staged plan, unpadded; the
// checkpoint scores prefix trees, whose sliding mask the engine applies
// by position, and must score as the export does.
func TestSlidingWindowBatchEqualsAlone(t *testing.T) {
	orttest.Require(t)
	f := ckpttest.Fixture{Arch: decoder.Gemma3.ModelType(), Seed: 9,
		Shape: checkpoint.Shape{Vocab: 320, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 1, MaxPositions: 256}}
	ckDir, exDir := writePair(t, f, false)
	var reqs []lm.LLRequest
	for i, b := range slidingBeginnings {
		for j, e := range []string{" four", " far away", " into the sea and back", " over the town, the hills and the sea"} {
			reqs = append(reqs, lm.LLRequest{Context: b + fmt.Sprintf(" %d", i+j), Continuation: e})
		}
	}
	scores := map[string][]lm.LLResult{}
	for name, dir := range map[string]string{"checkpoint": ckDir, "export": exDir} {
		if !t.Run(name, func(t *testing.T) { scores[name] = batchEqualsAlone(t, open(t, dir, onnx.Options{}), reqs) }) {
			return
		}
	}
	for i := range reqs {
		assert.InDelta(t, scores["export"][i].LogProb, scores["checkpoint"][i].LogProb, 1e-4, "request %d: the tree against the staged plan", i)
	}
}

// slidingBeginnings share beginnings of several lengths, some past the
// window.
var slidingBeginnings = []string{"The", "The small kite", "The small kite flew over the hills and", "Question: what is two and two?\nAnswer:"}

// batchEqualsAlone scores reqs together and one by one, and generates
// from slidingBeginnings together and one by one, and returns the scores.
func batchEqualsAlone(t *testing.T, m *onnx.Model, reqs []lm.LLRequest) []lm.LLResult {
	ctx := context.Background()
	all, err := m.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, r := range reqs {
		one, err := m.LogLikelihood(ctx, []lm.LLRequest{r}, lm.ScoreOptions{})
		require.NoError(t, err)
		assert.InDelta(t, one[0].LogProb, all[i].LogProb, 1e-4, "%q + %q", r.Context, r.Continuation)
	}

	var gens []lm.GenerateRequest
	for _, b := range slidingBeginnings {
		gens = append(gens, lm.GenerateRequest{Prompt: b, MaxNewTokens: 12})
	}
	together, err := m.Generate(ctx, gens)
	require.NoError(t, err)
	for i, g := range gens {
		alone, err := m.Generate(ctx, []lm.GenerateRequest{g})
		require.NoError(t, err)
		require.NoError(t, together[i].Err)
		assert.Equal(t, alone[0].Text, together[i].Text, "%q", g.Prompt)
	}
	return all
}
