package decoder

// Qwen2 is a Llama with biases on the query, key and value projections
// (always: its config.json has no attention_bias) and none on the output
// or the MLP. Qwen2.5 is this family too.
var Qwen2 Arch = qwen2{llamaFamily{modelType: "qwen2", class: "Qwen2ForCausalLM"}}

type qwen2 struct{ llamaFamily }

// ConfigFields writes Qwen2's config.json, which names a head_dim only
// when heads × head size is not the hidden size.
func (a qwen2) ConfigFields(c Config, cfg map[string]any) {
	a.llamaFamily.ConfigFields(c, cfg)
	delete(cfg, "attention_bias")
	delete(cfg, "mlp_bias")
	if c.HeadDim*c.Heads == c.Hidden {
		delete(cfg, "head_dim")
	}
	noSlidingWindow(c, cfg)
}

// noSlidingWindow writes the sliding-window fields of Qwen's config.json
// as a model without one has them.
func noSlidingWindow(c Config, cfg map[string]any) {
	cfg["use_sliding_window"] = false
	cfg["sliding_window"] = nil
	cfg["max_window_layers"] = c.Layers
}
