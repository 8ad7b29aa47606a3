package testmodel

import (
	"fmt"
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// Logits runs the reference forward pass over ids (one unpadded sequence,
// positions 0…n-1, full recomputation, float64 accumulation) and returns one
// row of vocabulary logits per position. It panics on token ids outside the
// vocabulary or sequences beyond GPT-2's learned positions: those are bugs
// in the calling test.
func (m *Model) Logits(ids []int) [][]float32 {
	return m.LogitsInCalls(ids, len(ids))
}

// LogitsInCalls is Logits as a backend computes them with a cache: the
// first calls[0] tokens in one call, then the next calls[1], and so on
// (the lengths must sum to len(ids)). Only the dynamically quantized
// variants tell the difference: each call quantizes its own activations.
func (m *Model) LogitsInCalls(ids []int, calls ...int) [][]float32 {
	total := 0
	for _, n := range calls {
		total += n
	}
	if total != len(ids) {
		panic(fmt.Sprintf("testmodel: calls of %v tokens do not cover the %d ids", calls, len(ids)))
	}
	mc := *m
	mc.calls = calls
	ref := &Reference{Arch: m.Config.arch(), Config: m.Config.decoder(), Weights: m.w, linear: mc.linear}
	rows := ref.Logits(ids)
	out := make([][]float32, len(rows))
	for t, r := range rows {
		out[t] = make([]float32, len(r))
		for i, v := range r {
			out[t][i] = float32(v)
		}
	}
	return out
}

// LogSoftmax turns a row of logits into log-probabilities (float64).
func LogSoftmax[F float32 | float64](logits []F) []float64 {
	mx := math.Inf(-1)
	for _, v := range logits {
		mx = math.Max(mx, float64(v))
	}
	var s float64
	for _, v := range logits {
		s += math.Exp(float64(v) - mx)
	}
	lse := mx + math.Log(s)
	out := make([]float64, len(logits))
	for i, v := range logits {
		out[i] = float64(v) - lse
	}
	return out
}

// Reference is the plain-Go forward pass of every family the decoder
// builds, written from transformers' modeling code (modeling_llama.py,
// modeling_qwen2.py, modeling_qwen3.py, modeling_gpt2.py,
// modeling_gpt_neox.py, modeling_gemma3.py) apart from the graph code it
// checks: one unpadded sequence at positions 0…n-1, full recomputation,
// float64 arithmetic on the float32 weights.
type Reference struct {
	Arch   decoder.Arch
	Config decoder.Config
	// Weights are the parameters by Hugging Face name in the decoder's
	// layout (matrices [in, out]).
	Weights map[string]*seeded.Tensor
	// GELU, when set, replaces every GELU (exact or tanh): another
	// engine's approximation, to measure what it alone changes.
	GELU func(float64) float64

	// linear, when set, computes x·W its own way (the quantized
	// variants' arithmetic, Model.linear).
	linear func(x [][]float64, name string) [][]float64
}

// Logits returns one row of vocabulary logits per position of ids. It
// panics on token ids outside the vocabulary or sequences beyond GPT-2's
// learned positions: those are bugs in the calling test.
func (r *Reference) Logits(ids []int) [][]float64 {
	c := r.Config
	for _, id := range ids {
		if id < 0 || id >= c.Vocab {
			panic(fmt.Sprintf("testmodel: token id %d outside the vocabulary [0, %d)", id, c.Vocab))
		}
	}
	mt := r.Arch.ModelType()
	if mt == "gpt2" && len(ids) > c.MaxPositions {
		panic(fmt.Sprintf("testmodel: %d tokens exceed GPT-2's %d learned positions", len(ids), c.MaxPositions))
	}
	embed := r.Weights[r.Arch.EmbedName()]
	x := make([][]float64, len(ids))
	for t, id := range ids {
		x[t] = row(embed, id)
		switch mt {
		case "gpt2":
			addTo(x[t], row(r.Weights["transformer.wpe.weight"], t))
		case "gemma3_text":
			// Gemma scales embeddings by √hidden, rounded to the weights'
			// type.
			s := float64(decoder.EmbedScale(c))
			for j := range x[t] {
				x[t][j] *= s
			}
		}
	}
	var final func([]float64) []float64
	switch mt {
	case "llama", "qwen2", "qwen3":
		for i := 0; i < c.Layers; i++ {
			r.llamaLayer(i, x)
		}
		final = func(v []float64) []float64 { return rmsNorm(v, r.Weights["model.norm.weight"], c.NormEps) }
	case "gpt2":
		for i := 0; i < c.Layers; i++ {
			r.gpt2Layer(i, x)
		}
		final = func(v []float64) []float64 {
			return layerNorm(v, r.Weights["transformer.ln_f.weight"], r.Weights["transformer.ln_f.bias"], c.NormEps)
		}
	case "gpt_neox":
		for i := 0; i < c.Layers; i++ {
			r.neoxLayer(i, x)
		}
		final = func(v []float64) []float64 {
			return layerNorm(v, r.Weights["gpt_neox.final_layer_norm.weight"], r.Weights["gpt_neox.final_layer_norm.bias"], c.NormEps)
		}
	case "gemma3_text":
		for i := 0; i < c.Layers; i++ {
			r.gemmaLayer(i, x)
		}
		final = func(v []float64) []float64 { return gemmaNorm(v, r.Weights["model.norm.weight"], c.NormEps) }
	default:
		panic("testmodel: no reference for " + mt)
	}
	h := make([][]float64, len(x))
	for t := range x {
		h[t] = final(x[t])
	}
	if !c.TiedEmbeddings {
		return r.matmul(h, r.Arch.HeadName())
	}
	out := make([][]float64, len(h))
	for t := range h {
		out[t] = make([]float64, c.Vocab)
		for v := range out[t] {
			out[t][v] = dot32(h[t], embed.Data[v*c.Hidden:(v+1)*c.Hidden])
		}
	}
	return out
}

// matmul is x·W for every row of x, W the [in, out] weight name.
func (r *Reference) matmul(x [][]float64, name string) [][]float64 {
	if r.linear != nil {
		return r.linear(x, name)
	}
	w := r.Weights[name]
	out := make([][]float64, len(x))
	for t, v := range x {
		out[t] = matVec(v, w)
	}
	return out
}

// affine is x·W, plus the bias prefix.bias when bias.
func (r *Reference) affine(x [][]float64, prefix string, bias bool) [][]float64 {
	out := r.matmul(x, prefix+".weight")
	if bias {
		b := f64(r.Weights[prefix+".bias"].Data)
		for _, v := range out {
			addTo(v, b)
		}
	}
	return out
}

// forEach is f(t, x[t]) for every row.
func forEach(x [][]float64, f func(t int, r []float64) []float64) [][]float64 {
	out := make([][]float64, len(x))
	for t, r := range x {
		out[t] = f(t, r)
	}
	return out
}

// addRows adds each row of y to x's.
func addRows(x, y [][]float64) {
	for t := range x {
		addTo(x[t], y[t])
	}
}

// act is the MLP activation (Config.HiddenAct, or the family's default).
func (r *Reference) act(v float64) float64 {
	name := r.Config.HiddenAct
	if name == "" {
		name = map[string]string{"gpt2": "gelu_new", "gpt_neox": "gelu", "gemma3_text": "gelu_pytorch_tanh"}[r.Arch.ModelType()]
	}
	switch name {
	case "", "silu", "swish":
		return v / (1 + math.Exp(-v))
	case "gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		if r.GELU != nil {
			return r.GELU(v)
		}
		if name == "gelu" {
			return 0.5 * v * (1 + math.Erf(v/math.Sqrt2))
		}
		return 0.5 * v * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	case "quick_gelu":
		return v / (1 + math.Exp(-1.702*v))
	case "relu":
		return math.Max(v, 0)
	}
	panic("testmodel: no activation " + name)
}

