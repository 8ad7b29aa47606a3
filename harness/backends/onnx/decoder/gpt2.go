package decoder

import (
	"fmt"
	"math"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// GPT2 has learned positions, LayerNorm, biases everywhere, multi-head
// attention with the query, key and value in one projection, and an MLP
// of activation_function (tanh GELU, gelu_new, by default). Its
// projections are Conv1D layers, which Hugging Face stores [in, out]: the
// decoder's layout already, so only an untied LM head is a TorchLinear.
var GPT2 Arch = gpt2{}

type gpt2 struct{}

func gpt2Name(i int, rest string) string {
	return fmt.Sprintf("transformer.h.%d.%s", i, rest)
}

func (gpt2) ModelType() string            { return "gpt2" }
func (gpt2) EmbedName() string            { return "transformer.wte.weight" }
func (gpt2) HeadName() string             { return lmHead }
func (gpt2) TorchLinear(name string) bool { return name == lmHead }

func (gpt2) Params(c Config, add func(name string, init seeded.Init, shape ...int)) {
	d := c.Hidden
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

// ConfigFields: GPT-2's config.json uses its own names (n_embd, n_layer,
// …); transformers maps hidden_size and friends onto them.
func (a gpt2) ConfigFields(c Config, cfg map[string]any) {
	cfg["architectures"] = []string{"GPT2LMHeadModel"}
	cfg["model_type"] = "gpt2"
	cfg["n_embd"] = c.Hidden
	cfg["n_layer"] = c.Layers
	cfg["n_head"] = c.Heads
	cfg["n_inner"] = c.Intermediate
	cfg["n_positions"] = c.MaxPositions
	cfg["n_ctx"] = c.MaxPositions
	cfg["activation_function"] = c.act(a)
	cfg["layer_norm_epsilon"] = c.NormEps
	cfg["resid_pdrop"] = 0.0
	cfg["embd_pdrop"] = 0.0
	cfg["attn_pdrop"] = 0.0
	// Written only when set, as the test models' files have never had them.
	if c.UnscaledAttention {
		cfg["scale_attn_weights"] = false
	}
	if c.ScaleAttnByLayer {
		cfg["scale_attn_by_inverse_layer_idx"] = true
	}
}

func (a gpt2) Forward(p *Pass, ids, pos string) (string, []string) {
	x := p.Op("Add", p.Op("Gather", p.Weight("transformer.wte.weight"), ids), p.Op("Gather", p.Weight("transformer.wpe.weight"), pos))
	var presents []string
	for i := 0; i < p.c.Layers; i++ {
		var k, v string
		x, k, v = a.layer(p.Layer(i), i, x)
		presents = append(presents, k, v)
	}
	return layerNorm(p, x, "transformer.ln_f"), presents
}

func (a gpt2) layer(l *Pass, i int, x string) (out, presentK, presentV string) {
	c := l.c
	h := layerNorm(l, x, gpt2Name(i, "ln_1"))
	qkv := l.linearBias(h, gpt2Name(i, "attn.c_attn"), true)
	dd := int64(c.Hidden)
	parts := l.B.OpOuts("Split", 3, []pb.Attribute{pb.AttrInt("axis", -1)}, qkv, l.B.Ints(dd, dd, dd))
	q, k, v := l.Heads(parts[0], c.Heads), l.Heads(parts[1], c.Heads), l.Heads(parts[2], c.Heads)
	k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
	scale := 1.0
	if !c.UnscaledAttention {
		scale = 1 / math.Sqrt(float64(c.HeadDim))
	}
	if c.ScaleAttnByLayer {
		scale /= float64(i + 1)
	}
	x = l.Op("Add", x, l.linearBias(l.AttentionWith(q, k, v, scale, false), gpt2Name(i, "attn.c_proj"), true))

	h = layerNorm(l, x, gpt2Name(i, "ln_2"))
	fc := l.linearBias(h, gpt2Name(i, "mlp.c_fc"), true)
	mlp := l.linearBias(activate(l, fc, c.act(a)), gpt2Name(i, "mlp.c_proj"), true)
	x = l.Op("Add", x, mlp)
	return x, k, v
}
