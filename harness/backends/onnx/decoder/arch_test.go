package decoder_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// archCase is one family and shape whose graph the tests run.
type archCase struct {
	name string
	arch decoder.Arch
	cfg  decoder.Config
}

// base is a two-layer model small enough to run in milliseconds.
func base(seed uint64) decoder.Config {
	return decoder.Config{Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16, Intermediate: 176,
		MaxPositions: 64, RopeTheta: 10000, NormEps: 1e-5, Seed: seed}
}

// with is base(seed) changed by f.
func with(seed uint64, f func(c *decoder.Config)) decoder.Config {
	c := base(seed)
	f(&c)
	return c
}

// archCases cover every family: tied and untied heads, grouped-query
// attention, a head size of its own, biases, RoPE scaling and partial
// rotary, each activation family, GPT-2's attention scaling and
// GPT-NeoX's two residual forms.
func archCases() []archCase {
	llama3 := &decoder.RopeScaling{Type: "llama3", Factor: 8, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 256}
	return []archCase{
		{"llama/untied/gqa", decoder.Llama, with(1, func(c *decoder.Config) { c.KVHeads = 2 })},
		{"llama/tied/head_dim/biases/llama3", decoder.Llama, with(2, func(c *decoder.Config) {
			c.TiedEmbeddings, c.KVHeads, c.HeadDim, c.AttentionBias, c.MLPBias, c.RopeScaling = true, 1, 24, true, true, llama3
		})},
		{"llama/linear/gelu", decoder.Llama, with(3, func(c *decoder.Config) {
			c.RopeScaling, c.HiddenAct = &decoder.RopeScaling{Type: "linear", Factor: 4}, "gelu_pytorch_tanh"
		})},
		{"qwen2/tied/gqa", decoder.Qwen2, with(4, func(c *decoder.Config) { c.TiedEmbeddings, c.KVHeads, c.AttentionBias = true, 2, true })},
		{"qwen2/untied", decoder.Qwen2, with(5, func(c *decoder.Config) { c.AttentionBias, c.RopeTheta = true, 1e6 })},
		{"qwen3/tied/gqa/head_dim", decoder.Qwen3, with(6, func(c *decoder.Config) { c.TiedEmbeddings, c.KVHeads, c.HeadDim = true, 2, 32 })},
		{"qwen3/untied/bias", decoder.Qwen3, with(7, func(c *decoder.Config) { c.AttentionBias = true })},
		{"gpt2/tied/gelu_new", decoder.GPT2, with(8, func(c *decoder.Config) {
			c.TiedEmbeddings, c.Intermediate, c.RopeTheta, c.AttentionBias = true, 256, 0, true
		})},
		{"gpt2/untied/gelu/scaling", decoder.GPT2, with(9, func(c *decoder.Config) {
			c.Intermediate, c.HiddenAct, c.UnscaledAttention, c.ScaleAttnByLayer, c.RopeTheta, c.AttentionBias = 96, "gelu", true, true, 0, true
		})},
		{"gpt2/quick_gelu/by_layer", decoder.GPT2, with(10, func(c *decoder.Config) {
			c.HiddenAct, c.ScaleAttnByLayer, c.RopeTheta, c.AttentionBias = "quick_gelu", true, 0, true
		})},
		{"gpt_neox/untied/parallel/rotary_pct", decoder.GPTNeoX, with(11, func(c *decoder.Config) {
			c.Intermediate, c.RotaryDims, c.ParallelResidual, c.AttentionBias = 256, 4, true, true
		})},
		{"gpt_neox/tied/sequential/no_bias", decoder.GPTNeoX, with(12, func(c *decoder.Config) {
			c.TiedEmbeddings, c.RotaryDims, c.HiddenAct = true, 8, "relu"
		})},
		{"gpt_neox/full_rotary", decoder.GPTNeoX, with(13, func(c *decoder.Config) { c.ParallelResidual, c.AttentionBias, c.HiddenAct = true, true, "gelu_new" })},
		{"gemma3_text/tied/local+global/bf16", decoder.Gemma3, with(14, func(c *decoder.Config) {
			c.Layers, c.Hidden, c.KVHeads, c.HeadDim, c.TiedEmbeddings, c.DType = 3, 72, 1, 32, true, "bfloat16"
			c.RopeTheta, c.LocalRopeTheta, c.RopeScaling = 1e6, 10000, &decoder.RopeScaling{Type: "linear", Factor: 8}
			c.QueryPreAttnScalar, c.SlidingWindow, c.SlidingLayers = 48, 3, []bool{true, true, false}
		})},
		{"gemma3_text/untied/bias/all_local", decoder.Gemma3, with(15, func(c *decoder.Config) {
			c.KVHeads, c.AttentionBias, c.HiddenAct, c.LocalRopeTheta = 2, true, "gelu", 500
			c.QueryPreAttnScalar, c.SlidingWindow, c.SlidingLayers = 16, 4, []bool{true, true}
		})},
	}
}

// ids are the test sequence: 9 tokens spread over the vocabulary.
var ids = []int{1, 17, 250, 3, 99, 299, 42, 7, 128}

// tolerance is the largest |Δ log-probability| allowed between a graph in
// ONNX Runtime (float32) and the reference (float64).
const tolerance = 1e-5

