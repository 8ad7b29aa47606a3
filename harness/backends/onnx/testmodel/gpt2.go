package testmodel

import (
	"fmt"
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// gpt2 has learned positions, LayerNorm, a GELU MLP, multi-head attention
// and its own config.json names.
type gpt2 struct{}

func gpt2Name(i int, rest string) string {
	return fmt.Sprintf("transformer.h.%d.%s", i, rest)
}

func (gpt2) EmbedName() string { return "transformer.wte.weight" }

func (gpt2) Params(c decoder.Config, add func(name string, init seeded.Init, shape ...int)) {
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
func (gpt2) ConfigFields(c decoder.Config, cfg map[string]any) {
	cfg["architectures"] = []string{"GPT2LMHeadModel"}
	cfg["model_type"] = "gpt2"
	cfg["n_embd"] = c.Hidden
	cfg["n_layer"] = c.Layers
	cfg["n_head"] = c.Heads
	cfg["n_inner"] = c.Intermediate
	cfg["n_positions"] = c.MaxPositions
	cfg["n_ctx"] = c.MaxPositions
	cfg["activation_function"] = "gelu"
	cfg["layer_norm_epsilon"] = c.NormEps
	cfg["resid_pdrop"] = 0.0
	cfg["embd_pdrop"] = 0.0
	cfg["attn_pdrop"] = 0.0
}

func (gpt2) Forward(p *decoder.Pass, ids, pos string) (string, []string) {
	x := p.Op("Add", p.Op("Gather", p.Weight("transformer.wte.weight"), ids), p.Op("Gather", p.Weight("transformer.wpe.weight"), pos))
	var presents []string
	for i := 0; i < p.Config().Layers; i++ {
		var k, v string
		x, k, v = gpt2Layer(p.Layer(i), i, x)
		presents = append(presents, k, v)
	}
	return gpt2Norm(p, x, "transformer.ln_f"), presents
}

func gpt2Norm(p *decoder.Pass, x, prefix string) string {
	return p.Attr("LayerNormalization", []pb.Attribute{pb.AttrInt("axis", -1), pb.AttrFloat("epsilon", float32(p.Config().NormEps))},
		x, p.Weight(prefix+".weight"), p.Weight(prefix+".bias"))
}

func gpt2Layer(l *decoder.Pass, i int, x string) (out, presentK, presentV string) {
	c := l.Config()
	h := gpt2Norm(l, x, gpt2Name(i, "ln_1"))
	qkv := l.Op("Add", l.Linear(h, gpt2Name(i, "attn.c_attn.weight")), l.Weight(gpt2Name(i, "attn.c_attn.bias")))
	dd := int64(c.Hidden)
	parts := l.B.OpOuts("Split", 3, []pb.Attribute{pb.AttrInt("axis", -1)}, qkv, l.B.Ints(dd, dd, dd))
	q, k, v := l.Heads(parts[0], c.Heads), l.Heads(parts[1], c.Heads), l.Heads(parts[2], c.Heads)
	k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
	a := l.Op("Add", l.Linear(l.Attention(q, k, v), gpt2Name(i, "attn.c_proj.weight")), l.Weight(gpt2Name(i, "attn.c_proj.bias")))
	x = l.Op("Add", x, a)

	h = gpt2Norm(l, x, gpt2Name(i, "ln_2"))
	fc := l.Op("Add", l.Linear(h, gpt2Name(i, "mlp.c_fc.weight")), l.Weight(gpt2Name(i, "mlp.c_fc.bias")))
	// GELU with erf: 0.5·x·(1 + erf(x/√2)).
	erf := l.Op("Erf", l.Op("Mul", fc, l.B.Float(float32(1/math.Sqrt2))))
	act := l.Op("Mul", l.Op("Mul", fc, l.B.Float(0.5)), l.Op("Add", erf, l.B.Float(1)))
	mlp := l.Op("Add", l.Linear(act, gpt2Name(i, "mlp.c_proj.weight")), l.Weight(gpt2Name(i, "mlp.c_proj.bias")))
	x = l.Op("Add", x, mlp)
	return x, k, v
}
