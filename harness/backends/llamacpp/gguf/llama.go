package gguf

import (
	"fmt"
	"math"
	"strings"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
)

// Llama, Qwen2 and Qwen3 share Hugging Face's Llama names. Llama's RoPE
// in llama.cpp turns adjacent pairs of a head's values where Hugging Face
// turns its two halves, so the converter permutes the query and key rows
// of a llama (permuteHeads); Qwen runs with NeoX-style RoPE, which turns
// halves, and keeps them.
var llamaNames = arch{
	head:        "lm_head.weight",
	top:         map[string]string{"model.embed_tokens": "token_embd", "model.norm": "output_norm", "lm_head": "output"},
	layerPrefix: "model.layers.",
	layer: map[string]string{
		"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
		"self_attn.o_proj": "attn_output", "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm",
		"post_attention_layernorm": "ffn_norm", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
	},
	skip: []string{".rotary_emb.inv_freq"},
}

func init() {
	l := llamaNames
	l.name, l.expected, l.reorder, l.hparams, l.extra = "llama", llamaExpected, permuteQK, llamaHparams, llama3RopeFreqs
	archs[checkpoint.Llama] = &l
	q2 := llamaNames
	q2.name, q2.expected, q2.hparams, q2.check = "qwen2", llamaExpected, qwenHparams, fullWidthHeads
	archs[checkpoint.Qwen2] = &q2
	q3 := llamaNames
	q3.name, q3.expected, q3.hparams = "qwen3", llamaExpected, qwenHparams
	archs[checkpoint.Qwen3] = &q3
}

// llamaTop is the tensors outside the layers of a checkpoint with
// Llama's names: the embedding, the final norm and an untied head; layer
// declares the tensors of layer i with their shapes.
func llamaTop(h checkpoint.Hparams) (m map[string][]int, layer func(i int, rest string, shape ...int)) {
	m = map[string][]int{"model.embed_tokens.weight": {h.Vocab, h.Hidden}, "model.norm.weight": {h.Hidden}}
	if !h.Tied {
		m["lm_head.weight"] = []int{h.Vocab, h.Hidden}
	}
	return m, func(i int, rest string, shape ...int) { m[fmt.Sprintf("model.layers.%d.%s", i, rest)] = shape }
}

func llamaExpected(h checkpoint.Hparams) map[string][]int {
	d, q, kv := h.Hidden, h.Heads*h.HeadDim, h.KVHeads*h.HeadDim
	m, layer := llamaTop(h)
	for i := 0; i < h.Layers; i++ {
		l := func(rest string, shape ...int) { layer(i, rest, shape...) }
		l("input_layernorm.weight", d)
		l("self_attn.q_proj.weight", q, d)
		l("self_attn.k_proj.weight", kv, d)
		l("self_attn.v_proj.weight", kv, d)
		l("self_attn.o_proj.weight", d, q)
		l("post_attention_layernorm.weight", d)
		l("mlp.gate_proj.weight", h.Intermediate, d)
		l("mlp.up_proj.weight", h.Intermediate, d)
		l("mlp.down_proj.weight", d, h.Intermediate)
		if h.AttentionBias {
			l("self_attn.q_proj.bias", q)
			l("self_attn.k_proj.bias", kv)
			l("self_attn.v_proj.bias", kv)
			if h.ModelType != checkpoint.Qwen2 { // Qwen2's output projection has none
				l("self_attn.o_proj.bias", d)
			}
		}
		if h.ModelType == checkpoint.Qwen3 {
			l("self_attn.q_norm.weight", h.HeadDim)
			l("self_attn.k_norm.weight", h.HeadDim)
		}
	}
	return m
}

// permuteQK permutes a llama's query and key projections (weights and
// biases) from Hugging Face's rotate-half order to llama.cpp's
// adjacent-pair order.
func permuteQK(h checkpoint.Hparams, name string, t *checkpoint.Tensor) *checkpoint.Tensor {
	heads := 0
	switch stem, _, _ := cutExt(name); {
	case strings.HasSuffix(stem, ".self_attn.q_proj"):
		heads = h.Heads
	case strings.HasSuffix(stem, ".self_attn.k_proj"):
		heads = h.KVHeads
	default:
		return t
	}
	out := *t
	out.Data = PermuteHeads(t.Data, t.Shape[0], heads)
	return &out
}