func (r *Reference) llamaLayer(i int, x [][]float64) {
	c, w, mt := r.Config, r.Weights, r.Arch.ModelType()
	name := func(rest string) string { return fmt.Sprintf("model.layers.%d.%s", i, rest) }
	h := forEach(x, func(_ int, v []float64) []float64 { return rmsNorm(v, w[name("input_layernorm.weight")], c.NormEps) })
	qkvBias := c.AttentionBias
	outBias := c.AttentionBias && mt != "qwen2" // Qwen2's output projection has none
	q := r.affine(h, name("self_attn.q_proj"), qkvBias)
	k := r.affine(h, name("self_attn.k_proj"), qkvBias)
	v := r.affine(h, name("self_attn.v_proj"), qkvBias)
	if mt == "qwen3" { // RMSNorm over each head, before RoPE
		q = forEach(q, func(_ int, v []float64) []float64 {
			return perHead(v, c.HeadDim, w[name("self_attn.q_norm.weight")], c.NormEps, rmsNorm)
		})
		k = forEach(k, func(_ int, v []float64) []float64 {
			return perHead(v, c.HeadDim, w[name("self_attn.k_norm.weight")], c.NormEps, rmsNorm)
		})
	}
	freqs := ropeFreqs(c.HeadDim, c.RopeTheta, c.RopeScaling)
	q = forEach(q, func(t int, v []float64) []float64 { return rope(v, c.HeadDim, freqs, t) })
	k = forEach(k, func(t int, v []float64) []float64 { return rope(v, c.HeadDim, freqs, t) })
	addRows(x, r.affine(r.attend(q, k, v, 1/math.Sqrt(float64(c.HeadDim)), 0), name("self_attn.o_proj"), outBias))

	h = forEach(x, func(_ int, v []float64) []float64 {
		return rmsNorm(v, w[name("post_attention_layernorm.weight")], c.NormEps)
	})
	gate := r.affine(h, name("mlp.gate_proj"), c.MLPBias)
	up := r.affine(h, name("mlp.up_proj"), c.MLPBias)
	for t := range gate {
		for j, g := range gate[t] {
			gate[t][j] = r.act(g) * up[t][j]
		}
	}
	addRows(x, r.affine(gate, name("mlp.down_proj"), c.MLPBias))
}

