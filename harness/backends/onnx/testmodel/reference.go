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
	rows := m.forward(ids)
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
	head := m.w["lm_head.weight"]
	out := make([][]float64, n)
	for t := range x {
		var h []float64
		if c.Arch == GPT2 {
			h = layerNorm(x[t], m.w["transformer.ln_f.weight"], m.w["transformer.ln_f.bias"], c.NormEps)
		} else {
			h = rmsNorm(x[t], m.w["model.norm.weight"], c.NormEps)
		}
		if c.TiedEmbeddings {
			e := m.w[c.arch().EmbedName()]
			out[t] = make([]float64, c.Vocab)
			for v := range out[t] {
				out[t][v] = dot32(h, e.Data[v*c.Hidden:(v+1)*c.Hidden])
			}
		} else {
			out[t] = matVec(h, head)
		}
	}
	return out
}

func (m *Model) llamaLayer(i int, x [][]float64) {
	c, w := m.Config, m.w
	n := len(x)
	q, k, v := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for t := range x {
		h := rmsNorm(x[t], w[decoder.LayerName(i, "input_layernorm.weight")], c.NormEps)
		q[t] = m.ropeRow(matVec(h, w[decoder.LayerName(i, "self_attn.q_proj.weight")]), c.Heads, t)
		k[t] = m.ropeRow(matVec(h, w[decoder.LayerName(i, "self_attn.k_proj.weight")]), c.KVHeads, t)
		v[t] = matVec(h, w[decoder.LayerName(i, "self_attn.v_proj.weight")])
	}
	a := m.attend(q, k, v)
	for t := range x {
		addTo(x[t], matVec(a[t], w[decoder.LayerName(i, "self_attn.o_proj.weight")]))
		h := rmsNorm(x[t], w[decoder.LayerName(i, "post_attention_layernorm.weight")], c.NormEps)
		gate := matVec(h, w[decoder.LayerName(i, "mlp.gate_proj.weight")])
		up := matVec(h, w[decoder.LayerName(i, "mlp.up_proj.weight")])
		for j := range gate {
			gate[j] = gate[j] / (1 + math.Exp(-gate[j])) * up[j]
		}
		addTo(x[t], matVec(gate, w[decoder.LayerName(i, "mlp.down_proj.weight")]))
	}
}

func (m *Model) gpt2Layer(i int, x [][]float64) {
	c, w := m.Config, m.w
	n, d := len(x), c.Hidden
	q, k, v := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	for t := range x {
		h := layerNorm(x[t], w[gpt2Name(i, "ln_1.weight")], w[gpt2Name(i, "ln_1.bias")], c.NormEps)
		qkv := matVec(h, w[gpt2Name(i, "attn.c_attn.weight")])
		addTo(qkv, f64(w[gpt2Name(i, "attn.c_attn.bias")].Data))
		q[t], k[t], v[t] = qkv[:d], qkv[d:2*d], qkv[2*d:]
	}
	a := m.attend(q, k, v)
	for t := range x {
		o := matVec(a[t], w[gpt2Name(i, "attn.c_proj.weight")])
		addTo(o, f64(w[gpt2Name(i, "attn.c_proj.bias")].Data))
		addTo(x[t], o)
		h := layerNorm(x[t], w[gpt2Name(i, "ln_2.weight")], w[gpt2Name(i, "ln_2.bias")], c.NormEps)
		fc := matVec(h, w[gpt2Name(i, "mlp.c_fc.weight")])
		addTo(fc, f64(w[gpt2Name(i, "mlp.c_fc.bias")].Data))
		for j, z := range fc {
			fc[j] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
		o = matVec(fc, w[gpt2Name(i, "mlp.c_proj.weight")])
		addTo(o, f64(w[gpt2Name(i, "mlp.c_proj.bias")].Data))
		addTo(x[t], o)
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
