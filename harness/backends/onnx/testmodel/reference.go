package testmodel

import (
	"fmt"
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
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
	rows := mc.forward(ids)
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
func LogSoftmax(logits []float32) []float64 {
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

func (m *Model) forward(ids []int) [][]float64 {
	c := m.Config
	for _, id := range ids {
		if id < 0 || id >= c.Vocab {
			panic(fmt.Sprintf("testmodel: token id %d outside the vocabulary [0, %d)", id, c.Vocab))
		}
	}
	if c.Arch == GPT2 && len(ids) > c.MaxPositions {
		panic(fmt.Sprintf("testmodel: %d tokens exceed GPT-2's %d learned positions", len(ids), c.MaxPositions))
	}
	n := len(ids)
	x := make([][]float64, n)
	for t, id := range ids {
		x[t] = row(m.w[c.arch().EmbedName()], id)
		if c.Arch == GPT2 {
			addTo(x[t], row(m.w["transformer.wpe.weight"], t))
		}
	}
	for i := 0; i < c.Layers; i++ {
		if c.Arch == GPT2 {
			m.gpt2Layer(i, x)
		} else {
			m.llamaLayer(i, x)
		}
	}
	h := make([][]float64, n)
	for t := range x {
		if c.Arch == GPT2 {
			h[t] = layerNorm(x[t], m.w["transformer.ln_f.weight"], m.w["transformer.ln_f.bias"], c.NormEps)
		} else {
			h[t] = rmsNorm(x[t], m.w["model.norm.weight"], c.NormEps)
		}
	}
	if !c.TiedEmbeddings {
		return m.linear(h, "lm_head.weight")
	}
	e := m.w[c.arch().EmbedName()]
	out := make([][]float64, n)
	for t := range h {
		out[t] = make([]float64, c.Vocab)
		for v := range out[t] {
			out[t][v] = dot32(h[t], e.Data[v*c.Hidden:(v+1)*c.Hidden])
		}
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

// forEach sets dst[t] = f(x[t]) for every row.
func forEach(x [][]float64, f func(t int, r []float64) []float64) [][]float64 {
	out := make([][]float64, len(x))
	for t, r := range x {
		out[t] = f(t, r)
	}
	return out
}

func (m *Model) llamaLayer(i int, x [][]float64) {
	c, w := m.Config, m.w
	h := forEach(x, func(_ int, r []float64) []float64 {
		return rmsNorm(r, w[decoder.LayerName(i, "input_layernorm.weight")], c.NormEps)
	})
	q := forEach(m.linear(h, decoder.LayerName(i, "self_attn.q_proj.weight")), func(t int, r []float64) []float64 { return m.ropeRow(r, c.Heads, t) })
	k := forEach(m.linear(h, decoder.LayerName(i, "self_attn.k_proj.weight")), func(t int, r []float64) []float64 { return m.ropeRow(r, c.KVHeads, t) })
	v := m.linear(h, decoder.LayerName(i, "self_attn.v_proj.weight"))
	o := m.linear(m.attend(q, k, v), decoder.LayerName(i, "self_attn.o_proj.weight"))
	for t := range x {
		addTo(x[t], o[t])
	}
	h = forEach(x, func(_ int, r []float64) []float64 {
		return rmsNorm(r, w[decoder.LayerName(i, "post_attention_layernorm.weight")], c.NormEps)
	})
	gate := m.linear(h, decoder.LayerName(i, "mlp.gate_proj.weight"))
	up := m.linear(h, decoder.LayerName(i, "mlp.up_proj.weight"))
	for t := range gate {
		for j, g := range gate[t] {
			gate[t][j] = g / (1 + math.Exp(-g)) * up[t][j]
		}
	}
	down := m.linear(gate, decoder.LayerName(i, "mlp.down_proj.weight"))
	for t := range x {
		addTo(x[t], down[t])
	}
}

// affine is x·W + b for every row.
func (m *Model) affine(x [][]float64, prefix string) [][]float64 {
	out := m.linear(x, prefix+".weight")
	for _, r := range out {
		addTo(r, f64(m.w[prefix+".bias"].Data))
	}
	return out
}

func (m *Model) gpt2Layer(i int, x [][]float64) {
	c, w := m.Config, m.w
	d := c.Hidden
	h := forEach(x, func(_ int, r []float64) []float64 {
		return layerNorm(r, w[gpt2Name(i, "ln_1.weight")], w[gpt2Name(i, "ln_1.bias")], c.NormEps)
	})
	qkv := m.affine(h, gpt2Name(i, "attn.c_attn"))
	q := forEach(qkv, func(_ int, r []float64) []float64 { return r[:d] })
	k := forEach(qkv, func(_ int, r []float64) []float64 { return r[d : 2*d] })
	v := forEach(qkv, func(_ int, r []float64) []float64 { return r[2*d:] })
	o := m.affine(m.attend(q, k, v), gpt2Name(i, "attn.c_proj"))
	for t := range x {
		addTo(x[t], o[t])
	}
	h = forEach(x, func(_ int, r []float64) []float64 {
		return layerNorm(r, w[gpt2Name(i, "ln_2.weight")], w[gpt2Name(i, "ln_2.bias")], c.NormEps)
	})
	fc := m.affine(h, gpt2Name(i, "mlp.c_fc"))
	for _, r := range fc {
		for j, z := range r {
			r[j] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
	}
	o = m.affine(fc, gpt2Name(i, "mlp.c_proj"))
	for t := range x {
		addTo(x[t], o[t])
	}
}

// attend is causal attention; q rows hold Heads·HeadDim values, k and v
// rows KVHeads·HeadDim (query head h reads KV head h/(Heads/KVHeads)).
func (m *Model) attend(q, k, v [][]float64) [][]float64 {
	c := m.Config
	dh, rep := c.HeadDim, c.Heads/c.KVHeads
	scale := 1 / math.Sqrt(float64(dh))
	out := make([][]float64, len(q))
	p := make([]float64, len(q))
	for t := range q {
		out[t] = make([]float64, c.Heads*dh)
		for h := 0; h < c.Heads; h++ {
			qh := q[t][h*dh : (h+1)*dh]
			kv := (h / rep) * dh
			mx := math.Inf(-1)
			for s := 0; s <= t; s++ {
				p[s] = dot(qh, k[s][kv:kv+dh]) * scale
				mx = math.Max(mx, p[s])
			}
			var sum float64
			for s := 0; s <= t; s++ {
				p[s] = math.Exp(p[s] - mx)
				sum += p[s]
			}
			o := out[t][h*dh : (h+1)*dh]
			for s := 0; s <= t; s++ {
				ws := p[s] / sum
				for j := range o {
					o[j] += ws * v[s][kv+j]
				}
			}
		}
	}
	return out
}

// ropeRow rotates each head of x at position pos (rotate_half convention).
// The angle is float32(pos·inv_freq) as HF computes it.
func (m *Model) ropeRow(x []float64, nHeads, pos int) []float64 {
	dh := m.Config.HeadDim
	half := dh / 2
	inv := decoder.InvFreq(m.Config.decoder())
	out := make([]float64, len(x))
	for h := 0; h < nHeads; h++ {
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
