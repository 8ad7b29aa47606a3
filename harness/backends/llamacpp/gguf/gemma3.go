package gguf

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
)

// Gemma 3's text model keeps Llama's projection names and adds a norm
// after attention and around the MLP and over each query and key head.
// Its RMSNorm weights are offsets from 1, which the converter turns into
// plain scales (addOne); RoPE turns halves (NeoX style), so nothing is
// permuted; a tied model has no output tensor (llama.cpp falls back to
// the token embedding).
//
// llama.cpp reads less of the configuration than transformers does: it
// slides every layer but each sixth, with a RoPE base of 10000 there, and
// scales queries by head_dim^-½ (by (hidden/heads)^-½ for the 62-layer
// 27B) whatever query_pre_attn_scalar says. gemma3Check refuses a
// checkpoint that differs, which llama.cpp would run otherwise than
// transformers.
func init() {
	archs[checkpoint.Gemma3] = &arch{
		name: "gemma3", head: "lm_head.weight",
		top:         llamaNames.top,
		layerPrefix: llamaNames.layerPrefix,
		layer: map[string]string{
			"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
			"self_attn.o_proj": "attn_output", "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm",
			"post_attention_layernorm": "post_attention_norm", "pre_feedforward_layernorm": "ffn_norm",
			"post_feedforward_layernorm": "post_ffw_norm", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
		},
		skip:     llamaNames.skip,
		expected: gemma3Expected,
		reorder:  addOne,
		check:    gemma3Check,
		hparams:  gemma3Hparams,
	}
}

// gemma3SlidingPeriod is llama.cpp's fixed layer pattern: every sixth
// layer attends globally.
const gemma3SlidingPeriod = 6

// gemma3LocalRopeTheta is the RoPE base llama.cpp gives sliding layers.
const gemma3LocalRopeTheta = 10000

func gemma3Expected(h checkpoint.Hparams) map[string][]int {
	d, q, kv := h.Hidden, h.Heads*h.HeadDim, h.KVHeads*h.HeadDim
	m, layer := llamaTop(h)
	for i := 0; i < h.Layers; i++ {
		l := func(rest string, shape ...int) { layer(i, rest, shape...) }
		for _, norm := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			l(norm+".weight", d)
		}
		l("self_attn.q_proj.weight", q, d)
		l("self_attn.k_proj.weight", kv, d)
		l("self_attn.v_proj.weight", kv, d)
		l("self_attn.o_proj.weight", d, q)
		l("self_attn.q_norm.weight", h.HeadDim)
		l("self_attn.k_norm.weight", h.HeadDim)
		l("mlp.gate_proj.weight", h.Intermediate, d)
		l("mlp.up_proj.weight", h.Intermediate, d)
		l("mlp.down_proj.weight", d, h.Intermediate)
	}
	return m
}

// addOne turns a Gemma RMSNorm weight w, which scales by 1 + w, into the
// plain scale llama.cpp's RMSNorm multiplies by.
func addOne(_ checkpoint.Hparams, name string, t *checkpoint.Tensor) *checkpoint.Tensor {
	if !strings.HasSuffix(name, "norm.weight") {
		return t
	}
	out := make([]float32, len(t.Data))
	for i, v := range t.Data {
		out[i] = v + 1
	}
	return &checkpoint.Tensor{Name: t.Name, Shape: t.Shape, DType: t.DType, Data: out}
}

// gemma3AttentionDim is the size whose inverse square root llama.cpp
// scales queries by.
func gemma3AttentionDim(h checkpoint.Hparams) int {
	if h.Layers == 62 { // llama.cpp's 27B
		return h.Hidden / h.Heads
	}
	return h.HeadDim
}

func gemma3Sliding(h checkpoint.Hparams) bool { return slices.Contains(h.SlidingLayers, true) }

func gemma3Check(h checkpoint.Hparams) error {
	if h.AttentionBias {
		return fmt.Errorf("attention_bias: true is not converted (llama.cpp's gemma3 has no attention biases)")
	}
	if dim := gemma3AttentionDim(h); h.QueryPreAttnScalar != float64(dim) {
		return fmt.Errorf("query_pre_attn_scalar is %g, but llama.cpp scales a %d-layer Gemma 3's queries by %d^-½ whatever it says; only query_pre_attn_scalar %d converts", h.QueryPreAttnScalar, h.Layers, dim, dim)
	}
	if !gemma3Sliding(h) {
		return nil // no sliding_window written: llama.cpp attends globally everywhere
	}
	for i, s := range h.SlidingLayers {
		if want := (i+1)%gemma3SlidingPeriod != 0; s != want {
			return fmt.Errorf("layer_types: layer %d is %s, but llama.cpp slides every layer but each %dth (layers %d, %d, … attend globally); only that pattern converts", i, layerType(s), gemma3SlidingPeriod, gemma3SlidingPeriod-1, 2*gemma3SlidingPeriod-1)
		}
	}
	if h.LocalRopeTheta != gemma3LocalRopeTheta {
		return fmt.Errorf("rope_local_base_freq is %g, but llama.cpp gives sliding layers a RoPE base of %d; only that converts", h.LocalRopeTheta, gemma3LocalRopeTheta)
	}
	return nil
}

func layerType(sliding bool) string {
	if sliding {
		return "sliding_attention"
	}
	return "full_attention"
}

// gemma3Hparams are the converter's Gemma3Model keys: head sizes always,
// the window only when a layer slides, and linear RoPE scaling (which
// llama.cpp, like transformers, applies to the global layers alone).
func gemma3Hparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	h.ExplicitHeadDim = true
	attentionHparams(h, b, key)
	if gemma3Sliding(h) {
		b.Set(key("attention.sliding_window"), uint32(h.SlidingWindow))
		b.Set(key("rope.freq_base_swa"), float32(h.LocalRopeTheta))
	}
	linearRope(h, b, key)
}
