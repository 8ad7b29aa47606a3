package testmodel

import (
	"fmt"
	"math"

	pb "github.com/feather-eval/feather/harness/onnx/onnxpb"
)

// Opset and IRVersion of every file written: opset 17 has
// LayerNormalization and keeps ReduceMean's axes an attribute.
const (
	Opset     = 17
	IRVersion = 8
)

// export says how one ONNX file is written.
type export struct {
	half        bool   // float16 weights, cache and logits; arithmetic stays float32
	quant       string // "int8" or "uint8": weight-only quantized MatMul weights
	past        bool   // past_key_values inputs and present outputs
	merged      bool   // optimum's merged decoder: If on use_cache_branch
	positionIDs bool
}

// exportFor maps the config and a variant name to an export.
func exportFor(c Config, variant string) export {
	e := export{half: c.FP16, past: !c.NoPast, merged: c.merged(), positionIDs: c.PositionIDs}
	switch variant {
	case "fp16":
		e.half = true
	case "int8":
		e.half, e.quant = false, "int8"
	case "uint8", "quantized":
		e.half, e.quant = false, "uint8"
	}
	return e
}

func (e export) io() pb.DataType {
	if e.half {
		return pb.Float16
	}
	return pb.Float
}

// Names of the cache inputs and outputs, as optimum writes them.
func pastName(i int, kv string) string    { return fmt.Sprintf("past_key_values.%d.%s", i, kv) }
func presentName(i int, kv string) string { return fmt.Sprintf("present.%d.%s", i, kv) }

// Symbolic dimensions, as optimum names them.
var (
	dimBatch = pb.P("batch_size")
	dimSeq   = pb.P("sequence_length")
	dimPast  = pb.P("past_sequence_length")
	dimTotal = pb.P("past_sequence_length + sequence_length")
)

// onnxModel builds the graph of one file.
func (m *Model) onnxModel(e export) *pb.Model {
	c := m.Config
	b := pb.NewBuilder("main_graph")
	io := e.io()
	b.Input("input_ids", pb.Int64, dimBatch, dimSeq)
	if e.past {
		b.Input("attention_mask", pb.Int64, dimBatch, dimTotal)
	} else {
		b.Input("attention_mask", pb.Int64, dimBatch, dimSeq)
	}
	if e.positionIDs {
		b.Input("position_ids", pb.Int64, dimBatch, dimSeq)
	}
	if e.past {
		for i := 0; i < c.Layers; i++ {
			for _, kv := range []string{"key", "value"} {
				b.Input(pastName(i, kv), io, dimBatch, pb.D(int64(c.KVHeads)), dimPast, pb.D(int64(c.HeadDim)))
			}
		}
	}
	if e.merged {
		b.Input("use_cache_branch", pb.Bool, pb.D(1))
	}
	w := &weights{b: b.Scope("weights"), m: m, e: e, memo: map[string]string{}}

	outNames := []string{"logits"}
	outShapes := [][]pb.Dim{{dimBatch, dimSeq, pb.D(int64(c.Vocab))}}
	if e.past {
		for i := 0; i < c.Layers; i++ {
			for _, kv := range []string{"key", "value"} {
				outNames = append(outNames, presentName(i, kv))
				outShapes = append(outShapes, []pb.Dim{dimBatch, pb.D(int64(c.KVHeads)), dimTotal, pb.D(int64(c.HeadDim))})
			}
		}
	}
	var outs []string
	if !e.merged {
		outs = (&decoder{b: b.Scope("model"), c: c, w: w, e: e, past: e.past}).build()
	} else {
		// Both branches compute the same outputs; the no-past branch ignores
		// the (empty) cache inputs, as optimum's merged export does.
		var branches []pb.Attribute
		for _, br := range []struct {
			attr string
			past bool
		}{{"then_branch", true}, {"else_branch", false}} {
			sb := b.Subgraph(br.attr)
			vals := (&decoder{b: sb, c: c, w: w, e: e, past: br.past}).build()
			for i, v := range vals {
				sb.Output(v, br.attr+"/"+outNames[i], io)
			}
			branches = append(branches, pb.AttrGraph(br.attr, sb.Graph()))
		}
		outs = b.OpOuts("If", len(outNames), branches, "use_cache_branch")
	}
	for i, v := range outs {
		b.Output(v, outNames[i], io, outShapes[i]...)
	}
	return &pb.Model{
		IRVersion:       IRVersion,
		Opsets:          []pb.Opset{{Domain: "", Version: Opset}},
		ProducerName:    "feather-testmodel",
		ProducerVersion: "1",
		Graph:           b.Graph(),
	}
}

