package smoke

import (
	"fmt"
	"math"

	pb "github.com/feather-eval/feather/harness/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/onnx/seeded"
)

// graph is the export optimum writes for a Llama decoder with a cache and
// position_ids: inputs input_ids, attention_mask, position_ids and
// past_key_values.N.key/value; outputs logits and present.N.key/value.
// Nodes are emitted in the same order as testmodel's builder, so the file
// is byte-identical to testmodel.Build(testmodel.SmokeConfig()).
func graph(w map[string]*seeded.Tensor) *pb.Model {
	var (
		batch = pb.P("batch_size")
		seq   = pb.P("sequence_length")
		past  = pb.P("past_sequence_length")
		total = pb.P("past_sequence_length + sequence_length")
	)
	b := pb.NewBuilder("main_graph")
	b.Input("input_ids", pb.Int64, batch, seq)
	b.Input("attention_mask", pb.Int64, batch, total)
	b.Input("position_ids", pb.Int64, batch, seq)
	for i := 0; i < Layers; i++ {
		for _, kv := range []string{"key", "value"} {
			b.Input(pastName(i, kv), pb.Float, batch, pb.D(KVHeads), past, pb.D(HeadDim))
		}
	}
	ws := &weightSet{b: b.Scope("weights"), w: w, memo: map[string]string{}}
	outNames := []string{"logits"}
	outShapes := [][]pb.Dim{{batch, seq, pb.D(Vocab)}}
	for i := 0; i < Layers; i++ {
		for _, kv := range []string{"key", "value"} {
			outNames = append(outNames, fmt.Sprintf("present.%d.%s", i, kv))
			outShapes = append(outShapes, []pb.Dim{batch, pb.D(KVHeads), total, pb.D(HeadDim)})
		}
	}
	for i, v := range (&decoder{b: b.Scope("model"), w: ws}).build() {
		b.Output(v, outNames[i], pb.Float, outShapes[i]...)
	}
	return &pb.Model{
		IRVersion: 8, // opset 17 has LayerNormalization and keeps ReduceMean's axes an attribute
		Opsets:    []pb.Opset{{Domain: "", Version: 17}},
		// The producer testmodel writes: changing it would change the file.
		ProducerName:    "feather-testmodel",
		ProducerVersion: "1",
		Graph:           b.Graph(),
	}
}

func pastName(i int, kv string) string { return fmt.Sprintf("past_key_values.%d.%s", i, kv) }

// weightSet emits each parameter once, as a float32 initializer.
type weightSet struct {
	b    *pb.Builder
	w    map[string]*seeded.Tensor
	memo map[string]string
}

func (ws *weightSet) get(name string) string {
	if v, ok := ws.memo[name]; ok {
		return v
	}
	t := ws.w[name]
	dims := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = int64(d)
	}
	v := ws.b.Weight(pb.FloatTensor(name, dims, t.Data))
	ws.memo[name] = v
	return v
}

// lmHead is the transposed embedding (ONNX Runtime folds the Transpose at
// load time).
func (ws *weightSet) lmHead() string {
	return ws.b.OpAttr("Transpose", []pb.Attribute{pb.AttrInts("perm", 1, 0)}, ws.get(embedName))
}

// decoder emits the forward pass.
type decoder struct {
	b        *pb.Builder
	w        *weightSet
	bias     string // additive attention mask [batch, 1, seq, total]
	cos, sin string // RoPE tables [batch, 1, seq, head_dim]
}

func (d *decoder) attr(op string, attrs []pb.Attribute, in ...string) string {
	return d.b.OpAttr(op, attrs, in...)
}

func (d *decoder) op(op string, in ...string) string { return d.b.Op(op, in...) }

func (d *decoder) unsqueeze(x string, axes ...int64) string {
	return d.op("Unsqueeze", x, d.b.Ints(axes...))
}

