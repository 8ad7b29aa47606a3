package testmodel

import (
	"fmt"
	"hash/fnv"
	"math"
)

// tensor is a float32 weight in row-major order. Linear weights are stored
// [in, out], ready for MatMul (PyTorch's Linear keeps [out, in]).
type tensor struct {
	shape []int
	data  []float32
}

func (t *tensor) at2(i, j int) float32 { return t.data[i*t.shape[1]+j] }

// splitmix64 is the generator behind every weight: tiny, and fixed forever,
// so a seed names the same model on every machine and Go release.
type splitmix64 struct{ s uint64 }

func (r *splitmix64) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform is in [-a, a).
func (r *splitmix64) uniform(a float64) float32 {
	u := float64(r.next()>>11) / (1 << 53)
	return float32((2*u - 1) * a)
}

// stream gives each tensor its own sequence, so adding a tensor never
// changes the others.
func stream(seed uint64, name string) *splitmix64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &splitmix64{s: seed ^ h.Sum64()}
}

// init kinds: how a tensor's values are drawn.
type initKind int

const (
	initLinear initKind = iota // U(±√(3/fan_in)): unit variance through the layer
	initEmbed                  // U(±0.5)
	initNorm                   // 1 + U(±0.1): visibly applied, near identity
	initBias                   // U(±0.1)
	initZero
)

func newTensor(seed uint64, name string, kind initKind, shape ...int) *tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	t := &tensor{shape: shape, data: make([]float32, n)}
	if kind == initZero {
		return t
	}
	offset, a := float32(0), 0.0
	switch kind {
	case initLinear:
		a = math.Sqrt(3 / float64(shape[0]))
	case initEmbed:
		a = 0.5
	case initNorm:
		offset, a = 1, 0.1
	case initBias:
		a = 0.1
	}
	r := stream(seed, name)
	for i := range t.data {
		t.data[i] = offset + r.uniform(a)
	}
	return t
}

// Parameter names follow Hugging Face's, so a reader can map them.
func layerName(i int, rest string) string {
	return fmt.Sprintf("model.layers.%d.%s", i, rest)
}

func gpt2Name(i int, rest string) string {
	return fmt.Sprintf("transformer.h.%d.%s", i, rest)
}

// initWeights draws every parameter of c.
func initWeights(c Config) map[string]*tensor {
	w := map[string]*tensor{}
	add := func(name string, kind initKind, shape ...int) {
		w[name] = newTensor(c.Seed, name, kind, shape...)
	}
	d, q, kv := c.Hidden, c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	switch c.Arch {
	case Llama:
		add("model.embed_tokens.weight", initEmbed, c.Vocab, d)
		for i := 0; i < c.Layers; i++ {
			add(layerName(i, "input_layernorm.weight"), initNorm, d)
			add(layerName(i, "self_attn.q_proj.weight"), initLinear, d, q)
			add(layerName(i, "self_attn.k_proj.weight"), initLinear, d, kv)
			add(layerName(i, "self_attn.v_proj.weight"), initLinear, d, kv)
			add(layerName(i, "self_attn.o_proj.weight"), initLinear, q, d)
			add(layerName(i, "post_attention_layernorm.weight"), initNorm, d)
			add(layerName(i, "mlp.gate_proj.weight"), initLinear, d, c.Intermediate)
			add(layerName(i, "mlp.up_proj.weight"), initLinear, d, c.Intermediate)
			add(layerName(i, "mlp.down_proj.weight"), initLinear, c.Intermediate, d)
		}
		add("model.norm.weight", initNorm, d)
	case GPT2:
		add("transformer.wte.weight", initEmbed, c.Vocab, d)
		add("transformer.wpe.weight", initEmbed, c.MaxPositions, d)
		for i := 0; i < c.Layers; i++ {
			add(gpt2Name(i, "ln_1.weight"), initNorm, d)
			add(gpt2Name(i, "ln_1.bias"), initBias, d)
			add(gpt2Name(i, "attn.c_attn.weight"), initLinear, d, 3*d)
			add(gpt2Name(i, "attn.c_attn.bias"), initBias, 3*d)
			add(gpt2Name(i, "attn.c_proj.weight"), initLinear, d, d)
			add(gpt2Name(i, "attn.c_proj.bias"), initBias, d)
			add(gpt2Name(i, "ln_2.weight"), initNorm, d)
			add(gpt2Name(i, "ln_2.bias"), initBias, d)
			add(gpt2Name(i, "mlp.c_fc.weight"), initLinear, d, c.Intermediate)
			add(gpt2Name(i, "mlp.c_fc.bias"), initBias, c.Intermediate)
			add(gpt2Name(i, "mlp.c_proj.weight"), initLinear, c.Intermediate, d)
			add(gpt2Name(i, "mlp.c_proj.bias"), initBias, d)
		}
		add("transformer.ln_f.weight", initNorm, d)
		add("transformer.ln_f.bias", initBias, d)
	}
	if !c.TiedEmbeddings {
		add("lm_head.weight", initLinear, d, c.Vocab)
	}
	return w
}

// embedName is the token embedding, which a tied LM head reuses.
func embedName(a Arch) string {
	if a == GPT2 {
		return "transformer.wte.weight"
	}
	return "model.embed_tokens.weight"
}