func (r *Reference) gpt2Layer(i int, x [][]float64) {
	c, w := r.Config, r.Weights
	name := func(rest string) string { return fmt.Sprintf("transformer.h.%d.%s", i, rest) }
	d := c.Hidden
	h := forEach(x, func(_ int, v []float64) []float64 {
		return layerNorm(v, w[name("ln_1.weight")], w[name("ln_1.bias")], c.NormEps)
	})
	// c_attn is a Conv1D: [in, 3·hidden], query, key and value side by side.
	qkv := r.affine(h, name("attn.c_attn"), true)
	q := forEach(qkv, func(_ int, v []float64) []float64 { return v[:d] })
	k := forEach(qkv, func(_ int, v []float64) []float64 { return v[d : 2*d] })
	v := forEach(qkv, func(_ int, v []float64) []float64 { return v[2*d:] })
	scale := 1.0
	if !c.UnscaledAttention {
		scale = 1 / math.Sqrt(float64(c.HeadDim))
	}
	if c.ScaleAttnByLayer {
		scale /= float64(i + 1)
	}
	addRows(x, r.affine(r.attend(q, k, v, scale, 0), name("attn.c_proj"), true))
	h = forEach(x, func(_ int, v []float64) []float64 {
		return layerNorm(v, w[name("ln_2.weight")], w[name("ln_2.bias")], c.NormEps)
	})
	fc := r.affine(h, name("mlp.c_fc"), true)
	for _, v := range fc {
		for j, z := range v {
			v[j] = r.act(z)
		}
	}
	addRows(x, r.affine(fc, name("mlp.c_proj"), true))
}

