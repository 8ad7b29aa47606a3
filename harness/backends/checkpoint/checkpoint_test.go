package checkpoint_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// small is the shape the tables below pin: 2 layers, 4 heads of 16, 2
// key/value heads.
var small = checkpoint.Shape{Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2}

// shapes maps each tensor name to its shape.
func shapes(c *checkpoint.Checkpoint) map[string][]int {
	out := map[string][]int{}
	for n, t := range c.Tensors {
		out[n] = t.Shape
	}
	return out
}

// layered expands per-layer entries (names with %d) for two layers.
func layered(top map[string][]int, layer map[string][]int) map[string][]int {
	out := map[string][]int{}
	for n, s := range top {
		out[n] = s
	}
	for i := 0; i < 2; i++ {
		for n, s := range layer {
			out[fmt.Sprintf(n, i)] = s
		}
	}
	return out
}

var llamaLayer = map[string][]int{
	"model.layers.%d.input_layernorm.weight":          {64},
	"model.layers.%d.self_attn.q_proj.weight":         {64, 64},
	"model.layers.%d.self_attn.k_proj.weight":         {32, 64},
	"model.layers.%d.self_attn.v_proj.weight":         {32, 64},
	"model.layers.%d.self_attn.o_proj.weight":         {64, 64},
	"model.layers.%d.post_attention_layernorm.weight": {64},
	"model.layers.%d.mlp.gate_proj.weight":            {176, 64},
	"model.layers.%d.mlp.up_proj.weight":              {176, 64},
	"model.layers.%d.mlp.down_proj.weight":            {64, 176},
}

func with(base map[string][]int, extra map[string][]int) map[string][]int {
	out := map[string][]int{}
	for n, s := range base {
		out[n] = s
	}
	for n, s := range extra {
		out[n] = s
	}
	return out
}

// Every family's tensors have Hugging Face's names and PyTorch's shapes:
// Linear weights [out, in], GPT-2's Conv1D weights [in, out].
func TestRandomNamesAndShapes(t *testing.T) {
	llamaTop := map[string][]int{"model.embed_tokens.weight": {300, 64}, "model.norm.weight": {64}}
	tests := []struct {
		arch string
		tied bool
		want map[string][]int
	}{
		{checkpoint.Llama, true, layered(llamaTop, llamaLayer)},
		{checkpoint.Llama, false, layered(with(llamaTop, map[string][]int{"lm_head.weight": {300, 64}}), llamaLayer)},
		{checkpoint.Qwen2, true, layered(llamaTop, with(llamaLayer, map[string][]int{
			"model.layers.%d.self_attn.q_proj.bias": {64},
			"model.layers.%d.self_attn.k_proj.bias": {32},
			"model.layers.%d.self_attn.v_proj.bias": {32},
		}))},
		{checkpoint.Qwen3, true, layered(llamaTop, with(llamaLayer, map[string][]int{
			"model.layers.%d.self_attn.q_norm.weight": {16},
			"model.layers.%d.self_attn.k_norm.weight": {16},
		}))},
		{checkpoint.GPT2, true, layered(map[string][]int{
			"transformer.wte.weight": {300, 64}, "transformer.wpe.weight": {1024, 64},
			"transformer.ln_f.weight": {64}, "transformer.ln_f.bias": {64},
		}, map[string][]int{
			"transformer.h.%d.ln_1.weight": {64}, "transformer.h.%d.ln_1.bias": {64},
			"transformer.h.%d.attn.c_attn.weight": {64, 192}, "transformer.h.%d.attn.c_attn.bias": {192},
			"transformer.h.%d.attn.c_proj.weight": {64, 64}, "transformer.h.%d.attn.c_proj.bias": {64},
			"transformer.h.%d.ln_2.weight": {64}, "transformer.h.%d.ln_2.bias": {64},
			"transformer.h.%d.mlp.c_fc.weight": {64, 256}, "transformer.h.%d.mlp.c_fc.bias": {256},
			"transformer.h.%d.mlp.c_proj.weight": {256, 64}, "transformer.h.%d.mlp.c_proj.bias": {64},
		})},
		{checkpoint.GPTNeoX, false, layered(map[string][]int{
			"gpt_neox.embed_in.weight": {300, 64}, "embed_out.weight": {300, 64},
			"gpt_neox.final_layer_norm.weight": {64}, "gpt_neox.final_layer_norm.bias": {64},
		}, map[string][]int{
			"gpt_neox.layers.%d.input_layernorm.weight": {64}, "gpt_neox.layers.%d.input_layernorm.bias": {64},
			"gpt_neox.layers.%d.post_attention_layernorm.weight": {64}, "gpt_neox.layers.%d.post_attention_layernorm.bias": {64},
			"gpt_neox.layers.%d.attention.query_key_value.weight": {192, 64}, "gpt_neox.layers.%d.attention.query_key_value.bias": {192},
			"gpt_neox.layers.%d.attention.dense.weight": {64, 64}, "gpt_neox.layers.%d.attention.dense.bias": {64},
			"gpt_neox.layers.%d.mlp.dense_h_to_4h.weight": {256, 64}, "gpt_neox.layers.%d.mlp.dense_h_to_4h.bias": {256},
			"gpt_neox.layers.%d.mlp.dense_4h_to_h.weight": {64, 256}, "gpt_neox.layers.%d.mlp.dense_4h_to_h.bias": {64},
		})},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/tied=%v", tt.arch, tt.tied), func(t *testing.T) {
			s := small
			s.TiedEmbeddings = tt.tied
			if tt.arch == checkpoint.GPT2 || tt.arch == checkpoint.GPTNeoX || tt.arch == checkpoint.Qwen2 {
				s.KVHeads = 4
				if tt.arch == checkpoint.Qwen2 {
					tt.want = fixKV(tt.want)
				}
			}
			c, err := checkpoint.Random(tt.arch, s, 7)
			require.NoError(t, err)
			assert.Equal(t, tt.want, shapes(c))
			for n, tn := range c.Tensors {
				assert.Equal(t, n, tn.Name)
				assert.Equal(t, "F32", tn.DType)
			}
		})
	}
}

