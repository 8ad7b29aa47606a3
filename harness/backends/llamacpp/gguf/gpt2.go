package gguf

import (
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
)

// GPT-2's Conv1D stores its projections [in, out]; GGUF stores them as a
// Linear would, [out, in].
func init() {
	archs[checkpoint.GPT2] = &arch{
		name: "gpt2", head: "lm_head.weight",
		top: map[string]string{"transformer.wte": "token_embd", "transformer.wpe": "position_embd",
			"transformer.ln_f": "output_norm", "lm_head": "output"},
		layerPrefix: "transformer.h.",
		layer: map[string]string{"ln_1": "attn_norm", "attn.c_attn": "attn_qkv", "attn.c_proj": "attn_output",
			"ln_2": "ffn_norm", "mlp.c_fc": "ffn_up", "mlp.c_proj": "ffn_down"},
		skip:     []string{".attn.bias", ".attn.masked_bias"},
		expected: gpt2Expected,
		reorder:  transposeConv1D,
		hparams:  gpt2Hparams,
		check:    fullWidthHeads,
	}
}

func gpt2Expected(h checkpoint.Hparams) map[string][]int {
	d := h.Hidden
	m := map[string][]int{"transformer.wte.weight": {h.Vocab, d}, "transformer.wpe.weight": {h.MaxPositions, d},
		"transformer.ln_f.weight": {d}, "transformer.ln_f.bias": {d}}
	if !h.Tied {
		m["lm_head.weight"] = []int{h.Vocab, d}
	}
	for i := 0; i < h.Layers; i++ {
		l := func(rest string, shape ...int) { m[fmt.Sprintf("transformer.h.%d.%s", i, rest)] = shape }
		l("ln_1.weight", d)
		l("ln_1.bias", d)
		l("attn.c_attn.weight", d, 3*d)
		l("attn.c_attn.bias", 3*d)
		l("attn.c_proj.weight", d, d)
		l("attn.c_proj.bias", d)
		l("ln_2.weight", d)
		l("ln_2.bias", d)
		l("mlp.c_fc.weight", d, h.Intermediate)
		l("mlp.c_fc.bias", h.Intermediate)
		l("mlp.c_proj.weight", h.Intermediate, d)
		l("mlp.c_proj.bias", d)
	}
	return m
}

// transposeConv1D turns a layer's [in, out] Conv1D weight into [out, in].
func transposeConv1D(_ checkpoint.Hparams, name string, t *checkpoint.Tensor) *checkpoint.Tensor {
	if !strings.HasPrefix(name, "transformer.h.") || !strings.HasSuffix(name, ".weight") || len(t.Shape) != 2 {
		return t
	}
	in, out := t.Shape[0], t.Shape[1]
	data := make([]float32, len(t.Data))
	for i := 0; i < in; i++ {
		for o := 0; o < out; o++ {
			data[o*in+i] = t.Data[i*out+o]
		}
	}
	return &checkpoint.Tensor{Name: t.Name, Shape: []int{out, in}, DType: t.DType, Data: data}
}

// gpt2Hparams are the converter's GPT2Model keys. The context length is
// the position table's size, which llama.cpp requires of position_embd;
// the feed-forward length is n_inner when set (the converter writes
// 4·n_embd, the default, regardless).
func gpt2Hparams(h checkpoint.Hparams, b *Builder, key func(string) string) {
	b.Set(key("block_count"), uint32(h.Layers))
	b.Set(key("context_length"), uint32(h.MaxPositions))
	b.Set(key("embedding_length"), uint32(h.Hidden))
	b.Set(key("feed_forward_length"), uint32(h.Intermediate))
	b.Set(key("attention.head_count"), uint32(h.Heads))
	b.Set(key("attention.layer_norm_epsilon"), float32(h.NormEps))
}