func (r *Reference) neoxLayer(i int, x [][]float64) {
	c, w := r.Config, r.Weights
	name := func(rest string) string { return fmt.Sprintf("gpt_neox.layers.%d.%s", i, rest) }
	dh := c.HeadDim
	h := forEach(x, func(_ int, v []float64) []float64 {
		return layerNorm(v, w[name("input_layernorm.weight")], w[name("input_layernorm.bias")], c.NormEps)
	})
	// query_key_value's outputs run head by head: head n's query, key and
	// value are the 3·dh values from 3·n·dh.
	qkv := r.affine(h, name("attention.query_key_value"), c.AttentionBias)
	split := func(which int) [][]float64 {
		return forEach(qkv, func(_ int, v []float64) []float64 {
			out := make([]float64, 0, c.Heads*dh)
			for n := 0; n < c.Heads; n++ {
				out = append(out, v[(3*n+which)*dh:(3*n+which+1)*dh]...)
			}
			return out
		})
	}
	rot := c.RotaryDims
	if rot == 0 {
		rot = dh
	}
	freqs := ropeFreqs(rot, c.RopeTheta, c.RopeScaling)
	q := forEach(split(0), func(t int, v []float64) []float64 { return rope(v, dh, freqs, t) })
	k := forEach(split(1), func(t int, v []float64) []float64 { return rope(v, dh, freqs, t) })
	attn := r.affine(r.attend(q, k, split(2), 1/math.Sqrt(float64(dh)), 0), name("attention.dense"), c.AttentionBias)
	mlp := func(in [][]float64) [][]float64 {
		h := forEach(in, func(_ int, v []float64) []float64 {
			return layerNorm(v, w[name("post_attention_layernorm.weight")], w[name("post_attention_layernorm.bias")], c.NormEps)
		})
		up := r.affine(h, name("mlp.dense_h_to_4h"), true)
		for _, v := range up {
			for j, z := range v {
				v[j] = r.act(z)
			}
		}
		return r.affine(up, name("mlp.dense_4h_to_h"), true)
	}
	if c.ParallelResidual {
		m := mlp(x) // both from the layer's input
		addRows(x, attn)
		addRows(x, m)
		return
	}
	addRows(x, attn)
	addRows(x, mlp(x))
}

func (r *Reference) gemmaLayer(i int, x [][]float64) {
	c, w := r.Config, r.Weights
	name := func(rest string) string { return fmt.Sprintf("model.layers.%d.%s", i, rest) }
	norm := func(in [][]float64, weight string) [][]float64 {
		return forEach(in, func(_ int, v []float64) []float64 { return gemmaNorm(v, w[name(weight)], c.NormEps) })
	}
	sliding := i < len(c.SlidingLayers) && c.SlidingLayers[i]
	h := norm(x, "input_layernorm.weight")
	q := r.affine(h, name("self_attn.q_proj"), c.AttentionBias)
	k := r.affine(h, name("self_attn.k_proj"), c.AttentionBias)
	v := r.affine(h, name("self_attn.v_proj"), c.AttentionBias)
	q = forEach(q, func(_ int, v []float64) []float64 {
		return perHead(v, c.HeadDim, w[name("self_attn.q_norm.weight")], c.NormEps, gemmaNorm)
	})
	k = forEach(k, func(_ int, v []float64) []float64 {
		return perHead(v, c.HeadDim, w[name("self_attn.k_norm.weight")], c.NormEps, gemmaNorm)
	})
	// Local (sliding-window) layers turn with their own base and no
	// scaling; global ones with rope_theta and rope_scaling.
	freqs, window := ropeFreqs(c.HeadDim, c.RopeTheta, c.RopeScaling), 0
	if sliding {
		theta := c.LocalRopeTheta
		if theta == 0 { // unset: the global base
			theta = c.RopeTheta
		}
		freqs, window = ropeFreqs(c.HeadDim, theta, nil), c.SlidingWindow
	}
	scalar := c.QueryPreAttnScalar
	if scalar == 0 { // unset: the head size
		scalar = float64(c.HeadDim)
	}
	q = forEach(q, func(t int, v []float64) []float64 { return rope(v, c.HeadDim, freqs, t) })
	k = forEach(k, func(t int, v []float64) []float64 { return rope(v, c.HeadDim, freqs, t) })
	o := r.affine(r.attend(q, k, v, 1/math.Sqrt(scalar), window), name("self_attn.o_proj"), c.AttentionBias)
	addRows(x, norm(o, "post_attention_layernorm.weight"))

	h = norm(x, "pre_feedforward_layernorm.weight")
	gate := r.matmul(h, name("mlp.gate_proj.weight"))
	up := r.matmul(h, name("mlp.up_proj.weight"))
	for t := range gate {
		for j, g := range gate[t] {
			gate[t][j] = r.act(g) * up[t][j]
		}
	}
	addRows(x, norm(r.matmul(gate, name("mlp.down_proj.weight")), "post_feedforward_layernorm.weight"))
}

