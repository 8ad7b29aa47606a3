package decoder

import (
	"fmt"
	"math"
	"strings"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// Llama has RoPE, RMSNorm, a gated MLP (SwiGLU) and grouped-query
// attention (num_key_value_heads below num_attention_heads, as Mistral
// and SmolLM have it), with optional attention and MLP biases, a head
// size of its own (head_dim) and llama3 or linear rope_scaling.
var Llama Arch = llamaFamily{modelType: "llama", class: "LlamaForCausalLM", outBias: true}

// llamaFamily is Llama and the families that only add to it: Qwen2's
// query, key and value biases (qwen2.go) and Qwen3's RMSNorm on each query
// and key head (qwen3.go).
type llamaFamily struct {
	modelType, class string
	// outBias: attention_bias puts a bias on the output projection too
	// (Llama, Qwen3; not Qwen2).
	outBias bool
	// qkNorm: an RMSNorm over each query and key head before RoPE (Qwen3).
	qkNorm bool
}

const (
	llamaEmbed = "model.embed_tokens.weight"
	lmHead     = "lm_head.weight"
)

// LayerName is a Llama layer's parameter, named as Hugging Face names it.
func LayerName(i int, rest string) string {
	return fmt.Sprintf("model.layers.%d.%s", i, rest)
}

func (f llamaFamily) ModelType() string { return f.modelType }
func (llamaFamily) EmbedName() string   { return llamaEmbed }
func (llamaFamily) HeadName() string    { return lmHead }

// TorchLinear: the attention and MLP projections and the untied head.
func (llamaFamily) TorchLinear(name string) bool {
	return strings.HasSuffix(name, "_proj.weight") || name == lmHead
}

func (f llamaFamily) Params(c Config, add func(name string, init seeded.Init, shape ...int)) {
	d, q, kv := c.Hidden, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	add(llamaEmbed, seeded.Embed, c.Vocab, d)
	for i := 0; i < c.Layers; i++ {
		add(LayerName(i, "input_layernorm.weight"), seeded.Norm, d)
		add(LayerName(i, "self_attn.q_proj.weight"), seeded.Linear, d, q)
		add(LayerName(i, "self_attn.k_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.v_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.o_proj.weight"), seeded.Linear, q, d)
		if c.AttentionBias {
			add(LayerName(i, "self_attn.q_proj.bias"), seeded.Bias, q)
			add(LayerName(i, "self_attn.k_proj.bias"), seeded.Bias, kv)
			add(LayerName(i, "self_attn.v_proj.bias"), seeded.Bias, kv)
			if f.outBias {
				add(LayerName(i, "self_attn.o_proj.bias"), seeded.Bias, d)
			}
		}
		if f.qkNorm {
			add(LayerName(i, "self_attn.q_norm.weight"), seeded.Norm, c.HeadDim)
			add(LayerName(i, "self_attn.k_norm.weight"), seeded.Norm, c.HeadDim)
		}
		add(LayerName(i, "post_attention_layernorm.weight"), seeded.Norm, d)
		add(LayerName(i, "mlp.gate_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.up_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.down_proj.weight"), seeded.Linear, c.Intermediate, d)
		if c.MLPBias {
			add(LayerName(i, "mlp.gate_proj.bias"), seeded.Bias, c.Intermediate)
			add(LayerName(i, "mlp.up_proj.bias"), seeded.Bias, c.Intermediate)
			add(LayerName(i, "mlp.down_proj.bias"), seeded.Bias, d)
		}
	}
	add("model.norm.weight", seeded.Norm, d)
}

func (f llamaFamily) ConfigFields(c Config, cfg map[string]any) {
	llamaLikeFields(c, cfg, f.class, f.modelType)
	cfg["hidden_act"] = c.act(f)
	cfg["mlp_bias"] = c.MLPBias
}

// llamaLikeFields are the config.json fields the Llama-style families
// (Llama, Qwen, Gemma) name alike.
func llamaLikeFields(c Config, cfg map[string]any, class, modelType string) {
	cfg["architectures"] = []string{class}
	cfg["model_type"] = modelType
	cfg["hidden_size"] = c.Hidden
	cfg["intermediate_size"] = c.Intermediate
	cfg["num_hidden_layers"] = c.Layers
	cfg["num_attention_heads"] = c.Heads
	cfg["num_key_value_heads"] = c.KVHeads
	cfg["head_dim"] = c.HeadDim
	cfg["max_position_embeddings"] = c.MaxPositions
	cfg["rms_norm_eps"] = c.NormEps
	cfg["rope_theta"] = c.RopeTheta
	cfg["rope_scaling"] = c.RopeScaling.json()
	cfg["attention_bias"] = c.AttentionBias
	cfg["attention_dropout"] = 0.0
}

func (f llamaFamily) Forward(p *Pass, ids, pos string) (string, []string) {
	c := p.c
	var r ropeTables
	x := p.Op("Gather", p.Weight(llamaEmbed), ids)
	if !p.RotaryInAttention() {
		r = p.ropeTables(pos, InvFreq(c))
	}

	var presents []string
	for i := 0; i < c.Layers; i++ {
		var k, v string
		x, k, v = f.layer(p.Layer(i), r, i, x)
		presents = append(presents, k, v)
	}
	return rmsNorm(p, x, "model.norm.weight"), presents
}

// InvFreq is RoPE's inverse frequencies 1/θ^(2i/d), d the rotary dims, in
// float32 as Hugging Face computes them, rescaled by c.RopeScaling.
func InvFreq(c Config) []float32 {
	return invFreq(c.rotaryDims(), c.RopeTheta, c.RopeScaling)
}

func invFreq(dims int, theta float64, s *RopeScaling) []float32 {
	f := make([]float32, dims/2)
	for i := range f {
		f[i] = float32(1 / math.Pow(theta, float64(2*i)/float64(dims)))
	}
	s.apply(f)
	return f
}

// apply rescales inverse frequencies as transformers' rope_scaling does.
func (s *RopeScaling) apply(inv []float32) {
	if s == nil {
		return
	}
	switch s.Type {
	case "linear":
		for i, f := range inv {
			inv[i] = float32(float64(f) / s.Factor)
		}
	case "llama3":
		orig := float64(s.OriginalMaxPositions)
		lowWavelen, highWavelen := orig/s.LowFreqFactor, orig/s.HighFreqFactor
		for i, f := range inv {
			v := float64(f)
			switch wavelen := 2 * math.Pi / v; {
			case wavelen < highWavelen: // high frequencies stay
			case wavelen > lowWavelen: // low ones are divided
				v /= s.Factor
			default: // and the band between blends the two
				smooth := (orig/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
				v = (1-smooth)*v/s.Factor + smooth*v
			}
			inv[i] = float32(v)
		}
	}
}

// json is rope_scaling as config.json writes it (nil for none).
func (s *RopeScaling) json() any {
	if s == nil {
		return nil
	}
	out := map[string]any{"rope_type": s.Type, "factor": s.Factor}
	if s.Type == "llama3" {
		out["low_freq_factor"] = s.LowFreqFactor
		out["high_freq_factor"] = s.HighFreqFactor
		out["original_max_position_embeddings"] = s.OriginalMaxPositions
	}
	return out
}

// ropeTables are RoPE's cos and sin [batch, 1, seq, dims], computed once
// per pass and read by every layer; dims may be less than a head.
type ropeTables struct {
	cos, sin string
	dims     int
}

// ropeTables computes the tables for the given inverse frequencies at
// positions pos.
func (p *Pass) ropeTables(pos string, inv []float32) ropeTables {
	freqs := p.Op("Mul", p.unsqueeze(p.cast(pos, pb.Float), 2), p.B.Const(pb.FloatTensor("", []int64{int64(len(inv))}, inv)))
	emb := p.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, freqs, freqs)
	return ropeTables{
		cos:  p.unsqueeze(p.Op("Cos", emb), 1),
		sin:  p.unsqueeze(p.Op("Sin", emb), 1),
		dims: 2 * len(inv),
	}
}

// rotate applies rotary embeddings to the heads x [batch, n, seq,
// head_dim] with Hugging Face's rotate_half convention, in l's scope: to
// the first r.dims dims of each head, passing the rest through (partial
// rotary).
func (r ropeTables) rotate(l *Pass, x string) string {
	if r.dims < l.c.HeadDim {
		parts := l.B.OpOuts("Split", 2, []pb.Attribute{pb.AttrInt("axis", -1)}, x, l.B.Ints(int64(r.dims), int64(l.c.HeadDim-r.dims)))
		return l.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, r.rotateAll(l, parts[0]), parts[1])
	}
	return r.rotateAll(l, x)
}

