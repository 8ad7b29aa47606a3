package testmodel

import (
	"fmt"

	"github.com/feather-eval/feather/harness/onnx/seeded"
)

// tensor is a seeded weight; the reference forward pass reads it.
type tensor = seeded.Tensor

// Parameter names follow Hugging Face's, so a reader can map them.
func layerName(i int, rest string) string {
	return fmt.Sprintf("model.layers.%d.%s", i, rest)
}

func gpt2Name(i int, rest string) string {
	return fmt.Sprintf("transformer.h.%d.%s", i, rest)
}

// initWeights draws every parameter of c.
func initWeights(c Config) map[string]*tensor {
	w := map[string]*tensor{}
	add := func(name string, init seeded.Init, shape ...int) {
		w[name] = seeded.NewTensor(c.Seed, name, init, shape...)
	}
	d, q, kv := c.Hidden, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	switch c.Arch {
	case Llama:
		add("model.embed_tokens.weight", seeded.Embed, c.Vocab, d)
		for i := 0; i < c.Layers; i++ {
			add(layerName(i, "input_layernorm.weight"), seeded.Norm, d)
			add(layerName(i, "self_attn.q_proj.weight"), seeded.Linear, d, q)
			add(layerName(i, "self_attn.k_proj.weight"), seeded.Linear, d, kv)
			add(layerName(i, "self_attn.v_proj.weight"), seeded.Linear, d, kv)
			add(layerName(i, "self_attn.o_proj.weight"), seeded.Linear, q, d)
			add(layerName(i, "post_attention_layernorm.weight"), seeded.Norm, d)
			add(layerName(i, "mlp.gate_proj.weight"), seeded.Linear, d, c.Intermediate)
			add(layerName(i, "mlp.up_proj.weight"), seeded.Linear, d, c.Intermediate)
			add(layerName(i, "mlp.down_proj.weight"), seeded.Linear, c.Intermediate, d)
		}
		add("model.norm.weight", seeded.Norm, d)
	case GPT2:
		add("transformer.wte.weight", seeded.Embed, c.Vocab, d)
		add("transformer.wpe.weight", seeded.Embed, c.MaxPositions, d)
		for i := 0; i < c.Layers; i++ {
			add(gpt2Name(i, "ln_1.weight"), seeded.Norm, d)
			add(gpt2Name(i, "ln_1.bias"), seeded.Bias, d)
			add(gpt2Name(i, "attn.c_attn.weight"), seeded.Linear, d, 3*d)
			add(gpt2Name(i, "attn.c_attn.bias"), seeded.Bias, 3*d)
			add(gpt2Name(i, "attn.c_proj.weight"), seeded.Linear, d, d)
			add(gpt2Name(i, "attn.c_proj.bias"), seeded.Bias, d)
			add(gpt2Name(i, "ln_2.weight"), seeded.Norm, d)
			add(gpt2Name(i, "ln_2.bias"), seeded.Bias, d)
			add(gpt2Name(i, "mlp.c_fc.weight"), seeded.Linear, d, c.Intermediate)
			add(gpt2Name(i, "mlp.c_fc.bias"), seeded.Bias, c.Intermediate)
			add(gpt2Name(i, "mlp.c_proj.weight"), seeded.Linear, c.Intermediate, d)
			add(gpt2Name(i, "mlp.c_proj.bias"), seeded.Bias, d)
		}
		add("transformer.ln_f.weight", seeded.Norm, d)
		add("transformer.ln_f.bias", seeded.Bias, d)
	}
	if !c.TiedEmbeddings {
		add("lm_head.weight", seeded.Linear, d, c.Vocab)
	}
	return w
}

// embedName is the token embedding, which a tied LM head reuses.
func embedName(a Arch) string {
	if a == GPT2 {
		return "transformer.wte.weight"
	}
	return "model.embed_tokens.weight"
}