// attend is causal attention with scores times scale; q rows hold
// Heads·HeadDim values, k and v rows KVHeads·HeadDim (query head h reads
// KV head h/(Heads/KVHeads)). A window above 0 keeps only the keys fewer
// than window positions back.
func (r *Reference) attend(q, k, v [][]float64, scale float64, window int) [][]float64 {
	c := r.Config
	dh, rep := c.HeadDim, c.Heads/c.KVHeads
	out := make([][]float64, len(q))
	p := make([]float64, len(q))
	for t := range q {
		out[t] = make([]float64, c.Heads*dh)
		first := 0
		if window > 0 {
			first = max(0, t-window+1)
		}
		for h := 0; h < c.Heads; h++ {
			qh := q[t][h*dh : (h+1)*dh]
			kv := (h / rep) * dh
			mx := math.Inf(-1)
			for s := first; s <= t; s++ {
				p[s] = dot(qh, k[s][kv:kv+dh]) * scale
				mx = math.Max(mx, p[s])
			}
			var sum float64
			for s := first; s <= t; s++ {
				p[s] = math.Exp(p[s] - mx)
				sum += p[s]
			}
			o := out[t][h*dh : (h+1)*dh]
			for s := first; s <= t; s++ {
				ws := p[s] / sum
				for j := range o {
					o[j] += ws * v[s][kv+j]
				}
			}
		}
	}
	return out
}

// ropeFreqs are RoPE's inverse frequencies for dims rotated dims, in
// float32 as transformers computes them, rescaled as rope_scaling says.
func ropeFreqs(dims int, theta float64, s *decoder.RopeScaling) []float32 {
	inv := make([]float32, dims/2)
	for j := range inv {
		inv[j] = float32(1 / math.Pow(theta, float64(2*j)/float64(dims)))
		if s == nil {
			continue
		}
		f := float64(inv[j])
		switch s.Type {
		case "linear":
			f /= s.Factor
		case "llama3":
			// modeling_rope_utils' _compute_llama3_parameters: wavelengths
			// above original/low_freq_factor are divided by factor, those
			// below original/high_freq_factor kept, the band between
			// interpolated.
			wavelen := 2 * math.Pi / f
			lo := float64(s.OriginalMaxPositions) / s.LowFreqFactor
			hi := float64(s.OriginalMaxPositions) / s.HighFreqFactor
			if wavelen > lo {
				f /= s.Factor
			} else if wavelen >= hi {
				smooth := (float64(s.OriginalMaxPositions)/wavelen - s.LowFreqFactor) / (s.HighFreqFactor - s.LowFreqFactor)
				f = (1-smooth)*f/s.Factor + smooth*f
			}
		default:
			panic("testmodel: no RoPE scaling " + s.Type)
		}
		inv[j] = float32(f)
	}
	return inv
}

