package decoder

// Qwen3 is a Llama with an RMSNorm over each query and key head before
// RoPE (q_norm, k_norm), a head size of its own (head_dim, 128 by
// default), and attention_bias on all four attention projections.
var Qwen3 Arch = qwen3{llamaFamily{modelType: "qwen3", class: "Qwen3ForCausalLM", outBias: true, qkNorm: true}}

type qwen3 struct{ llamaFamily }

func (a qwen3) ConfigFields(c Config, cfg map[string]any) {
	a.llamaFamily.ConfigFields(c, cfg)
	delete(cfg, "mlp_bias")
	noSlidingWindow(c, cfg)
}
