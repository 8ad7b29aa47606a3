package checkpoint

import (
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// gpt2 has learned positions, LayerNorm with biases and Conv1D
// projections, which Hugging Face stores [in, out] already: only an
// untied LM head is a Linear. The names, draws and shapes are the ONNX
// test models' GPT-2.
type gpt2 struct{}

func gpt2Name(i int, rest string) string { return fmt.Sprintf("transformer.h.%d.%s", i, rest) }

func (gpt2) params(s Shape, add func(string, seeded.Init, ...int)) {
	d := s.Hidden
	add("transformer.wte.weight", seeded.Embed, s.Vocab, d)
	add("transformer.wpe.weight", seeded.Embed, s.MaxPositions, d)
	for i := 0; i < s.Layers; i++ {
		add(gpt2Name(i, "ln_1.weight"), seeded.Norm, d)
		add(gpt2Name(i, "ln_1.bias"), seeded.Bias, d)
		add(gpt2Name(i, "attn.c_attn.weight"), seeded.Linear, d, 3*d)
		add(gpt2Name(i, "attn.c_attn.bias"), seeded.Bias, 3*d)
		add(gpt2Name(i, "attn.c_proj.weight"), seeded.Linear, d, d)
		add(gpt2Name(i, "attn.c_proj.bias"), seeded.Bias, d)
		add(gpt2Name(i, "ln_2.weight"), seeded.Norm, d)
		add(gpt2Name(i, "ln_2.bias"), seeded.Bias, d)
		add(gpt2Name(i, "mlp.c_fc.weight"), seeded.Linear, d, s.Intermediate)
		add(gpt2Name(i, "mlp.c_fc.bias"), seeded.Bias, s.Intermediate)
		add(gpt2Name(i, "mlp.c_proj.weight"), seeded.Linear, s.Intermediate, d)
		add(gpt2Name(i, "mlp.c_proj.bias"), seeded.Bias, d)
	}
	add("transformer.ln_f.weight", seeded.Norm, d)
	add("transformer.ln_f.bias", seeded.Bias, d)
}

func (gpt2) head() string            { return "lm_head.weight" }
func (gpt2) linear(name string) bool { return name == "lm_head.weight" }

// config uses GPT-2's own names (n_embd, n_layer, …).
func (gpt2) config(s Shape, cfg map[string]any) {
	cfg["architectures"] = []string{"GPT2LMHeadModel"}
	cfg["model_type"] = GPT2
	cfg["n_embd"] = s.Hidden
	cfg["n_layer"] = s.Layers
	cfg["n_head"] = s.Heads
	cfg["n_inner"] = s.Intermediate
	cfg["n_positions"] = s.MaxPositions
	cfg["n_ctx"] = s.MaxPositions
	cfg["activation_function"] = s.HiddenAct
	cfg["layer_norm_epsilon"] = s.NormEps
	cfg["resid_pdrop"] = 0.0
	cfg["embd_pdrop"] = 0.0
	cfg["attn_pdrop"] = 0.0
}