// maxLogProbDiff is the largest |Δ| between two rows' log-probabilities
// over every position and token.
func maxLogProbDiff(t *testing.T, got [][]float32, want [][]float64) float64 {
	t.Helper()
	require.Len(t, got, len(want))
	var worst float64
	for p := range want {
		g, w := testmodel.LogSoftmax(got[p]), testmodel.LogSoftmax(want[p])
		for i := range g {
			worst = math.Max(worst, math.Abs(g[i]-w[i]))
		}
	}
	return worst
}

// Every family's graph, in every form a backend runs (a cache filled by a
// prompt then one token at a time, positions from the mask or given, no
// cache at all, optimum's merged decoder, and for the Llama family
// onnxruntime's GroupQueryAttention), computes the reference's
// log-probabilities.
func TestGraphsMatchTheReference(t *testing.T) {
	orttest.Require(t)
	exports := []struct {
		name  string
		e     decoder.Export
		calls []int
		gqa   bool
	}{
		{"cache", decoder.Export{Past: true}, []int{5, 1, 1, 1, 1}, false},
		{"cache+position_ids", decoder.Export{Past: true, PositionIDs: true}, []int{3, 6}, false},
		{"no cache", decoder.Export{}, []int{len(ids)}, false},
		{"merged", decoder.Export{Past: true, Merged: true, PositionIDs: true}, []int{4, 1, 4}, false},
		{"gqa rotary inside", decoder.Export{Past: true, GQA: true}, []int{5, 1, 3}, true},
		{"gqa position_ids", decoder.Export{Past: true, GQA: true, PositionIDs: true}, []int{2, 7}, true},
	}
	for _, tc := range archCases() {
		ref := &testmodel.Reference{Arch: tc.arch, Config: tc.cfg, Weights: decoder.Weights(tc.arch, tc.cfg)}
		want := ref.Logits(ids)
		for _, ex := range exports {
			if ex.gqa && (!gqaFamily(tc.arch) || tc.cfg.HeadDim%16 != 0) {
				continue // onnxruntime's kernel takes head sizes in multiples of 16
			}
			t.Run(tc.name+"/"+ex.name, func(t *testing.T) {
				data, err := decoder.Graph(tc.arch, tc.cfg, ref.Weights, ex.e).Marshal()
				require.NoError(t, err)
				got, err := testmodel.RunGraph(data, tc.cfg, ids, ex.calls...)
				require.NoError(t, err)
				d := maxLogProbDiff(t, got, want)
				assert.LessOrEqual(t, d, tolerance)
				t.Logf("max |Δ log p| = %.2g", d)
			})
		}
	}
}

func gqaFamily(a decoder.Arch) bool {
	mt := a.ModelType()
	return mt == "llama" || mt == "qwen2" || mt == "qwen3"
}

// The reference is no tautology: each option it reads changes the
// log-probabilities, so a graph that ignored one would fail above.
func TestEveryOptionMatters(t *testing.T) {
	for _, tc := range archCases() {
		ref := &testmodel.Reference{Arch: tc.arch, Config: tc.cfg, Weights: decoder.Weights(tc.arch, tc.cfg)}
		want := ref.Logits(ids)
		for _, change := range []struct {
			name  string
			apply func(c *decoder.Config) bool
		}{
			{"rope_scaling", func(c *decoder.Config) bool { old := c.RopeScaling; c.RopeScaling = nil; return old != nil }},
			{"rotary dims", func(c *decoder.Config) bool { old := c.RotaryDims; c.RotaryDims = 0; return old != 0 }},
			{"parallel residual", func(c *decoder.Config) bool {
				c.ParallelResidual = !c.ParallelResidual
				return tc.arch == decoder.GPTNeoX
			}},
			{"scale by layer", func(c *decoder.Config) bool { old := c.ScaleAttnByLayer; c.ScaleAttnByLayer = false; return old }},
			{"unscaled", func(c *decoder.Config) bool { old := c.UnscaledAttention; c.UnscaledAttention = false; return old }},
			{"activation", func(c *decoder.Config) bool { old := c.HiddenAct; c.HiddenAct = ""; return old != "" }},
			{"sliding window", func(c *decoder.Config) bool { old := c.SlidingLayers; c.SlidingLayers = nil; return old != nil }},
			{"local rope base", func(c *decoder.Config) bool {
				old := c.LocalRopeTheta
				c.LocalRopeTheta = 0
				return old != 0 && old != c.RopeTheta
			}},
			{"query_pre_attn_scalar", func(c *decoder.Config) bool {
				old := c.QueryPreAttnScalar
				c.QueryPreAttnScalar = 0
				return old != 0 && old != float64(c.HeadDim)
			}},
			{"embedding scale in bfloat16", func(c *decoder.Config) bool {
				old := c.DType
				c.DType = ""
				return old == "bfloat16" && tc.arch == decoder.Gemma3
			}},
			{"biases", func(c *decoder.Config) bool {
				old := c.AttentionBias
				c.AttentionBias = false
				return old && tc.arch != decoder.GPT2
			}},
		} {
			c := tc.cfg
			if !change.apply(&c) {
				continue
			}
			other := (&testmodel.Reference{Arch: tc.arch, Config: c, Weights: ref.Weights}).Logits(ids)
			var d float64
			for p := range want {
				a, b := testmodel.LogSoftmax(want[p]), testmodel.LogSoftmax(other[p])
				for i := range a {
					d = math.Max(d, math.Abs(a[i]-b[i]))
				}
			}
			assert.Greater(t, d, 10*tolerance, fmt.Sprintf("%s: %s", tc.name, change.name))
		}
	}
}