// weights emits each parameter once, in the file's storage type, and
// returns a float32 value: float16 weights pass through Cast, quantized
// ones through DequantizeLinear (per output column).
type weights struct {
	b    *pb.Builder
	m    *Model
	e    export
	memo map[string]string
}

func (w *weights) get(name string) string {
	if v, ok := w.memo[name]; ok {
		return v
	}
	t := w.m.w[name]
	dims := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = int64(d)
	}
	var v string
	switch {
	case w.e.quant != "" && quantizable(name, t):
		q := quantize(t, w.e.quant)
		v = w.b.OpAttr("DequantizeLinear", []pb.Attribute{pb.AttrInt("axis", 1)},
			w.b.Weight(q.tensor(name+"_quantized", dims)),
			w.b.Weight(pb.FloatTensor(name+"_scale", []int64{dims[1]}, q.scale)),
			w.b.Weight(q.zeroPoint(name+"_zero_point")))
	case w.e.half:
		v = w.b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, w.b.Weight(pb.Float16Tensor(name, dims, t.Data)))
	default:
		v = w.b.Weight(pb.FloatTensor(name, dims, t.Data))
	}
	w.memo[name] = v
	return v
}

// lmHead is the [hidden, vocab] output projection: its own weight, or the
// transposed embedding (ONNX Runtime folds the Transpose at load time).
func (w *weights) lmHead() string {
	c := w.m.Config
	if !c.TiedEmbeddings {
		return w.get("lm_head.weight")
	}
	if v, ok := w.memo["lm_head (tied)"]; ok {
		return v
	}
	v := w.b.OpAttr("Transpose", []pb.Attribute{pb.AttrInts("perm", 1, 0)}, w.get(embedName(c.Arch)))
	w.memo["lm_head (tied)"] = v
	return v
}

// decoder emits one forward pass, with or without a cache.
type decoder struct {
	b    *pb.Builder
	c    Config
	w    *weights
	e    export
	past bool

	bias     string // additive attention mask [batch, 1, seq, total]
	cos, sin string // RoPE tables [batch, 1, seq, head_dim]
}

func (d *decoder) attr(op string, attrs []pb.Attribute, in ...string) string {
	return d.b.OpAttr(op, attrs, in...)
}

func (d *decoder) op(op string, in ...string) string { return d.b.Op(op, in...) }

func (d *decoder) cast(x string, to pb.DataType) string {
	return d.attr("Cast", []pb.Attribute{pb.AttrInt("to", int64(to))}, x)
}

func (d *decoder) unsqueeze(x string, axes ...int64) string {
	return d.op("Unsqueeze", x, d.b.Ints(axes...))
}

