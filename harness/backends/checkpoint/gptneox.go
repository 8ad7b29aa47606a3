package checkpoint

import (
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// gptNeoX is Pythia's GPT-NeoX: LayerNorm with biases, partial rotary
// embeddings, a fused query_key_value Linear whose 3·hidden outputs run
// head by head (each head's query, key, value), biases everywhere, and
// attention and MLP side by side on the same input (parallel residual).
type gptNeoX struct{}

func neoxName(i int, rest string) string { return fmt.Sprintf("gpt_neox.layers.%d.%s", i, rest) }

func (gptNeoX) params(s Shape, add func(string, seeded.Init, ...int)) {
	d := s.Hidden
	add("gpt_neox.embed_in.weight", seeded.Embed, s.Vocab, d)
	for i := 0; i < s.Layers; i++ {
		add(neoxName(i, "input_layernorm.weight"), seeded.Norm, d)
		add(neoxName(i, "input_layernorm.bias"), seeded.Bias, d)
		add(neoxName(i, "post_attention_layernorm.weight"), seeded.Norm, d)
		add(neoxName(i, "post_attention_layernorm.bias"), seeded.Bias, d)
		add(neoxName(i, "attention.query_key_value.weight"), seeded.Linear, d, 3*d)
		add(neoxName(i, "attention.query_key_value.bias"), seeded.Bias, 3*d)
		add(neoxName(i, "attention.dense.weight"), seeded.Linear, d, d)
		add(neoxName(i, "attention.dense.bias"), seeded.Bias, d)
		add(neoxName(i, "mlp.dense_h_to_4h.weight"), seeded.Linear, d, s.Intermediate)
		add(neoxName(i, "mlp.dense_h_to_4h.bias"), seeded.Bias, s.Intermediate)
		add(neoxName(i, "mlp.dense_4h_to_h.weight"), seeded.Linear, s.Intermediate, d)
		add(neoxName(i, "mlp.dense_4h_to_h.bias"), seeded.Bias, d)
	}
	add("gpt_neox.final_layer_norm.weight", seeded.Norm, d)
	add("gpt_neox.final_layer_norm.bias", seeded.Bias, d)
}

func (gptNeoX) head() string { return "embed_out.weight" }

func (gptNeoX) linear(name string) bool {
	return name == "embed_out.weight" || (strings.HasSuffix(name, ".weight") && !strings.Contains(name, "layernorm") && strings.Contains(name, ".layers."))
}

func (gptNeoX) config(s Shape, cfg map[string]any) {
	cfg["architectures"] = []string{"GPTNeoXForCausalLM"}
	cfg["model_type"] = GPTNeoX
	cfg["hidden_size"] = s.Hidden
	cfg["intermediate_size"] = s.Intermediate
	cfg["num_hidden_layers"] = s.Layers
	cfg["num_attention_heads"] = s.Heads
	cfg["max_position_embeddings"] = s.MaxPositions
	cfg["rotary_pct"] = s.RotaryPct
	cfg["rotary_emb_base"] = s.RopeTheta
	cfg["layer_norm_eps"] = s.NormEps
	cfg["use_parallel_residual"] = !s.SequentialResidual
	cfg["hidden_act"] = s.HiddenAct
	cfg["attention_bias"] = true
	cfg["attention_dropout"] = 0.0
	cfg["hidden_dropout"] = 0.0
}
