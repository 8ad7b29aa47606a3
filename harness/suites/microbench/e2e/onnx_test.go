package e2e_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// suiteTasks loads the real item set (go test runs in the package folder).
func suiteTasks(t testing.TB) []*microbench.Task {
	t.Helper()
	tasks, err := microbench.Load(os.DirFS(filepath.Join("..", "..", "..", "..", "testdata", "microbench")))
	require.NoError(t, err)
	return tasks
}

// designed is a bigram model: log P(next | prev) is a known table, so every
// μBench number it produces can be computed without running it.
type designed struct {
	bg  *testmodel.Bigram
	tok *tokenizer.Tokenizer
}

// pair splits context and continuation as the ONNX backend does: the
// continuation is what follows the context's own tokens in the joint
// encoding, or its encoding alone when the joint one does not start with
// the context's.
func (d designed) pair(context, continuation string) (ctx, cont []int) {
	ctx = d.tok.Encode(context, false)
	whole := d.tok.Encode(context+continuation, false)
	if len(whole) >= len(ctx) && slices.Equal(whole[:len(ctx)], ctx) {
		return ctx, whole[len(ctx):]
	}
	return ctx, d.tok.Encode(continuation, false)
}

// logProb is the exact log P(continuation | BOS + context).
func (d designed) logProb(context, continuation string) float64 {
	ctx, cont := d.pair(context, continuation)
	lp, _ := d.bg.ContinuationLogProb(append([]int{testmodel.BOSID}, ctx...), cont)
	return lp
}

func buildDesigned(t testing.TB) designed {
	t.Helper()
	orttest.Require(t)
	bg, err := testmodel.BuildBigram(filepath.Join(t.TempDir(), "bigram"), testmodel.BigramConfig{
		Config: testmodel.Config{PositionIDs: true, Seed: 1234},
	})
	require.NoError(t, err)
	tok, err := tokenizer.Load(bg.Dir)
	require.NoError(t, err)
	return designed{bg, tok}
}

// Float32 logits summed over a continuation's tokens.
const tol = 1e-4