func (r ropeTables) rotateAll(l *Pass, x string) string {
	half := int64(r.dims / 2)
	parts := l.B.OpOuts("Split", 2, []pb.Attribute{pb.AttrInt("axis", -1)}, x, l.B.Ints(half, half))
	rot := l.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, l.Op("Neg", parts[1]), parts[0])
	return l.Op("Add", l.Op("Mul", x, r.cos), l.Op("Mul", rot, r.sin))
}

// linearBias is x·W, plus the bias when b.
func (l *Pass) linearBias(x, prefix string, b bool) string {
	y := l.Linear(x, prefix+".weight")
	if b {
		y = l.Op("Add", y, l.Weight(prefix+".bias"))
	}
	return y
}

func (f llamaFamily) layer(l *Pass, r ropeTables, i int, x string) (out, presentK, presentV string) {
	c := l.c
	h := rmsNorm(l, x, LayerName(i, "input_layernorm.weight"))
	proj := func(name string) string {
		return l.linearBias(h, LayerName(i, "self_attn."+name), c.AttentionBias)
	}
	// heads splits a projection into heads, each RMS-normalized for Qwen3.
	heads := func(y string, n int, norm string) string {
		y = l.Heads(y, n)
		if f.qkNorm {
			y = rmsNorm(l, y, LayerName(i, "self_attn."+norm+".weight"))
		}
		return y
	}
	var a, k, v string
	if l.e.GQA {
		q := proj("q_proj")
		k, v = proj("k_proj"), proj("v_proj")
		if f.qkNorm {
			q, k = l.flat(heads(q, c.Heads, "q_norm"), c.Heads), l.flat(heads(k, c.KVHeads, "k_norm"), c.KVHeads)
		}
		a, k, v = l.GroupQueryAttention(i, r, q, k, v)
	} else {
		// The order of these ops fixes node names, and so the built-in
		// smoke model's pinned bytes.
		q := r.rotate(l, heads(proj("q_proj"), c.Heads, "q_norm"))
		k = r.rotate(l, heads(proj("k_proj"), c.KVHeads, "k_norm"))
		v = l.Heads(proj("v_proj"), c.KVHeads)
		k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
		a = l.Attention(q, k, v)
	}
	x = l.Op("Add", x, l.linearBias(a, LayerName(i, "self_attn.o_proj"), c.AttentionBias && f.outBias))

	h = rmsNorm(l, x, LayerName(i, "post_attention_layernorm.weight"))
	gate := l.linearBias(h, LayerName(i, "mlp.gate_proj"), c.MLPBias)
	up := l.linearBias(h, LayerName(i, "mlp.up_proj"), c.MLPBias)
	act := l.Op("Mul", activate(l, gate, c.act(f)), up) // act(gate)·up
	x = l.Op("Add", x, l.linearBias(act, LayerName(i, "mlp.down_proj"), c.MLPBias))
	return x, k, v
}