// fixKV gives the qwen2 table full key/value heads: Qwen2 has heads ×
// head size = hidden, so the table's GQA shape applies with 4 KV heads.
func fixKV(m map[string][]int) map[string][]int {
	out := map[string][]int{}
	for n, s := range m {
		switch {
		case strings.HasSuffix(n, "k_proj.weight") || strings.HasSuffix(n, "v_proj.weight"):
			s = []int{64, 64}
		case strings.HasSuffix(n, "k_proj.bias") || strings.HasSuffix(n, "v_proj.bias"):
			s = []int{64}
		}
		out[n] = s
	}
	return out
}

// A random llama is the ONNX decoder's Llama for the same shape and seed,
// transposed into Hugging Face's layout: the two formats carry the same
// bits.
func TestRandomLlamaIsTheDecodersLlama(t *testing.T) {
	for _, tied := range []bool{true, false} {
		s := small
		s.TiedEmbeddings = tied
		c, err := checkpoint.Random(checkpoint.Llama, s, 42)
		require.NoError(t, err)
		dc := decoder.Config{Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, Intermediate: 176,
			MaxPositions: 2048, TiedEmbeddings: tied, RopeTheta: 10000, NormEps: 1e-5, Seed: 42}
		w := decoder.Weights(decoder.Llama, dc)
		require.Len(t, c.Tensors, len(w))
		for name, dt := range w {
			ct := c.Tensors[name]
			require.NotNil(t, ct, name)
			assert.Equal(t, hfLayout(name, dt, true), ct.Data, name)
		}
		from, err := checkpoint.FromDecoder(checkpoint.Llama, dc, w)
		require.NoError(t, err)
		assert.Equal(t, c, from)
	}
}

// hfLayout is a decoder weight as Hugging Face stores it: a 2-D Linear
// weight transposed from [in, out] to [out, in].
func hfLayout(name string, t *seeded.Tensor, linear bool) []float32 {
	if len(t.Shape) != 2 || !linear || name == "model.embed_tokens.weight" || name == "transformer.wte.weight" || name == "transformer.wpe.weight" {
		return t.Data
	}
	in, out := t.Shape[0], t.Shape[1]
	res := make([]float32, len(t.Data))
	for i := 0; i < in; i++ {
		for o := 0; o < out; o++ {
			res[o*in+i] = t.Data[i*out+o]
		}
	}
	return res
}

