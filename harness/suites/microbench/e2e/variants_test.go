package e2e_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// TestVariantsThroughMicrobench scores μBench tasks on a random model's
// float32 file and on each variant that runs (q4, dynamic int8 and
// uint8, fp16): every item is scored, and each choice's log-likelihood
// stays within what the variant's quantization costs the model per token
// (the backend's tests hold each variant to its own reference; here the
// question is the suite's numbers).
func TestVariantsThroughMicrobench(t *testing.T) {
	orttest.Require(t)
	variants := map[string]float64{"q4": 0.5, "int8": 0.1, "uint8": 0.1, "fp16": 5e-3}
	var names []string
	for v := range variants {
		names = append(names, v)
	}
	fx, err := testmodel.Build(filepath.Join(t.TempDir(), "m"), testmodel.Config{KVHeads: 2, PositionIDs: true, Seed: 77, Variants: names})
	require.NoError(t, err)
	tasks := suiteTasks(t)
	opts := microbench.Options{Selected: func(task, _ string) bool { return task == "agreement" || task == "capitals" }}
	evaluate := func(variant string) *microbench.Result {
		m, err := onnx.Open(context.Background(), fx.Dir, onnx.Options{Key: "m", Variant: variant})
		require.NoError(t, err)
		defer m.Close()
		res, err := microbench.Evaluate(context.Background(), m, m.Info(), tasks, opts)
		require.NoError(t, err)
		return res
	}
	base := evaluate("")
	require.NotEmpty(t, base.Items)
	for v, perToken := range variants {
		t.Run(v, func(t *testing.T) {
			res := evaluate(v)
			require.Len(t, res.Items, len(base.Items))
			agree, worst := 0, 0.0
			for i, rec := range res.Items {
				want := base.Items[i]
				require.Equal(t, want.ID, rec.ID)
				require.Empty(t, rec.Error, rec.ID)
				for c, ch := range rec.Choices {
					d := abs(want.Choices[c].LogProb-ch.LogProb) / float64(ch.ContinuationTokens)
					assert.LessOrEqualf(t, d, perToken, "%s choice %d: log-likelihood per token against float32", rec.ID, c)
					worst = max(worst, d)
				}
				if rec.Prediction == want.Prediction {
					agree++
				}
			}
			t.Logf("%s: %d of %d predictions as float32's; log-likelihoods up to %.3g a token apart", v, agree, len(res.Items), worst)
			assert.Greater(t, agree, len(res.Items)/2, "most predictions are float32's")
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
