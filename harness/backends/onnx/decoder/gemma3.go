package decoder

import (
	"fmt"
	"math"
	"slices"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// Gemma3 is Gemma 3's text model (model_type gemma3_text, as the 1B and
// 270M checkpoints are): token embeddings scaled by √hidden, RMSNorms
// whose weight is an offset from 1, a norm before and after both the
// attention and the MLP, an RMSNorm over each query and key head,
// attention scores scaled by query_pre_attn_scalar^-½, and local layers
// that attend to a sliding window of recent positions with a RoPE base of
// their own (rope_local_base_freq) between global ones (rope_theta,
// rope_scaling).
var Gemma3 Arch = gemma3{llamaFamily{modelType: "gemma3_text", class: "Gemma3ForCausalLM"}}

// gemma3 shares Llama's names and projections (llamaFamily's EmbedName,
// HeadName and TorchLinear).
type gemma3 struct{ llamaFamily }

func (gemma3) Params(c Config, add func(name string, init seeded.Init, shape ...int)) {
	d, q, kv := c.Hidden, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	// Norm weights are offsets from 1, drawn near 0 (transformers
	// initializes them to 0).
	add(llamaEmbed, seeded.Embed, c.Vocab, d)
	for i := 0; i < c.Layers; i++ {
		for _, norm := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"} {
			add(LayerName(i, norm+".weight"), seeded.Bias, d)
		}
		add(LayerName(i, "self_attn.q_proj.weight"), seeded.Linear, d, q)
		add(LayerName(i, "self_attn.k_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.v_proj.weight"), seeded.Linear, d, kv)
		add(LayerName(i, "self_attn.o_proj.weight"), seeded.Linear, q, d)
		if c.AttentionBias {
			add(LayerName(i, "self_attn.q_proj.bias"), seeded.Bias, q)
			add(LayerName(i, "self_attn.k_proj.bias"), seeded.Bias, kv)
			add(LayerName(i, "self_attn.v_proj.bias"), seeded.Bias, kv)
			add(LayerName(i, "self_attn.o_proj.bias"), seeded.Bias, d)
		}
		add(LayerName(i, "self_attn.q_norm.weight"), seeded.Bias, c.HeadDim)
		add(LayerName(i, "self_attn.k_norm.weight"), seeded.Bias, c.HeadDim)
		add(LayerName(i, "mlp.gate_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.up_proj.weight"), seeded.Linear, d, c.Intermediate)
		add(LayerName(i, "mlp.down_proj.weight"), seeded.Linear, c.Intermediate, d)
	}
	add("model.norm.weight", seeded.Bias, d)
}

func (a gemma3) ConfigFields(c Config, cfg map[string]any) {
	llamaLikeFields(c, cfg, a.class, a.modelType)
	cfg["hidden_activation"] = c.act(a)
	cfg["rope_local_base_freq"] = c.localTheta()
	cfg["query_pre_attn_scalar"] = c.preAttnScalar()
	cfg["sliding_window"] = c.SlidingWindow
	types := make([]string, c.Layers)
	for i := range types {
		types[i] = "full_attention"
		if c.sliding(i) {
			types[i] = "sliding_attention"
		}
	}
	cfg["layer_types"] = types
	cfg["final_logit_softcapping"] = nil
	cfg["attn_logit_softcapping"] = nil
}

// preAttnScalar is query_pre_attn_scalar, head_dim when unset.
func (c Config) preAttnScalar() float64 {
	if c.QueryPreAttnScalar == 0 {
		return float64(c.HeadDim)
	}
	return c.QueryPreAttnScalar
}

// localTheta is the sliding layers' RoPE base, rope_theta when unset.
func (c Config) localTheta() float64 {
	if c.LocalRopeTheta == 0 {
		return c.RopeTheta
	}
	return c.LocalRopeTheta
}

// EmbedScale is what Gemma multiplies token embeddings by: √hidden in the
// weights' type (transformers computes it so; bfloat16 turns √1152 =
// 33.94 into 34).
func EmbedScale(c Config) float32 {
	s := float32(math.Sqrt(float64(c.Hidden)))
	switch c.DType {
	case "bfloat16":
		return roundBFloat16(s)
	case "float16":
		return pb.Float16Value(pb.Float16Bits(s))
	}
	return s
}

// roundBFloat16 rounds to bfloat16, to nearest even.
func roundBFloat16(f float32) float32 {
	b := math.Float32bits(f)
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b &^ 0xffff)
}

func (a gemma3) Forward(p *Pass, ids, pos string) (string, []string) {
	c := p.c
	x := p.Op("Mul", p.Op("Gather", p.Weight(llamaEmbed), ids), p.B.Float(EmbedScale(c)))
	global := p.ropeTables(pos, InvFreq(c))
	var local ropeTables
	for i := 0; i < c.Layers; i++ {
		if c.sliding(i) {
			local = p.ropeTables(pos, invFreq(c.HeadDim, c.localTheta(), nil))
			break
		}
	}
	var presents []string
	for i := 0; i < c.Layers; i++ {
		r := global
		if c.sliding(i) {
			r = local
		}
		var k, v string
		x, k, v = a.layer(p.Layer(i), r, i, x)
		presents = append(presents, k, v)
	}
	return gemmaNorm(p, x, "model.norm.weight"), presents
}