// build returns logits and then present key/value per layer.
func (d *decoder) build() []string {
	b := d.b
	ids, mask, pos := "input_ids", "attention_mask", "position_ids"
	seq := d.op("Gather", d.op("Shape", ids), b.Int(1))
	total := d.op("Gather", d.op("Shape", mask), b.Int(1))
	pastLen := d.op("Sub", total, seq)

	// Query i (absolute position past+i) sees key j when j ≤ past+i and the
	// mask keeps j. Masked scores get float32's lowest value, as HF does,
	// so a fully masked row (a padding query) stays finite.
	kpos := d.op("Range", b.Int(0), total, b.Int(1))
	qpos := d.op("Range", pastLen, total, b.Int(1))
	causal := d.op("LessOrEqual", d.unsqueeze(kpos, 0), d.unsqueeze(qpos, 1))
	keep := d.op("And", causal, d.attr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Bool))}, d.unsqueeze(mask, 1, 2)))
	d.bias = d.op("Where", keep, b.Float(0), b.Float(-math.MaxFloat32))

	x := d.op("Gather", d.w.get(embedName), ids)
	posf := d.attr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, pos)
	freqs := d.op("Mul", d.unsqueeze(posf, 2), b.Const(pb.FloatTensor("", []int64{HeadDim / 2}, invFreq())))
	emb := d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, freqs, freqs)
	d.cos = d.unsqueeze(d.op("Cos", emb), 1)
	d.sin = d.unsqueeze(d.op("Sin", emb), 1)

	var presents []string
	for i := 0; i < Layers; i++ {
		l := &decoder{b: b.Scope(fmt.Sprintf("layers.%d", i)), w: d.w, bias: d.bias, cos: d.cos, sin: d.sin}
		var k, v string
		x, k, v = l.layer(i, x)
		presents = append(presents, k, v)
	}
	x = d.rmsNorm(x, "model.norm.weight")
	return append([]string{d.op("MatMul", x, d.w.lmHead())}, presents...)
}

// invFreq is RoPE's 1/θ^(2i/d) in float32, as HF computes it.
func invFreq() []float32 {
	f := make([]float32, HeadDim/2)
	for i := range f {
		f[i] = float32(1 / math.Pow(ropeTheta, float64(2*i)/float64(HeadDim)))
	}
	return f
}

func (d *decoder) rmsNorm(x, weight string) string {
	ms := d.attr("ReduceMean", []pb.Attribute{pb.AttrInts("axes", -1), pb.AttrInt("keepdims", 1)}, d.op("Mul", x, x))
	r := d.op("Sqrt", d.op("Add", ms, d.b.Float(float32(normEps))))
	return d.op("Mul", d.op("Div", x, r), d.w.get(weight))
}

// heads turns [batch, seq, n·head_dim] into [batch, n, seq, head_dim].
func (d *decoder) heads(x string, n int) string {
	r := d.op("Reshape", x, d.b.Ints(0, 0, int64(n), HeadDim))
	return d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, r)
}

// rope applies rotary embeddings with HF's rotate_half convention.
func (d *decoder) rope(x string) string {
	half := int64(HeadDim / 2)
	parts := d.b.OpOuts("Split", 2, []pb.Attribute{pb.AttrInt("axis", -1)}, x, d.b.Ints(half, half))
	rot := d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", -1)}, d.op("Neg", parts[1]), parts[0])
	return d.op("Add", d.op("Mul", x, d.cos), d.op("Mul", rot, d.sin))
}

// cache prepends the past to this step's keys or values; the result is
// both what attention reads and the present output.
func (d *decoder) cache(i int, kv, cur string) string {
	return d.attr("Concat", []pb.Attribute{pb.AttrInt("axis", 2)}, pastName(i, kv), cur)
}

// attention: scaled dot-product over [batch, heads, seq, head_dim] queries
// and [batch, kv_heads, total, head_dim] keys/values, each KV head shared
// by Heads/KVHeads query heads (HF's repeat_kv), returning
// [batch, seq, heads·head_dim].
func (d *decoder) attention(q, k, v string) string {
	k, v = d.repeatKV(k), d.repeatKV(v)
	kt := d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 1, 3, 2)}, k)
	scores := d.op("Mul", d.op("MatMul", q, kt), d.b.Float(float32(1/math.Sqrt(HeadDim))))
	probs := d.attr("Softmax", []pb.Attribute{pb.AttrInt("axis", -1)}, d.op("Add", scores, d.bias))
	o := d.attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, d.op("MatMul", probs, v))
	return d.op("Reshape", o, d.b.Ints(0, 0, Heads*HeadDim))
}

func (d *decoder) repeatKV(x string) string {
	e := d.op("Expand", d.unsqueeze(x, 2), d.b.Ints(1, 1, Heads/KVHeads, 1, 1))
	return d.op("Reshape", e, d.b.Ints(0, Heads, -1, HeadDim))
}

func (d *decoder) layer(i int, x string) (out, presentK, presentV string) {
	w := d.w
	h := d.rmsNorm(x, layerName(i, "input_layernorm.weight"))
	q := d.rope(d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.q_proj.weight"))), Heads))
	k := d.rope(d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.k_proj.weight"))), KVHeads))
	v := d.heads(d.op("MatMul", h, w.get(layerName(i, "self_attn.v_proj.weight"))), KVHeads)
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