// The ONNX test models' GPT-2 turns into a checkpoint whose Conv1D weights
// are its own bits, untransposed, and a random gpt2 draws the same ones.
func TestGPT2FromTheTestModels(t *testing.T) {
	m, err := testmodel.Build(filepath.Join(t.TempDir(), "m"), testmodel.Config{Arch: testmodel.GPT2, Vocab: 300, Seed: 9})
	require.NoError(t, err)
	mc := m.Config
	dc := decoder.Config{Vocab: mc.Vocab, Hidden: mc.Hidden, Layers: mc.Layers, Heads: mc.Heads, KVHeads: mc.KVHeads, HeadDim: mc.HeadDim,
		Intermediate: mc.Intermediate, MaxPositions: mc.MaxPositions, TiedEmbeddings: mc.TiedEmbeddings, RopeTheta: mc.RopeTheta, NormEps: mc.NormEps, Seed: mc.Seed}
	c, err := checkpoint.FromDecoder(checkpoint.GPT2, dc, m.Weights())
	require.NoError(t, err)
	for name, w := range m.Weights() {
		if name == "lm_head.weight" {
			assert.Equal(t, hfLayout(name, w, true), c.Tensors[name].Data, "the untied head is a Linear")
			continue
		}
		assert.Equal(t, w.Data, c.Tensors[name].Data, name)
		assert.Equal(t, w.Shape, c.Tensors[name].Shape, name)
	}
	assert.Equal(t, "gelu", c.Config["activation_function"], "the test models' GPT-2 computes erf GELU")

	r, err := checkpoint.Random(checkpoint.GPT2, checkpoint.Shape{Vocab: 300, TiedEmbeddings: mc.TiedEmbeddings, HiddenAct: "gelu"}, 9)
	require.NoError(t, err)
	assert.Equal(t, c, r)
}

// An untied GPT-2 head is a Linear: [vocab, hidden] in the checkpoint.
func TestUntiedGPT2HeadIsTransposed(t *testing.T) {
	c, err := checkpoint.Random(checkpoint.GPT2, checkpoint.Shape{Vocab: 300, Hidden: 32, Heads: 2}, 3)
	require.NoError(t, err)
	head := c.Tensors["lm_head.weight"]
	require.NotNil(t, head)
	assert.Equal(t, []int{300, 32}, head.Shape)
	drawn := seeded.NewTensor(3, "lm_head.weight", seeded.Linear, 32, 300)
	assert.Equal(t, drawn.Data[1*300+5], head.Data[5*32+1], "head[vocab 5][hidden 1] is the drawn [hidden 1][vocab 5]")
}

// Weights are reproducible per name: the same seed gives the same
// checkpoint, and a deeper model keeps the shallower one's layers.
func TestRandomIsReproducible(t *testing.T) {
	for _, arch := range checkpoint.Archs {
		a, err := checkpoint.Random(arch, checkpoint.Shape{}, 5)
		require.NoError(t, err)
		b, err := checkpoint.Random(arch, checkpoint.Shape{}, 5)
		require.NoError(t, err)
		assert.Equal(t, a, b, arch)
		deep, err := checkpoint.Random(arch, checkpoint.Shape{Layers: 3}, 5)
		require.NoError(t, err)
		other, err := checkpoint.Random(arch, checkpoint.Shape{}, 6)
		require.NoError(t, err)
		for name, tn := range a.Tensors {
			assert.Equal(t, tn.Data, deep.Tensors[name].Data, "%s %s", arch, name)
			assert.NotEqual(t, tn.Data, other.Tensors[name].Data, "%s %s: another seed", arch, name)
		}
	}
}