// build returns logits and then present key/value per layer (when past).
func (d *decoder) build() []string {
	b, c := d.b, d.c
	ids, mask := "input_ids", "attention_mask"
	seq := d.op("Gather", d.op("Shape", ids), b.Int(1))
	total := d.op("Gather", d.op("Shape", mask), b.Int(1))
	pastLen := d.op("Sub", total, seq)

	pos := "position_ids"
	if !d.e.positionIDs {
		// HF: position_ids = cumsum(mask) - 1, masked positions set to 1,
		// keeping the last seq columns.
		p := d.op("Sub", d.op("CumSum", mask, b.Int(1)), b.Int(1))
		p = d.op("Where", d.op("Equal", mask, b.Int(0)), b.Int(1), p)
		pos = d.op("Slice", p, d.unsqueeze(pastLen, 0), d.unsqueeze(total, 0), b.Ints(1))
	}

	// Query i (absolute position past+i) sees key j when j ≤ past+i and the
	// mask keeps j. Masked scores get float32's lowest value, as HF does,
	// so a fully masked row (a padding query) stays finite.
	kpos := d.op("Range", b.Int(0), total, b.Int(1))
	qpos := d.op("Range", pastLen, total, b.Int(1))
	causal := d.op("LessOrEqual", d.unsqueeze(kpos, 0), d.unsqueeze(qpos, 1))
	keep := d.op("And", causal, d.cast(d.unsqueeze(mask, 1, 2), pb.Bool))
	d.bias = d.op("Where", keep, b.Float(0), b.Float(-math.MaxFloat32))

	var x string
	if c.Arch == GPT2 {
		x = d.op("Add", d.op("Gather", d.w.get("transformer.wte.weight"), ids), d.op("Gather", d.w.get("transformer.wpe.weight"), pos))
	} else {
		x = d.op("Gather", d.w.get("model.embed_tokens.weight"), ids)
		freqs := d.op("Mul", d.unsqueeze(d.cast(pos, pb.Float), 2), b.Const(pb.FloatTensor("", []int64{int64(c.HeadDim / 2)}, invFreq(c))))
		emb := d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, freqs, freqs)
		d.cos = d.unsqueeze(d.op("Cos", emb), 1)
		d.sin = d.unsqueeze(d.op("Sin", emb), 1)
	}

	var presents []string
	for i := 0; i < c.Layers; i++ {
		l := &decoder{b: b.Scope(fmt.Sprintf("layers.%d", i)), c: c, w: d.w, e: d.e, past: d.past, bias: d.bias, cos: d.cos, sin: d.sin}
		var k, v string
		if c.Arch == GPT2 {
			x, k, v = l.gpt2Layer(i, x)
		} else {
			x, k, v = l.llamaLayer(i, x)
		}
		presents = append(presents, k, v)
	}

	if c.Arch == GPT2 {
		x = d.layerNorm(x, "transformer.ln_f")
	} else {
		x = d.rmsNorm(x, "model.norm.weight")
	}
	logits := d.op("MatMul", x, d.w.lmHead())
	outs := []string{logits}
	if d.e.past {
		outs = append(outs, presents...)
	}
	if d.e.half {
		for i := range outs {
			outs[i] = d.cast(outs[i], pb.Float16)
		}
	}
	return outs
}

// invFreq is RoPE's 1/θ^(2i/d) in float32, as HF computes it.
func invFreq(c Config) []float32 {
	half := c.HeadDim / 2
	f := make([]float32, half)
	for i := range f {
		f[i] = float32(1 / math.Pow(c.RopeTheta, float64(2*i)/float64(c.HeadDim)))
	}
	return f
}

func (d *decoder) rmsNorm(x, weight string) string {
	ms := d.attr("ReduceMean", []pb.Attribute{pb.AttrInts("axes", -1), pb.AttrInt("keepdims", 1)}, d.op("Mul", x, x))
	r := d.op("Sqrt", d.op("Add", ms, d.b.Float(float32(d.c.NormEps))))
	return d.op("Mul", d.op("Div", x, r), d.w.get(weight))
}

func (d *decoder) layerNorm(x, prefix string) string {
	return d.attr("LayerNormalization", []pb.Attribute{pb.AttrInt("axis", -1), pb.AttrFloat("epsilon", float32(d.c.NormEps))},
		x, d.w.get(prefix+".weight"), d.w.get(prefix+".bias"))
}

// heads turns [batch, seq, n·head_dim] into [batch, n, seq, head_dim].
func (d *decoder) heads(x string, n int) string {
	r := d.op("Reshape", x, d.b.Ints(0, 0, int64(n), int64(d.c.HeadDim)))
	return d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, r)
}

// rope applies rotary embeddings with HF's rotate_half convention.
func (d *decoder) rope(x string) string {
	half := int64(d.c.HeadDim / 2)
	parts := d.b.OpOuts("Split", 2, []pb.Attribute{pb.AttrInt("axis", -1)}, x, d.b.Ints(half, half))
	rot := d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, d.op("Neg", parts[1]), parts[0])
	return d.op("Add", d.op("Mul", x, d.cos), d.op("Mul", rot, d.sin))
}

// cache prepends the past to this step's keys or values; the result is
// both what attention reads and the present output.
func (d *decoder) cache(i int, kv, cur string) string {
	if !d.past {
		return cur
	}
	p := pastName(i, kv)
	if d.e.half {
		p = d.cast(p, pb.Float)
	}
	return d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", 2)}, p, cur)
}