// rmsNorm is Hugging Face's LlamaRMSNorm as torch's exporter writes it:
// weight · (x · rsqrt(mean(x²) + eps)), with x² a Pow and rsqrt 1 / Sqrt.
// ONNX Runtime fuses that pattern into one SimplifiedLayerNormalization.
func rmsNorm(p *Pass, x, weight string) string {
	r := p.rsqrtMeanSquare(x)
	return p.Op("Mul", p.Weight(weight), p.Op("Mul", x, r))
}

// rsqrtMeanSquare is rsqrt(mean(x²) + eps) over the last axis.
func (p *Pass) rsqrtMeanSquare(x string) string {
	ms := p.Attr("ReduceMean", []pb.Attribute{pb.AttrInts("axes", -1), pb.AttrInt("keepdims", 1)}, p.Op("Pow", x, p.B.Float(2)))
	return p.Op("Div", p.B.Float(1), p.Op("Sqrt", p.Op("Add", ms, p.B.Float(float32(p.c.NormEps)))))
}

// layerNorm is torch's LayerNorm with the weight and bias under prefix.
func layerNorm(p *Pass, x, prefix string) string {
	return p.Attr("LayerNormalization", []pb.Attribute{pb.AttrInt("axis", -1), pb.AttrFloat("epsilon", float32(p.c.NormEps))},
		x, p.Weight(prefix+".weight"), p.Weight(prefix+".bias"))
}