// config.json reads back as the shape it was drawn with, through JSON as
// a file would carry it.
func TestHparamsOfRandomConfigs(t *testing.T) {
	tests := []struct {
		arch  string
		shape checkpoint.Shape
		want  checkpoint.Hparams
	}{
		{checkpoint.Llama, small, checkpoint.Hparams{ModelType: "llama", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16, ExplicitHeadDim: true,
			Intermediate: 176, MaxPositions: 2048, RotaryDims: 16, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "silu"}},
		{checkpoint.Qwen2, checkpoint.Shape{Vocab: 300, KVHeads: 2, TiedEmbeddings: true}, checkpoint.Hparams{ModelType: "qwen2", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, HeadDim: 16,
			Intermediate: 176, MaxPositions: 2048, RotaryDims: 16, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "silu", Tied: true, AttentionBias: true}},
		{checkpoint.Qwen3, checkpoint.Shape{Vocab: 300, HeadDim: 32, RopeTheta: 1e6, NormEps: 1e-6}, checkpoint.Hparams{ModelType: "qwen3", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 32, ExplicitHeadDim: true,
			Intermediate: 176, MaxPositions: 2048, RotaryDims: 32, RopeTheta: 1e6, NormEps: 1e-6, HiddenAct: "silu"}},
		{checkpoint.GPT2, checkpoint.Shape{Vocab: 300, TiedEmbeddings: true}, checkpoint.Hparams{ModelType: "gpt2", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16,
			Intermediate: 256, MaxPositions: 1024, NormEps: 1e-5, HiddenAct: "gelu_new", Tied: true, AttentionBias: true}},
		{checkpoint.GPTNeoX, checkpoint.Shape{Vocab: 300, SequentialResidual: true}, checkpoint.Hparams{ModelType: "gpt_neox", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16,
			Intermediate: 256, MaxPositions: 2048, RotaryDims: 4, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "gelu", AttentionBias: true}},
		{checkpoint.GPTNeoX, checkpoint.Shape{Vocab: 300, RotaryPct: 0.5}, checkpoint.Hparams{ModelType: "gpt_neox", Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 4, HeadDim: 16,
			Intermediate: 256, MaxPositions: 2048, RotaryDims: 8, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "gelu", ParallelResidual: true, AttentionBias: true}},
		// 30 of 44 dims: rotary_pct must not read back as 29.
		{checkpoint.GPTNeoX, checkpoint.Shape{Vocab: 300, Hidden: 88, Heads: 2, RotaryPct: 0.7}, checkpoint.Hparams{ModelType: "gpt_neox", Vocab: 300, Hidden: 88, Layers: 2, Heads: 2, KVHeads: 2, HeadDim: 44,
			Intermediate: 352, MaxPositions: 2048, RotaryDims: 30, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "gelu", ParallelResidual: true, AttentionBias: true}},
	}
	for _, tt := range tests {
		t.Run(tt.arch, func(t *testing.T) {
			c, err := checkpoint.Random(tt.arch, tt.shape, 1)
			require.NoError(t, err)
			h, err := c.Hparams()
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)

			data, err := json.Marshal(c.Config)
			require.NoError(t, err)
			var cfg map[string]any
			require.NoError(t, json.Unmarshal(data, &cfg))
			h, err = (&checkpoint.Checkpoint{Config: cfg}).Hparams()
			require.NoError(t, err)
			assert.Equal(t, tt.want, h, "through JSON")
		})
	}
}

// A real config.json (SmolLM-135M's) reads with transformers' meaning.
func TestHparamsOfARealConfig(t *testing.T) {
	var cfg map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"model_type": "llama", "hidden_size": 576, "intermediate_size": 1536,
		"max_position_embeddings": 2048, "num_attention_heads": 9, "num_hidden_layers": 30, "num_key_value_heads": 3,
		"rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0, "tie_word_embeddings": true, "vocab_size": 49153}`), &cfg))
	h, err := (&checkpoint.Checkpoint{Config: cfg}).Hparams()
	require.NoError(t, err)
	assert.Equal(t, checkpoint.Hparams{ModelType: "llama", Vocab: 49153, Hidden: 576, Layers: 30, Heads: 9, KVHeads: 3, HeadDim: 64,
		Intermediate: 1536, MaxPositions: 2048, RotaryDims: 64, RopeTheta: 10000, NormEps: 1e-5, Tied: true, HiddenAct: "silu"}, h)
}

func TestHparamsErrors(t *testing.T) {
	tests := []struct {
		cfg  string
		want string
	}{
		{`{}`, "config.json: model_type: want one of llama, qwen2, qwen3, gpt2, gpt_neox, gemma3_text, got <nil>"},
		{`{"model_type": "mamba"}`, `config.json: model_type "mamba" is not a family this converter knows; known: llama, qwen2, qwen3, gpt2, gpt_neox, gemma3_text`},
		{`{"model_type": "llama", "hidden_size": 64.5}`, "config.json: hidden_size: want an integer, got 64.5"},
		{`{"model_type": "llama", "hidden_size": "64"}`, "config.json: hidden_size: want an integer, got 64"},
		{`{"model_type": "gpt2", "n_embd": 64, "n_head": 4, "n_layer": 0}`, "config.json: n_layer: want a positive integer, got 0"},
		{`{"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 5}`, "config.json: num_attention_heads 32 is not a multiple of num_key_value_heads 5"},
		{`{"model_type": "qwen2", "rope_scaling": {"rope_type": "yarn"}}`, "config.json: rope_scaling: want null: scaled RoPE is not converted for qwen2, got map[rope_type:yarn]"},
		{`{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, "rotary_pct": 0.1}`, "config.json: rotary_pct: turns 1 of each head's 16 dims; RoPE needs an even number from 2 to the head size, got 0.1"},
		{`{"model_type": "qwen3", "tie_word_embeddings": "yes"}`, "config.json: tie_word_embeddings: want true or false, got yes"},
		{`{"model_type": "qwen3", "rope_parameters": {"rope_type": "linear", "rope_theta": 500000, "factor": 8}}`,
			"config.json: rope_parameters: linear RoPE scaling is not converted"},
		{`{"model_type": "gpt2", "scale_attn_weights": false}`, "config.json: scale_attn_weights: false is not converted (llama.cpp always scales attention)"},
		{`{"model_type": "gpt2", "scale_attn_by_inverse_layer_idx": true}`, "config.json: scale_attn_by_inverse_layer_idx: true is not converted"},
	}
	for _, tt := range tests {
		var cfg map[string]any
		require.NoError(t, json.Unmarshal([]byte(tt.cfg), &cfg))
		_, err := (&checkpoint.Checkpoint{Config: cfg}).Hparams()
		assert.EqualError(t, err, tt.want, tt.cfg)
	}
}

