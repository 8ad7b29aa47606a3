package decoder

import (
	"fmt"
	"math"
	"strings"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// GPTNeoX is EleutherAI's GPT-NeoX (the Pythia models): LayerNorm,
// rotary embeddings on the first rotary_pct of each head, query, key and
// value in one projection whose outputs run head by head (each head's
// query, then key, then value), biases, an untied head (embed_out) by
// default, and with use_parallel_residual attention and MLP side by side
// on the layer's input.
var GPTNeoX Arch = gptNeoX{}

type gptNeoX struct{}

const neoxHead = "embed_out.weight"

func neoxName(i int, rest string) string { return fmt.Sprintf("gpt_neox.layers.%d.%s", i, rest) }

func (gptNeoX) ModelType() string { return "gpt_neox" }
func (gptNeoX) EmbedName() string { return "gpt_neox.embed_in.weight" }
func (gptNeoX) HeadName() string  { return neoxHead }

// TorchLinear: every layer matrix but the norms', and the untied head.
func (gptNeoX) TorchLinear(name string) bool {
	return name == neoxHead || (strings.HasPrefix(name, "gpt_neox.layers.") && strings.HasSuffix(name, ".weight") && !strings.Contains(name, "layernorm"))
}

// Params: query_key_value is [hidden, 3·hidden] with its columns in
// Hugging Face's order, head by head: head h's query, key and value are
// columns [3h·d, 3h·d+d), [3h·d+d, 3h·d+2d) and [3h·d+2d, 3(h+1)·d), d the
// head size. A checkpoint's [3·hidden, hidden] weight is its transpose.
func (gptNeoX) Params(c Config, add func(name string, init seeded.Init, shape ...int)) {
	d := c.Hidden
	add("gpt_neox.embed_in.weight", seeded.Embed, c.Vocab, d)
	for i := 0; i < c.Layers; i++ {
		add(neoxName(i, "input_layernorm.weight"), seeded.Norm, d)
		add(neoxName(i, "input_layernorm.bias"), seeded.Bias, d)
		add(neoxName(i, "post_attention_layernorm.weight"), seeded.Norm, d)
		add(neoxName(i, "post_attention_layernorm.bias"), seeded.Bias, d)
		add(neoxName(i, "attention.query_key_value.weight"), seeded.Linear, d, 3*d)
		add(neoxName(i, "attention.dense.weight"), seeded.Linear, d, d)
		if c.AttentionBias {
			add(neoxName(i, "attention.query_key_value.bias"), seeded.Bias, 3*d)
			add(neoxName(i, "attention.dense.bias"), seeded.Bias, d)
		}
		add(neoxName(i, "mlp.dense_h_to_4h.weight"), seeded.Linear, d, c.Intermediate)
		add(neoxName(i, "mlp.dense_h_to_4h.bias"), seeded.Bias, c.Intermediate)
		add(neoxName(i, "mlp.dense_4h_to_h.weight"), seeded.Linear, c.Intermediate, d)
		add(neoxName(i, "mlp.dense_4h_to_h.bias"), seeded.Bias, d)
	}
	add("gpt_neox.final_layer_norm.weight", seeded.Norm, d)
	add("gpt_neox.final_layer_norm.bias", seeded.Bias, d)
}

func (a gptNeoX) ConfigFields(c Config, cfg map[string]any) {
	cfg["architectures"] = []string{"GPTNeoXForCausalLM"}
	cfg["model_type"] = "gpt_neox"
	cfg["hidden_size"] = c.Hidden
	cfg["intermediate_size"] = c.Intermediate
	cfg["num_hidden_layers"] = c.Layers
	cfg["num_attention_heads"] = c.Heads
	cfg["max_position_embeddings"] = c.MaxPositions
	cfg["rotary_pct"] = rotaryPct(c)
	cfg["rotary_emb_base"] = c.RopeTheta
	cfg["rope_scaling"] = c.RopeScaling.json()
	cfg["layer_norm_eps"] = c.NormEps
	cfg["use_parallel_residual"] = c.ParallelResidual
	cfg["hidden_act"] = c.act(a)
	cfg["attention_bias"] = c.AttentionBias
	cfg["attention_dropout"] = 0.0
	cfg["hidden_dropout"] = 0.0
}

// rotaryPct is config.json's rotary_pct for c: rotary dims over head
// size, raised by an ulp where the quotient times the head size would
// truncate, as transformers truncates it, to a dim fewer (30/44·44 < 30).
func rotaryPct(c Config) float64 {
	dims := c.rotaryDims()
	pct := float64(dims) / float64(c.HeadDim)
	for int(float64(c.HeadDim)*pct) < dims {
		pct = math.Nextafter(pct, 2)
	}
	return pct
}

func (a gptNeoX) Forward(p *Pass, ids, pos string) (string, []string) {
	c := p.c
	x := p.Op("Gather", p.Weight("gpt_neox.embed_in.weight"), ids)
	r := p.ropeTables(pos, InvFreq(c))
	var presents []string
	for i := 0; i < c.Layers; i++ {
		var k, v string
		x, k, v = a.layer(p.Layer(i), r, i, x)
		presents = append(presents, k, v)
	}
	return layerNorm(p, x, "gpt_neox.final_layer_norm"), presents
}

func (a gptNeoX) layer(l *Pass, r ropeTables, i int, x string) (out, presentK, presentV string) {
	c := l.c
	h := layerNorm(l, x, neoxName(i, "input_layernorm"))
	qkv := l.linearBias(h, neoxName(i, "attention.query_key_value"), c.AttentionBias)
	// [batch, seq, heads·3·d] → [batch, heads, seq, 3·d]: each head's
	// query, key and value side by side.
	hd := int64(c.HeadDim)
	perHead := l.Attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, l.Op("Reshape", qkv, l.B.Ints(0, 0, int64(c.Heads), 3*hd)))
	parts := l.B.OpOuts("Split", 3, []pb.Attribute{pb.AttrInt("axis", -1)}, perHead, l.B.Ints(hd, hd, hd))
	q, k, v := r.rotate(l, parts[0]), r.rotate(l, parts[1]), parts[2]
	k, v = l.Cache(i, "key", k), l.Cache(i, "value", v)
	attn := l.linearBias(l.Attention(q, k, v), neoxName(i, "attention.dense"), c.AttentionBias)

	mlp := func(y string) string {
		up := l.linearBias(layerNorm(l, y, neoxName(i, "post_attention_layernorm")), neoxName(i, "mlp.dense_h_to_4h"), true)
		return l.linearBias(activate(l, up, c.act(a)), neoxName(i, "mlp.dense_4h_to_h"), true)
	}
	if c.ParallelResidual {
		// x + attn(ln1(x)) + mlp(ln2(x)), summed as transformers does.
		return l.Op("Add", l.Op("Add", mlp(x), attn), x), k, v
	}
	x = l.Op("Add", attn, x)
	return l.Op("Add", mlp(x), x), k, v
}