func (a gemma3) layer(l *Pass, r ropeTables, i int, x string) (out, presentK, presentV string) {
	c := l.c
	name := func(rest string) string { return LayerName(i, rest) }
	h := gemmaNorm(l, x, name("input_layernorm.weight"))
	heads := func(proj string, n int, norm string) string {
		return gemmaNorm(l, l.Heads(l.linearBias(h, name("self_attn."+proj), c.AttentionBias), n), name("self_attn."+norm+".weight"))
	}
	q := r.rotate(l, heads("q_proj", c.Heads, "q_norm"))
	k := r.rotate(l, heads("k_proj", c.KVHeads, "k_norm"))
	v := l.Heads(l.linearBias(h, name("self_attn.v_proj"), c.AttentionBias), c.KVHeads)
	k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
	attn := l.AttentionWith(q, k, v, 1/math.Sqrt(c.preAttnScalar()), c.sliding(i))
	o := l.linearBias(attn, name("self_attn.o_proj"), c.AttentionBias)
	x = l.Op("Add", x, gemmaNorm(l, o, name("post_attention_layernorm.weight")))

	h = gemmaNorm(l, x, name("pre_feedforward_layernorm.weight"))
	gate := l.Linear(h, name("mlp.gate_proj.weight"))
	up := l.Linear(h, name("mlp.up_proj.weight"))
	mlp := l.Linear(l.Op("Mul", activate(l, gate, c.act(a)), up), name("mlp.down_proj.weight"))
	x = l.Op("Add", x, gemmaNorm(l, mlp, name("post_feedforward_layernorm.weight")))
	return x, k, v
}

// gemmaNorm is Gemma's RMSNorm: (1 + weight) · x · rsqrt(mean(x²) + eps).
func gemmaNorm(p *Pass, x, weight string) string {
	r := p.rsqrtMeanSquare(x)
	return p.Op("Mul", p.Op("Add", p.Weight(weight), p.B.Float(1)), p.Op("Mul", x, r))
}

// readGemma3 reads Gemma 3's config.json: the activation is
// hidden_activation, and which layers slide is layer_types or, before
// transformers 4.53, every layer but each sliding_window_pattern-th.
func readGemma3(r *reader, c *Config, _ string) {
	r.count("vocab_size", &c.Vocab)
	r.count("hidden_size", &c.Hidden)
	r.count("num_hidden_layers", &c.Layers)
	r.count("num_attention_heads", &c.Heads)
	r.count("num_key_value_heads", &c.KVHeads)
	r.count("head_dim", &c.HeadDim)
	r.count("intermediate_size", &c.Intermediate)
	r.count("max_position_embeddings", &c.MaxPositions)
	r.positive("rms_norm_eps", &c.NormEps)
	r.act("hidden_activation", &c.HiddenAct)
	r.bool("tie_word_embeddings", &c.TiedEmbeddings)
	r.bool("attention_bias", &c.AttentionBias)
	r.positive("query_pre_attn_scalar", &c.QueryPreAttnScalar)
	r.kvHeads(c, "num_attention_heads", "num_key_value_heads")
	for _, key := range []string{"final_logit_softcapping", "attn_logit_softcapping"} {
		if v, ok := r.value(key); ok {
			r.unsupported(key, fmt.Sprintf("soft-capping (%v) is not built", v))
		}
	}
	var bidirectional bool
	r.bool("use_bidirectional_attention", &bidirectional)
	if bidirectional {
		r.unsupported("use_bidirectional_attention", "bidirectional attention is an encoder's, not a language model's")
	}

	c.SlidingLayers = make([]bool, c.Layers)
	if types, ok := r.strings("layer_types"); ok {
		if len(types) != c.Layers {
			r.fail("layer_types", fmt.Sprintf("want one entry for each of the %d layers", c.Layers), fmt.Sprintf("%d entries", len(types)))
			types = nil
		}
		for i, t := range types {
			switch t {
			case "sliding_attention":
				c.SlidingLayers[i] = true
			case "full_attention":
			default:
				r.fail("layer_types", "want sliding_attention or full_attention", t)
			}
		}
	} else {
		pattern := 6
		r.count("sliding_window_pattern", &pattern)
		for i := range c.SlidingLayers {
			c.SlidingLayers[i] = (i+1)%pattern != 0
		}
	}
	r.count("sliding_window", &c.SlidingWindow)
	if v, set := r.cfg["sliding_window"]; set && v == nil && slices.Contains(c.SlidingLayers, true) {
		r.fail("sliding_window", "want the window of the sliding_attention layers", nil)
	}

	// transformers 5 keeps each layer type's RoPE under its name.
	if params, ok := r.sub("rope_parameters"); ok {
		if full, ok := params.sub("full_attention"); ok {
			full.positive("rope_theta", &c.RopeTheta)
			c.RopeScaling = full.ropeScaling(false)
		}
		if sliding, ok := params.sub("sliding_attention"); ok {
			sliding.positive("rope_theta", &c.LocalRopeTheta)
			if s := sliding.ropeScaling(false); s != nil {
				sliding.unsupported("rope_type", "scaled RoPE in sliding-window layers is not built")
			}
		}
	} else {
		r.positive("rope_theta", &c.RopeTheta)
		r.positive("rope_local_base_freq", &c.LocalRopeTheta)
		if s, ok := r.sub("rope_scaling"); ok {
			c.RopeScaling = s.ropeScaling(true)
		}
	}
	if c.HeadDim%2 != 0 {
		r.fail("head_dim", "RoPE turns pairs of dims; want an even head size", c.HeadDim)
	}
}
