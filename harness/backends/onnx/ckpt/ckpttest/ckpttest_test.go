package ckpttest_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// A gemma3_text fixture, the family checkpoint.Random does not draw, has
// the names and PyTorch shapes of transformers' Gemma3ForCausalLM (every
// nn.Linear weight [out, in]), its values are the decoder's draws for
// each name moved there, and WriteExport's weights move them back. The
// shape has no square projection, so a weight laid out the wrong way
// round cannot pass.
func TestGemma3Layout(t *testing.T) {
	const seed = 11
	f := ckpttest.Fixture{Arch: decoder.Gemma3.ModelType(), Seed: seed,
		Shape: checkpoint.Shape{Vocab: 300, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 1, HeadDim: 32, Intermediate: 96}}
	ck, err := f.Checkpoint()
	require.NoError(t, err)

	want := map[string][]int{"model.embed_tokens.weight": {300, 64}, "model.norm.weight": {64}, "lm_head.weight": {300, 64}}
	for i := range 2 {
		for name, shape := range map[string][]int{
			"input_layernorm.weight": {64}, "post_attention_layernorm.weight": {64},
			"pre_feedforward_layernorm.weight": {64}, "post_feedforward_layernorm.weight": {64},
			"self_attn.q_proj.weight": {128, 64}, "self_attn.k_proj.weight": {32, 64},
			"self_attn.v_proj.weight": {32, 64}, "self_attn.o_proj.weight": {64, 128},
			"self_attn.q_norm.weight": {32}, "self_attn.k_norm.weight": {32},
			"mlp.gate_proj.weight": {96, 64}, "mlp.up_proj.weight": {96, 64}, "mlp.down_proj.weight": {64, 96},
		} {
			want[fmt.Sprintf("model.layers.%d.%s", i, name)] = shape
		}
	}
	got := map[string][]int{}
	for name, tn := range ck.Tensors {
		got[name] = tn.Shape
	}
	assert.Equal(t, want, got)

	// q_proj[out 5][in 1] is the decoder's [in 1][out 5]; a norm and the
	// embedding are the draws as they are.
	const q = "model.layers.0.self_attn.q_proj.weight"
	drawn := seeded.NewTensor(seed, q, seeded.Linear, 64, 128)
	assert.Equal(t, drawn.Data[1*128+5], ck.Tensors[q].Data[5*64+1])
	const norm = "model.layers.1.pre_feedforward_layernorm.weight"
	assert.Equal(t, seeded.NewTensor(seed, norm, seeded.Bias, 64).Data, ck.Tensors[norm].Data)
	const embed = "model.embed_tokens.weight"
	assert.Equal(t, seeded.NewTensor(seed, embed, seeded.Embed, 300, 64).Data, ck.Tensors[embed].Data)

	back := ck.WeightsIn(decoder.Gemma3)
	assert.Equal(t, []int{64, 128}, back[q].Shape)
	assert.Equal(t, drawn.Data, back[q].Data)
}
