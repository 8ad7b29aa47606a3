package gguf

import (
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
)

// GPT-NeoX fuses the query, key and value projections with their outputs
// interleaved head by head (head 0's query, key, value, then head 1's…);
// llama.cpp reads all queries, then all keys, then all values
// (reorderQKV). llama.cpp needs an output tensor even for a tied model.
func init() {
	archs[checkpoint.GPTNeoX] = &arch{
		name: "gptneox", head: "embed_out.weight", headRequired: true,
		top:         map[string]string{"gpt_neox.embed_in": "token_embd", "gpt_neox.final_layer_norm": "output_norm", "embed_out": "output"},
		layerPrefix: "gpt_neox.layers.",
		layer: map[string]string{"input_layernorm": "attn_norm", "attention.query_key_value": "attn_qkv", "attention.dense": "attn_output",
			"post_attention_layernorm": "ffn_norm", "mlp.dense_h_to_4h": "ffn_up", "mlp.dense_4h_to_h": "ffn_down"},
		skip:     []string{".attention.bias", ".attention.masked_bias", ".rotary_emb.inv_freq"},
		expected: neoxExpected,
		reorder:  reorderQKV,
		hparams:  neoxHparams,
		check:    neoxCheck,
	}
}

func neoxExpected(h checkpoint.Hparams) map[string][]int {
	d := h.Hidden
	m := map[string][]int{"gpt_neox.embed_in.weight": {h.Vocab, d}, "gpt_neox.final_layer_norm.weight": {d}, "gpt_neox.final_layer_norm.bias": {d}}
	if !h.Tied {
		m["embed_out.weight"] = []int{h.Vocab, d}
	}
	for i := 0; i < h.Layers; i++ {
		l := func(rest string, shape ...int) { m[fmt.Sprintf("gpt_neox.layers.%d.%s", i, rest)] = shape }
		l("input_layernorm.weight", d)
		l("input_layernorm.bias", d)
		l("post_attention_layernorm.weight", d)
		l("post_attention_layernorm.bias", d)
		l("attention.query_key_value.weight", 3*d, d)
		l("attention.dense.weight", d, d)
		l("mlp.dense_h_to_4h.weight", h.Intermediate, d)
		l("mlp.dense_h_to_4h.bias", h.Intermediate)
		l("mlp.dense_4h_to_h.weight", d, h.Intermediate)
		l("mlp.dense_4h_to_h.bias", d)
		if h.AttentionBias {
			l("attention.query_key_value.bias", 3*d)
			l("attention.dense.bias", d)
		}
	}
	return m
}

// neoxCheck: llama.cpp's gptneox needs the attention biases and heads
// that fill the hidden size.
func neoxCheck(h checkpoint.Hparams) error {
	if !h.AttentionBias {
		return fmt.Errorf("llama.cpp's gptneox needs the attention biases; config.json sets attention_bias false")
	}
	return fullWidthHeads(h)
}

// reorderQKV turns the fused projection's rows (weight or bias) from
// [head][q|k|v][dim] into [q|k|v][head][dim].
func reorderQKV(h checkpoint.Hparams, name string, t *checkpoint.Tensor) *checkpoint.Tensor {
	if !strings.Contains(name, ".attention.query_key_value.") {
		return t
	}
	cols := len(t.Data) / t.Shape[0]
	size := h.HeadDim * cols
	data := make([]float32, len(t.Data))
	for hd := 0; hd < h.Heads; hd++ {
		for part := 0; part < 3; part++ {
			src := (hd*3 + part) * size
			dst := (part*h.Heads + hd) * size
			copy(data[dst:dst+size], t.Data[src:src+size])
		}
	}
	return &checkpoint.Tensor{Name: t.Name, Shape: t.Shape, DType: t.DType, Data: data}
}

// neoxHparams are the converter's GPTNeoXModel keys, and the RoPE base,
// which the converter leaves to llama.cpp's default (10000) but a model
// may change (rotary_emb_base).
func neoxHparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	b.Set(key("context_length"), uint32(h.MaxPositions))
	b.Set(key("embedding_length"), uint32(h.Hidden))
	b.Set(key("block_count"), uint32(h.Layers))
	b.Set(key("feed_forward_length"), uint32(h.Intermediate))
	b.Set(key("rope.dimension_count"), uint32(h.RotaryDims))
	b.Set(key("attention.head_count"), uint32(h.Heads))
	b.Set(key("use_parallel_residual"), h.ParallelResidual)
	b.Set(key("attention.layer_norm_epsilon"), float32(h.NormEps))
	b.Set(key("rope.freq_base"), float32(h.RopeTheta))
}