func TestShapeErrors(t *testing.T) {
	tests := []struct {
		arch  string
		shape checkpoint.Shape
		want  string
	}{
		{"mistral", checkpoint.Shape{}, `checkpoint: architecture "mistral" is not one Random draws; use one of llama, qwen2, qwen3, gpt2, gpt_neox`},
		{checkpoint.Llama, checkpoint.Shape{Heads: 4, KVHeads: 3}, "checkpoint: Heads 4 is not a multiple of KVHeads 3"},
		{checkpoint.GPT2, checkpoint.Shape{KVHeads: 2}, "checkpoint: gpt2 has no grouped-query attention; leave KVHeads 0 or set it to Heads (4)"},
		{checkpoint.Qwen2, checkpoint.Shape{HeadDim: 32}, "checkpoint: qwen2 needs HeadDim×Heads = Hidden (32×4 ≠ 64)"},
		{checkpoint.Llama, checkpoint.Shape{HeadDim: 15}, "checkpoint: HeadDim 15 must be even for RoPE"},
		{checkpoint.GPTNeoX, checkpoint.Shape{RotaryPct: 0.1}, "checkpoint: RotaryPct 0.1 turns 1 dims of a 16-dim head; it must turn an even, positive number"},
		{checkpoint.Llama, checkpoint.Shape{Hidden: -1}, "checkpoint: Vocab, Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate and MaxPositions must be positive (got 512, -1, 2, 4, 4, 0, 0, 2048)"},
	}
	for _, tt := range tests {
		_, err := checkpoint.Random(tt.arch, tt.shape, 1)
		assert.EqualError(t, err, tt.want, tt.arch)
	}
}

func TestFromDecoderChecksTheWeights(t *testing.T) {
	dc := decoder.Config{Vocab: 300, Hidden: 64, Layers: 1, Heads: 4, KVHeads: 4, HeadDim: 16, Intermediate: 176, MaxPositions: 64, TiedEmbeddings: true, RopeTheta: 10000, NormEps: 1e-5, Seed: 1}
	w := decoder.Weights(decoder.Llama, dc)
	delete(w, "model.norm.weight")
	w["model.layers.0.mlp.up_proj.weight"] = seeded.NewTensor(1, "x", seeded.Linear, 176, 64)
	w["model.layers.0.self_attn.rotary.weight"] = seeded.NewTensor(1, "x", seeded.Norm, 8)
	_, err := checkpoint.FromDecoder(checkpoint.Llama, dc, w)
	assert.EqualError(t, err, "checkpoint: decoder weights for llama: model.layers.0.mlp.up_proj.weight has shape [176 64] (11264 values), want [64 176]; "+
		"model.layers.0.self_attn.rotary.weight is not a llama parameter; model.norm.weight is missing")
}

func TestNewTensorChecksTheCount(t *testing.T) {
	_, err := checkpoint.NewTensor("w", []int{2, 3}, make([]float32, 5))
	assert.EqualError(t, err, "tensor w: shape [2 3] holds 6 values, got 5")
	tn, err := checkpoint.NewTensor("w", []int{2, 3}, make([]float32, 6))
	require.NoError(t, err)
	assert.Equal(t, &checkpoint.Tensor{Name: "w", Shape: []int{2, 3}, DType: "F32", Data: make([]float32, 6)}, tn)
}
