package ckpt_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
)

// int8PerToken bounds how far "dtype": "int8" moves a continuation's
// log-probability from float32, per scored token, on these random models
// (measured: 0.068 llama, 0.055 qwen3, 0.012 gpt_neox): each weight is rounded to 1/127 of its
// column's largest magnitude and each activation to 1/255 of its
// tensor's range.
const int8PerToken = 0.15

// "dtype": "int8" writes each layer's linear weights as int8 with a scale
// per output column and multiplies them with MatMulInteger, leaving the
// embeddings and the head float32: a quarter of the bytes for those
// weights, and log-probabilities near float32's.
func TestInt8Setting(t *testing.T) {
	orttest.Require(t)
	for _, arch := range []string{checkpoint.Llama, checkpoint.Qwen3, checkpoint.GPTNeoX} {
		t.Run(arch, func(t *testing.T) {
			f := zoo()[arch+"/f32"]
			dir := filepath.Join(t.TempDir(), "checkpoint")
			_, err := f.Write(dir)
			require.NoError(t, err)

			g32, err := ckpt.Load(dir, ckpt.Options{})
			require.NoError(t, err)
			g32.Close()
			g8, err := ckpt.Load(dir, ckpt.Options{Int8: true})
			require.NoError(t, err)
			g8.Close()
			n := 0
			for _, node := range g8.Model.Graph.Nodes {
				if node.OpType == "MatMulInteger" {
					n++
				}
			}
			assert.Equal(t, 2*linearsPerLayer[arch], n, "every linear layer of the two layers")
			assert.Less(t, g8.WeightBytes, g32.WeightBytes*3/4)

			a, b := open(t, dir, onnx.Options{DType: onnx.DTypeInt8}), open(t, dir, onnx.Options{})
			ra, rb := score(t, a), score(t, b)
			var worst float64
			for i := range ra {
				require.NoError(t, ra[i].Err)
				d := math.Abs(ra[i].LogProb-rb[i].LogProb) / float64(ra[i].ContinuationTokens)
				worst = math.Max(worst, d)
				assert.LessOrEqual(t, d, int8PerToken, "request %d", i)
			}
			t.Logf("%s: int8 against float32, max |Δ log-prob| %.3g a token", arch, worst)
		})
	}
}

// linearsPerLayer counts each family's linear weights in a layer.
var linearsPerLayer = map[string]int{checkpoint.Llama: 7, checkpoint.Qwen3: 7, checkpoint.GPTNeoX: 4}