// attention: scaled dot-product over [batch, heads, seq, head_dim] queries
// and [batch, kv_heads, total, head_dim] keys/values, returning
// [batch, seq, heads·head_dim].
func (d *decoder) attention(q, k, v string) string {
	c := d.c
	if rep := int64(c.Heads / c.KVHeads); rep > 1 {
		k, v = d.repeatKV(k, rep), d.repeatKV(v, rep)
	}
	kt := d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 1, 3, 2)}, k)
	scores := d.op("Mul", d.op("MatMul", q, kt), d.b.Float(float32(1/math.Sqrt(float64(c.HeadDim)))))
	probs := d.attr("Softmax", []pb.Attribute{pb.AttrInt("axis", -1)}, d.op("Add", scores, d.bias))
	o := d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, d.op("MatMul", probs, v))
	return d.op("Reshape", o, d.b.Ints(0, 0, int64(c.Heads*c.HeadDim)))
}

// repeatKV shares each KV head with rep query heads (HF's repeat_kv).
func (d *decoder) repeatKV(x string, rep int64) string {
	e := d.op("Expand", d.unsqueeze(x, 2), d.b.Ints(1, 1, rep, 1, 1))
	return d.op("Reshape", e, d.b.Ints(0, int64(d.c.Heads), -1, int64(d.c.HeadDim)))
}

func (d *decoder) llamaLayer(i int, x string) (out, presentK, presentV string) {
	c, w := d.c, d.w
	h := d.rmsNorm(x, layerName(i, "input_layernorm.weight"))
	q := d.rope(d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.q_proj.weight"))), c.Heads))
	k := d.rope(d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.k_proj.weight"))), c.KVHeads))
	v := d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.v_proj.weight"))), c.KVHeads)
	k, v = d.cache(i, "key", k), d.cache(i, "value", v)
	a := d.op("MatMul", d.attention(q, k, v), w.get(layerName(i, "self_attn.o_proj.weight")))
	x = d.op("Add", x, a)

	h = d.rmsNorm(x, layerName(i, "post_attention_layernorm.weight"))
	gate := d.op("MatMul", h, w.get(layerName(i, "mlp.gate_proj.weight")))
	up := d.op("MatMul", h, w.get(layerName(i, "mlp.up_proj.weight")))
	act := d.op("Mul", d.op("Mul", gate, d.op("Sigmoid", gate)), up) // SiLU(gate)·up
	x = d.op("Add", x, d.op("MatMul", act, w.get(layerName(i, "mlp.down_proj.weight"))))
	return x, k, v
}

func (d *decoder) gpt2Layer(i int, x string) (out, presentK, presentV string) {
	c, w := d.c, d.w
	h := d.layerNorm(x, gpt2Name(i, "ln_1"))
	qkv := d.op("Add", d.op("MatMul", h, w.get(gpt2Name(i, "attn.c_attn.weight"))), w.get(gpt2Name(i, "attn.c_attn.bias")))
	dd := int64(c.Hidden)
	parts := d.b.OpOuts("Split", 3, []pb.Attribute{pb.AttrInt("axis", -1)}, qkv, d.b.Ints(dd, dd, dd))
	q, k, v := d.heads(parts[0], c.Heads), d.heads(parts[1], c.Heads), d.heads(parts[2], c.Heads)
	k, v = d.cache(i, "key", k), d.cache(i, "value", v)
	a := d.op("Add", d.op("MatMul", d.attention(q, k, v), w.get(gpt2Name(i, "attn.c_proj.weight"))), w.get(gpt2Name(i, "attn.c_proj.bias")))
	x = d.op("Add", x, a)

	h = d.layerNorm(x, gpt2Name(i, "ln_2"))
	fc := d.op("Add", d.op("MatMul", h, w.get(gpt2Name(i, "mlp.c_fc.weight"))), w.get(gpt2Name(i, "mlp.c_fc.bias")))
	// GELU with erf: 0.5·x·(1 + erf(x/√2)).
	erf := d.op("Erf", d.op("Mul", fc, d.b.Float(float32(1/math.Sqrt2))))
	act := d.op("Mul", d.op("Mul", fc, d.b.Float(0.5)), d.op("Add", erf, d.b.Float(1)))
	mlp := d.op("Add", d.op("MatMul", act, w.get(gpt2Name(i, "mlp.c_proj.weight"))), w.get(gpt2Name(i, "mlp.c_proj.bias")))
	x = d.op("Add", x, mlp)
	return x, k, v
}