// PermuteHeads reorders the rows of a [rows, …] tensor (data row-major)
// split into heads equal heads: within each head, row j of the first half
// and row j of the second half become rows 2j and 2j+1, as
// convert_hf_to_gguf.py's LlamaModel.permute does.
func PermuteHeads(data []float32, rows, heads int) []float32 {
	out := make([]float32, len(data))
	cols := len(data) / rows
	size := rows / heads
	half := size / 2
	for hd := 0; hd < heads; hd++ {
		for part := 0; part < 2; part++ {
			for j := 0; j < half; j++ {
				src := hd*size + part*half + j
				dst := hd*size + 2*j + part
				copy(out[dst*cols:(dst+1)*cols], data[src*cols:(src+1)*cols])
			}
		}
	}
	return out
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// attentionHparams are the keys every Llama-named family writes (the
// converter's TextModel.set_gguf_parameters).
func attentionHparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	b.Set(key("block_count"), uint32(h.Layers))
	b.Set(key("context_length"), uint32(h.MaxPositions))
	b.Set(key("embedding_length"), uint32(h.Hidden))
	b.Set(key("feed_forward_length"), uint32(h.Intermediate))
	b.Set(key("attention.head_count"), uint32(h.Heads))
	b.Set(key("attention.head_count_kv"), uint32(h.KVHeads))
	b.Set(key("rope.freq_base"), float32(h.RopeTheta))
	b.Set(key("attention.layer_norm_rms_epsilon"), float32(h.NormEps))
	if h.ExplicitHeadDim {
		b.Set(key("attention.key_length"), uint32(h.HeadDim))
		b.Set(key("attention.value_length"), uint32(h.HeadDim))
	}
}

// llamaHparams adds llama's vocabulary size and rotary dimension count
// (the converter's LlamaModel).
func llamaHparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	attentionHparams(h, b, key)
	b.Set(key("vocab_size"), uint32(h.Vocab))
	b.Set(key("rope.dimension_count"), uint32(h.HeadDim))
	linearRope(h, b, key)
}

// linearRope writes linear RoPE scaling, which llama.cpp applies as a
// frequency scale of 1/factor.
func linearRope(h checkpoint.Hparams, b *Builder, key func(string) string) {
	if s := h.RopeScaling; s != nil && s.Type == "linear" {
		b.Set(key("rope.scaling.type"), "linear")
		b.Set(key("rope.scaling.factor"), float32(s.Factor))
	}
}

// llama3RopeFreqs is llama3-scaled RoPE as llama.cpp takes it: a
// rope_freqs tensor of one divisor per rotated pair, by which llama.cpp
// divides that pair's angle. Hugging Face divides the inverse frequency
// of a pair whose wavelength exceeds original_max_position_embeddings /
// low_freq_factor by factor, keeps those shorter than
// original_max_position_embeddings / high_freq_factor, and between the
// two blends the two by smooth = (original / wavelength − low) / (high −
// low), so the divisor is 1 / ((1 − smooth) / factor + smooth).
// original_max_position_embeddings is read from rope_scaling, where
// transformers reads it (llama.cpp's converter reads the top level and
// defaults to 8192, which is what Llama 3's checkpoints hold anyway).
func llama3RopeFreqs(h checkpoint.Hparams) []*checkpoint.Tensor {
	s := h.RopeScaling
	if s == nil || s.Type != "llama3" {
		return nil
	}
	original := float64(s.OriginalMaxPositions)
	lowWavelen, highWavelen := original/s.LowFreqFactor, original/s.HighFreqFactor
	divisors := make([]float32, h.HeadDim/2)
	for i := range divisors {
		// the inverse frequency in float32, as torch computes it
		inv := float64(float32(1 / math.Pow(h.RopeTheta, float64(2*i)/float64(h.HeadDim))))
		wavelen := 2 * math.Pi / inv
		switch {
		case wavelen < highWavelen:
			divisors[i] = 1
		case wavelen > lowWavelen:
			divisors[i] = float32(s.Factor)
		default:
			smooth := (original/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
			divisors[i] = float32(1 / ((1-smooth)/s.Factor + smooth))
		}
	}
	return []*checkpoint.Tensor{{Name: "rope_freqs.weight", Shape: []int{len(divisors)}, DType: "F32", Data: divisors}}
}

// fullWidthHeads: llama.cpp's qwen2, gpt2 and gptneox project queries to
// the hidden size.
func fullWidthHeads(h checkpoint.Hparams) error {
	if h.Heads*h.HeadDim != h.Hidden {
		return fmt.Errorf("llama.cpp needs heads × head size = hidden size for %s (%d × %d ≠ %d)", h.ModelType, h.Heads, h.HeadDim, h.Hidden)
	}
	return nil
}

func qwenHparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	attentionHparams(h, b, key)
}
