package decoder

import (
	"fmt"
	"math"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// Llama has RoPE, RMSNorm, a SwiGLU MLP and grouped-query attention.
var Llama Arch = llama{}

type llama struct{}

const llamaEmbed = "model.embed_tokens.weight"

// LayerName is a Llama layer's parameter, named as Hugging Face names it.
func LayerName(i int, rest string) string {
	return fmt.Sprintf("model.layers.%d.%s", i, rest)
}

func (llama) EmbedName() string { return llamaEmbed }

func (llama) Params(c Config, add func(name string, init seeded.Init, shape ...int)) {
	d, q, kv := c.Hidden, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	add(llamaEmbed, seeded.Embed, c.Vocab, d)
	for i := 0; i < c.Layers; i++ {
		add(LayerName(i, "input_layernorm.weight"), seeded.Norm, d)
		add(LayerName(i, "self_attn.q_proj.weight"), seeded.Linear, d, q)
		add(LayerName(i, "self_attn.k_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.v_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.o_proj.weight"), seeded.Linear, q, d)
		add(LayerName(i, "post_attention_layernorm.weight"), seeded.Norm, d)
		add(LayerName(i, "mlp.gate_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.up_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.down_proj.weight"), seeded.Linear, c.Intermediate, d)
	}
	add("model.norm.weight", seeded.Norm, d)
}

func (llama) ConfigFields(c Config, cfg map[string]any) {
	cfg["architectures"] = []string{"LlamaForCausalLM"}
	cfg["model_type"] = "llama"
	cfg["hidden_size"] = c.Hidden
	cfg["intermediate_size"] = c.Intermediate
	cfg["num_hidden_layers"] = c.Layers
	cfg["num_attention_heads"] = c.Heads
	cfg["num_key_value_heads"] = c.KVHeads
	cfg["head_dim"] = c.HeadDim
	cfg["hidden_act"] = "silu"
	cfg["max_position_embeddings"] = c.MaxPositions
	cfg["rms_norm_eps"] = c.NormEps
	cfg["rope_theta"] = c.RopeTheta
	cfg["rope_scaling"] = nil
	cfg["attention_bias"] = false
	cfg["attention_dropout"] = 0.0
	cfg["mlp_bias"] = false
}

func (llama) Forward(p *Pass, ids, pos string) (string, []string) {
	c := p.c
	var r ropeTables
	x := p.Op("Gather", p.Weight(llamaEmbed), ids)
	if !p.RotaryInAttention() {
		freqs := p.Op("Mul", p.unsqueeze(p.cast(pos, pb.Float), 2), p.B.Const(pb.FloatTensor("", []int64{int64(c.HeadDim / 2)}, InvFreq(c))))
		emb := p.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, freqs, freqs)
		r.cos = p.unsqueeze(p.Op("Cos", emb), 1)
		r.sin = p.unsqueeze(p.Op("Sin", emb), 1)
	}

	var presents []string
	for i := 0; i < c.Layers; i++ {
		var k, v string
		x, k, v = llamaLayer(p.Layer(i), r, i, x)
		presents = append(presents, k, v)
	}
	return rmsNorm(p, x, "model.norm.weight"), presents
}

// InvFreq is RoPE's 1/θ^(2i/d) in float32, as HF computes it.
func InvFreq(c Config) []float32 {
	f := make([]float32, c.HeadDim/2)
	for i := range f {
		f[i] = float32(1 / math.Pow(c.RopeTheta, float64(2*i)/float64(c.HeadDim)))
	}
	return f
}

// ropeTables are RoPE's cos and sin [batch, 1, seq, head_dim], computed
// once per pass and read by every layer.
type ropeTables struct{ cos, sin string }

// rotate applies rotary embeddings to x with HF's rotate_half convention,
// in l's scope.
func (r ropeTables) rotate(l *Pass, x string) string {
	half := int64(l.c.HeadDim / 2)
	parts := l.B.OpOuts("Split", 2, []pb.Attribute{pb.AttrInt("axis", -1)}, x, l.B.Ints(half, half))
	rot := l.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, l.Op("Neg", parts[1]), parts[0])
	return l.Op("Add", l.Op("Mul", x, r.cos), l.Op("Mul", rot, r.sin))
}

func llamaLayer(l *Pass, r ropeTables, i int, x string) (out, presentK, presentV string) {
	c := l.c
	h := rmsNorm(l, x, LayerName(i, "input_layernorm.weight"))
	proj := func(name string) string { return l.Linear(h, LayerName(i, "self_attn."+name+".weight")) }
	var a, k, v string
	if l.e.GQA {
		q := proj("q_proj")
		k, v = proj("k_proj"), proj("v_proj")
		a, k, v = l.GroupQueryAttention(i, r, q, k, v)
	} else {
		// The order of these ops fixes node names, and so the built-in
		// smoke model's pinned bytes.
		q := r.rotate(l, l.Heads(proj("q_proj"), c.Heads))
		k = r.rotate(l, l.Heads(proj("k_proj"), c.KVHeads))
		v = l.Heads(proj("v_proj"), c.KVHeads)
		k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
		a = l.Attention(q, k, v)
	}
	x = l.Op("Add", x, l.Linear(a, LayerName(i, "self_attn.o_proj.weight")))

	h = rmsNorm(l, x, LayerName(i, "post_attention_layernorm.weight"))
	gate := l.Linear(h, LayerName(i, "mlp.gate_proj.weight"))
	up := l.Linear(h, LayerName(i, "mlp.up_proj.weight"))
	act := l.Op("Mul", l.Op("Mul", gate, l.Op("Sigmoid", gate)), up) // SiLU(gate)·up
	x = l.Op("Add", x, l.Linear(act, LayerName(i, "mlp.down_proj.weight")))
	return x, k, v
}

// rmsNorm is Hugging Face's LlamaRMSNorm as torch's exporter writes it:
// weight · (x · rsqrt(mean(x²) + eps)), with x² a Pow and rsqrt 1 / Sqrt.
// ONNX Runtime fuses that pattern into one SimplifiedLayerNormalization.
func rmsNorm(p *Pass, x, weight string) string {
	ms := p.Attr("ReduceMean", []pb.Attribute{pb.AttrInts("axes", -1), pb.AttrInt("keepdims", 1)}, p.Op("Pow", x, p.B.Float(2)))
	r := p.Op("Div", p.B.Float(1), p.Op("Sqrt", p.Op("Add", ms, p.B.Float(float32(p.c.NormEps)))))
	return p.Op("Mul", p.Weight(weight), p.Op("Mul", x, r))
}