// rope rotates the first 2·len(inv) dims of each head of x (head size dh)
// at position pos, rotate_half style; the angle is float32(pos·inv_freq)
// as transformers computes it.
func rope(x []float64, dh int, inv []float32, pos int) []float64 {
	half := len(inv)
	out := append([]float64(nil), x...)
	for h := 0; h < len(x)/dh; h++ {
		xs, os := x[h*dh:(h+1)*dh], out[h*dh:(h+1)*dh]
		for j := 0; j < half; j++ {
			ang := float64(float32(pos) * inv[j])
			cs, sn := math.Cos(ang), math.Sin(ang)
			os[j] = xs[j]*cs - xs[j+half]*sn
			os[j+half] = xs[j+half]*cs + xs[j]*sn
		}
	}
	return out
}

// perHead applies norm to each head (size dh) of x.
func perHead(x []float64, dh int, w *tensor, eps float64, norm func([]float64, *tensor, float64) []float64) []float64 {
	out := make([]float64, 0, len(x))
	for h := 0; h < len(x)/dh; h++ {
		out = append(out, norm(x[h*dh:(h+1)*dh], w, eps)...)
	}
	return out
}

// linear is x·W for every row of x. In a dynamically quantized variant a
// quantized weight sees x as DynamicQuantizeLinear leaves it: the rows of
// one call (m.calls) quantized to 8 bits with one scale. In q4f16 it
// sees x rounded to float16 and its product is rounded to float16, as
// MatMulNBits with T float16 takes and gives them.
func (m *Model) linear(x [][]float64, name string) [][]float64 {
	w := m.w[name]
	out := make([][]float64, 0, len(x))
	if m.half && quantizable(name, w) {
		for _, r := range x {
			y := matVec(half64(r), w)
			out = append(out, half64(y))
		}
		return out
	}
	if !m.dynamic || !quantizable(name, w) {
		for _, r := range x {
			out = append(out, matVec(r, w))
		}
		return out
	}
	start := 0
	for _, n := range m.calls {
		q, scale := actQuant(x[start : start+n])
		for _, r := range q {
			y := matVec(r, w)
			for j := range y {
				y[j] *= float64(scale)
			}
			out = append(out, y)
		}
		start += n
	}
	return out
}

func rmsNorm(x []float64, w *tensor, eps float64) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	r := math.Sqrt(ms/float64(len(x)) + eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / r * float64(w.Data[i])
	}
	return out
}

// gemmaNorm is Gemma's RMSNorm, whose weight is an offset from 1.
func gemmaNorm(x []float64, w *tensor, eps float64) []float64 {
	var ms float64
	for _, v := range x {
		ms += v * v
	}
	r := math.Sqrt(ms/float64(len(x)) + eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / r * (1 + float64(w.Data[i]))
	}
	return out
}

func layerNorm(x []float64, w, b *tensor, eps float64) []float64 {
	var mean, vr float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		vr += (v - mean) * (v - mean)
	}
	r := math.Sqrt(vr/float64(len(x)) + eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)/r*float64(w.Data[i]) + float64(b.Data[i])
	}
	return out
}

// matVec is x·W for W stored [in, out].
func matVec(x []float64, w *tensor) []float64 {
	cols := w.Shape[1]
	out := make([]float64, cols)
	for i, xi := range x {
		if xi == 0 {
			continue
		}
		r := w.Data[i*cols : (i+1)*cols]
		for j, wv := range r {
			out[j] += xi * float64(wv)
		}
	}
	return out
}

// half64 is x rounded to float16.
func half64(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(roundHalf(float32(v)))
	}
	return out
}

func row(t *tensor, i int) []float64 {
	c := t.Shape[1]
	return f64(t.Data[i*c : (i+1)*c])
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func dot(a, b []float64) float64 {
	var s float64
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func dot32(a []float64, b []float32) float64 {
	var s float64
	for i, x := range a {
		s += x * float64(b[i])
	}
	return s
}

func addTo(dst, src []float64) {
	for i, v := range src {
		dst[i] += v
	}
}