// TestDesignedModelThroughONNX scores four tasks (one per reduction, one
// with contrast pairs, one with varying choice counts) and every
// bits-per-byte document through ONNX Runtime and checks each number
// against the bigram table.
func TestDesignedModelThroughONNX(t *testing.T) {
	d := buildDesigned(t)
	m, err := onnx.Open(context.Background(), d.bg.Dir, onnx.Options{Key: "bigram"})
	require.NoError(t, err)
	defer m.Close()
	tasks := suiteTasks(t)
	want := map[string]bool{"agreement": true, "synonyms": true, "capitals": true, "tracking": true, "bpb": true}
	res, err := microbench.Evaluate(context.Background(), m, m.Info(), tasks, microbench.Options{
		Selected: func(task, _ string) bool { return want[task] },
	})
	require.NoError(t, err)

	byTask := map[string]*microbench.Task{}
	for _, tk := range tasks {
		byTask[tk.ID] = tk
	}
	checked := map[string]int{}
	for _, rec := range res.Items {
		tk := byTask[rec.Task]
		values := make([]float64, len(rec.Choices))
		for i, c := range rec.Choices {
			lp := d.logProb(rec.Context, c.Continuation)
			require.InDelta(t, lp, c.LogProb, tol, "%s choice %d", rec.ID, i)
			values[i] = lp
			switch tk.Reduction {
			case microbench.MeanByte:
				values[i] = lp / float64(len(c.Continuation))
			case microbench.PMI:
				null := d.logProb(microbench.NullContext, c.Continuation)
				require.NotNil(t, c.NullLogProb)
				require.InDelta(t, null, *c.NullLogProb, tol, "%s null %d", rec.ID, i)
				values[i] = lp - null
			}
			assert.InDelta(t, values[i], c.Value, tol, "%s value %d", rec.ID, i)
		}
		if tk.Reduction == microbench.PMI {
			// A bigram model sees one token back, and the question and the
			// null context both end in "Answer:": every pmi value is exactly
			// 0, so the lowest index wins the tie.
			for _, c := range rec.Choices {
				require.Equal(t, 0.0, c.Value, rec.ID)
			}
			assert.True(t, rec.Tie, rec.ID)
			assert.Equal(t, 0, rec.Prediction, rec.ID)
			checked[rec.Task]++
			continue
		}
		// The prediction is the exact argmax wherever float32 cannot flip it.
		best, second := 0, -1
		for i := 1; i < len(values); i++ {
			if values[i] > values[best] {
				best, second = i, best
			} else if second < 0 || values[i] > values[second] {
				second = i
			}
		}
		if values[best]-values[second] > 10*tol {
			assert.Equal(t, best, rec.Prediction, rec.ID)
			checked[rec.Task]++
		}
		assert.False(t, rec.Truncated)
	}
	t.Logf("predictions checked against the table: %v", checked)
	for task := range want {
		if task != "bpb" {
			assert.Greater(t, checked[task], len(byTask[task].Items)*3/4, task)
		}
	}

	// Bits per byte: the rolling log-likelihood of BOS + text, whatever the
	// windows; the longest document needs more than one 512-token window.
	var bits, bytes float64
	windows := 0
	require.Len(t, res.Documents, 6)
	for _, doc := range res.Documents {
		var text string
		for _, it := range byTask["bpb"].Items {
			if it.ID == doc.ID {
				text = it.Text
			}
		}
		ids := append([]int{testmodel.BOSID}, d.tok.Encode(text, false)...)
		lp := d.bg.SequenceLogProb(ids)
		assert.InDelta(t, lp, doc.LogProb, 1e-2, doc.ID) // ~1000 float32 terms
		assert.Equal(t, len(ids)-1, doc.Tokens, doc.ID)
		bits += -lp / math.Ln2
		bytes += float64(len(text))
		windows = max(windows, doc.Windows)
	}
	assert.Greater(t, windows, 1)
	bt := res.Tasks[len(res.Tasks)-1]
	require.Equal(t, "bpb", bt.ID)
	assert.InDelta(t, bits/bytes, *bt.BitsPerByte, 1e-5)
	assert.InDelta(t, microbench.BPBScore(bits/bytes), bt.Score, 1e-3)
}

// TestTruncationThroughONNX: with a 24-token window the reading passages
// are left-truncated; every item records it and the task counts it.
func TestTruncationThroughONNX(t *testing.T) {
	d := buildDesigned(t)
	m, err := onnx.Open(context.Background(), d.bg.Dir, onnx.Options{Key: "bigram"})
	require.NoError(t, err)
	defer m.Close()
	const maxLen = 24
	res, err := microbench.Evaluate(context.Background(), m, m.Info(), suiteTasks(t), microbench.Options{
		MaxLength: maxLen,
		Selected:  func(task, _ string) bool { return task == "reading" || task == "arithmetic" },
	})
	require.NoError(t, err)
	want := map[string]int{}
	for _, rec := range res.Items {
		long := false
		for _, c := range rec.Choices {
			ctx, cont := d.pair(rec.Context, c.Continuation)
			long = long || 1+len(ctx)+len(cont) > maxLen
			// A bigram model sees one token back: truncation leaves the value alone.
			assert.InDelta(t, d.logProb(rec.Context, c.Continuation), c.LogProb, tol, rec.ID)
		}
		assert.Equal(t, long, rec.Truncated, rec.ID)
		if long {
			want[rec.Task]++
		}
	}
	assert.Equal(t, 60, want["reading"], "every passage is longer than 24 tokens")
	assert.Equal(t, want["reading"], res.TruncatedItems["reading"])
	assert.Equal(t, want["arithmetic"], res.TruncatedItems["arithmetic"])
	assert.Less(t, want["arithmetic"], 70)
}
