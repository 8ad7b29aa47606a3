// Package decoder writes decoder-only language models as optimum exports
// them to ONNX: the graph's inputs and outputs (input_ids, attention_mask,
// optional position_ids and past_key_values, or the merged decoder's If on
// use_cache_branch), the causal mask, attention with a KV cache, the LM
// head, and the architectures of Hugging Face's transformers with their
// weight names and config.json: llama, qwen2, qwen3, gpt2, gpt_neox and
// gemma3_text, one file each. FromConfig reads a config.json into the
// Arch and Config that build its graph. It is production code: the
// built-in smoke model (harness/backends/onnx/smoke) is a Llama built
// here, and the test models (harness/backends/onnx/testmodel) build their
// Llama and GPT-2 here.
//
// Weights are keyed by Hugging Face name. A matrix the forward pass
// multiplies by is stored [in, out], ready for MatMul: a torch Linear
// weight (Arch.TorchLinear), which a checkpoint stores [out, in], is the
// transpose of the checkpoint's tensor; GPT-2's Conv1D weights are stored
// [in, out] by Hugging Face already and are taken as they are. Every other
// parameter (embeddings, norms, biases) has the checkpoint's shape.
package decoder

import (
	"fmt"
	"math"
	"slices"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// Opset and IRVersion of every file written: opset 17 has
// LayerNormalization and keeps ReduceMean's axes an attribute.
const (
	Opset     = 17
	IRVersion = 8
)

// Config is a model's shape, options and seed. The zero value of a field
// after Seed turns its option off (RotaryDims: every dim rotates;
// HiddenAct: the family's activation), so a Config written by hand names
// only what it uses; FromConfig fills every field config.json sets.
type Config struct {
	Vocab, Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate, MaxPositions int
	// TiedEmbeddings makes the LM head the transposed token embedding.
	TiedEmbeddings bool
	RopeTheta      float64
	// NormEps is rms_norm_eps (Llama) or layer_norm_epsilon (GPT-2).
	NormEps float64
	Seed    uint64

	// RotaryDims is how many leading dims of each head RoPE turns
	// (gpt_neox's rotary_pct of the head); 0 means all of them.
	RotaryDims int
	// RopeScaling rescales RoPE's frequencies (config.json's
	// rope_scaling); nil leaves them as they are.
	RopeScaling *RopeScaling
	// AttentionBias puts biases on the attention projections: query, key,
	// value and output for llama, qwen3 and gpt_neox (attention_bias);
	// query, key and value only for qwen2, whose config has no such field
	// because it always has them. GPT-2 always has biases.
	AttentionBias bool
	// MLPBias puts biases on a Llama MLP's projections (mlp_bias).
	MLPBias bool
	// HiddenAct is the MLP's activation, by transformers' name (hidden_act,
	// GPT-2's activation_function, Gemma's hidden_activation); "" is the
	// family's default (Activations lists the names built).
	HiddenAct string
	// ParallelResidual adds attention and MLP, each computed from the
	// layer's input, in one residual step (gpt_neox's
	// use_parallel_residual).
	ParallelResidual bool
	// UnscaledAttention leaves GPT-2's attention scores undivided by
	// √head_dim (scale_attn_weights false); ScaleAttnByLayer divides layer
	// i's by i+1 as well (scale_attn_by_inverse_layer_idx).
	UnscaledAttention, ScaleAttnByLayer bool
	// DType is config.json's torch_dtype, the type the checkpoint stores
	// its weights in ("float32", "float16", "bfloat16"; "" when unsaid).
	// The graph computes in float32 whatever it is.
	DType string

	// Gemma 3: attention scores are scaled by QueryPreAttnScalar^-½
	// (query_pre_attn_scalar) instead of head_dim^-½; a layer whose
	// SlidingLayers entry is true attends only to the SlidingWindow most
	// recent positions, with RoPE base LocalRopeTheta
	// (rope_local_base_freq) and no rope_scaling.
	QueryPreAttnScalar float64
	SlidingWindow      int
	SlidingLayers      []bool
	LocalRopeTheta     float64
}

// RopeScaling is config.json's rope_scaling: "linear" divides every
// frequency by Factor; "llama3" divides the low ones by Factor, keeps the
// high ones, and blends in between (Llama 3.1's long-context RoPE).
type RopeScaling struct {
	Type                          string
	Factor                        float64
	LowFreqFactor, HighFreqFactor float64 // llama3
	OriginalMaxPositions          int     // llama3: original_max_position_embeddings
}

// rotaryDims is how many dims of each head RoPE turns.
func (c Config) rotaryDims() int {
	if c.RotaryDims == 0 {
		return c.HeadDim
	}
	return c.RotaryDims
}

// sliding reports whether layer i is a sliding-window layer.
func (c Config) sliding(i int) bool { return i < len(c.SlidingLayers) && c.SlidingLayers[i] }

// Arch is a decoder family: its parameters and what lies between the
// token ids and the final hidden states. The LM head, mask, attention and
// cache are the same for every family.
type Arch interface {
	// ModelType is config.json's model_type for the family.
	ModelType() string
	// Params declares every parameter with Hugging Face's name, except an
	// untied LM head, in the decoder's layout (see the package doc).
	Params(c Config, add func(name string, init seeded.Init, shape ...int))
	// EmbedName is the token embedding, which a tied LM head reuses;
	// HeadName the untied LM head.
	EmbedName() string
	HeadName() string
	// TorchLinear reports whether a parameter is a torch Linear weight:
	// a checkpoint stores it [out, in], the transpose of the decoder's
	// [in, out]. Every other parameter has the checkpoint's own layout.
	TorchLinear(name string) bool
	// ConfigFields adds the family's own config.json fields.
	ConfigFields(c Config, cfg map[string]any)
	// Forward returns the final (normalized) hidden states and each
	// layer's present key and value (see Pass.Cache).
	Forward(p *Pass, ids, pos string) (hidden string, presents []string)
}

// Weights draws every parameter of a model from c.Seed.
func Weights(a Arch, c Config) map[string]*seeded.Tensor {
	w := map[string]*seeded.Tensor{}
	add := func(name string, init seeded.Init, shape ...int) {
		w[name] = seeded.NewTensor(c.Seed, name, init, shape...)
	}
	a.Params(c, add)
	if !c.TiedEmbeddings {
		add(a.HeadName(), seeded.Linear, c.Hidden, c.Vocab)
	}
	return w
}

// Export says how one ONNX file is written.
type Export struct {
	Half        bool // float16 weights, cache and logits; arithmetic stays float32
	Past        bool // past_key_values inputs and present outputs
	Merged      bool // optimum's merged decoder: If on use_cache_branch
	PositionIDs bool // a position_ids input; without it positions follow the mask
	// GQA writes attention as onnxruntime's GroupQueryAttention (gqa.go);
	// it needs Past and a RoPE architecture.
	GQA bool
	// TreeMask adds a bool input TreeMaskInput [batch, seq, past+seq]: the
	// keys each query attends to, on top of the attention mask, so that a
	// row can hold a prefix tree of sequences (each token attending to its
	// ancestors, at the position_ids of its depth); with sliding-window
	// layers, TreeSlidingMaskInput too, which also applies the window (a
	// tree's slots are not positions, so the graph cannot). It needs Past
	// and PositionIDs. Only graphs this package builds for a checkpoint
	// have it: exporters write no such input.
	TreeMask bool
	// LogitsToKeep, when set, names an int64 scalar input k (optimum's
	// num_logits_to_keep or logits_to_keep): the head runs on the last k
	// positions only, all of them when k is 0, as transformers slices.
	LogitsToKeep string
	// Emit, when set, may store a parameter its own way (testmodel's 8-bit
	// QDQ variants): it returns the parameter's float32 value, or false to
	// leave it to the default.
	Emit func(b *pb.Builder, name string, t *seeded.Tensor, dims []int64) (string, bool)
	// Linear, when set, may compute x·W for a [in, out] weight its own way
	// (testmodel's MatMulNBits and MatMulInteger variants, which replace
	// the MatMul rather than the weight): it returns the product, or false
	// to leave it to MatMul.
	Linear func(b *pb.Builder, x, name string, t *seeded.Tensor) (string, bool)
}

func (e Export) io() pb.DataType {
	if e.Half {
		return pb.Float16
	}
	return pb.Float
}

// TreeMaskInput is Export.TreeMask's input; TreeSlidingMaskInput is the
// one the sliding-window layers read instead, when there are any: the
// tree minus the keys a window or more positions behind each query.
const (
	TreeMaskInput        = "feather_tree_mask"
	TreeSlidingMaskInput = "feather_tree_mask_sliding"
)

// Names of the cache inputs and outputs, as optimum writes them.
func pastName(i int, kv string) string    { return fmt.Sprintf("past_key_values.%d.%s", i, kv) }
func presentName(i int, kv string) string { return fmt.Sprintf("present.%d.%s", i, kv) }

// Symbolic dimensions, as optimum names them.
var (
	dimBatch = pb.P("batch_size")
	dimSeq   = pb.P("sequence_length")
	dimPast  = pb.P("past_sequence_length")
	dimTotal = pb.P("past_sequence_length + sequence_length")
	dimKept  = pb.P("logits_sequence_length")
)

// Graph builds the ONNX model of one file. Export.GQA needs a Llama-family
// arch (llama, qwen2, qwen3) rotating whole heads, without sliding-window
// layers.
func Graph(a Arch, c Config, w map[string]*seeded.Tensor, e Export) *pb.Model {
	if e.GQA && !gqaBuilds(a, c) {
		panic(fmt.Sprintf("decoder: GroupQueryAttention is built for llama, qwen2 and qwen3 with full rotary embeddings, not %s", a.ModelType()))
	}
	if e.TreeMask && (!e.Past || !e.PositionIDs || e.GQA) {
		panic("decoder: a tree mask needs Past and PositionIDs, and plain attention")
	}
	b := pb.NewBuilder("main_graph")
	io := e.io()
	b.Input("input_ids", pb.Int64, dimBatch, dimSeq)
	if e.Past {
		b.Input("attention_mask", pb.Int64, dimBatch, dimTotal)
	} else {
		b.Input("attention_mask", pb.Int64, dimBatch, dimSeq)
	}
	if e.PositionIDs {
		b.Input("position_ids", pb.Int64, dimBatch, dimSeq)
	}
	if e.Past {
		for i := 0; i < c.Layers; i++ {
			for _, kv := range []string{"key", "value"} {
				b.Input(pastName(i, kv), io, dimBatch, pb.D(int64(c.KVHeads)), dimPast, pb.D(int64(c.HeadDim)))
			}
		}
	}
	if e.Merged {
		b.Input("use_cache_branch", pb.Bool, pb.D(1))
	}
	if e.TreeMask {
		b.Input(TreeMaskInput, pb.Bool, dimBatch, dimSeq, dimTotal)
		if slices.Contains(c.SlidingLayers, true) {
			b.Input(TreeSlidingMaskInput, pb.Bool, dimBatch, dimSeq, dimTotal)
		}
	}
	logitsSeq := dimSeq
	if e.LogitsToKeep != "" {
		b.Input(e.LogitsToKeep, pb.Int64, []pb.Dim{}...) // a scalar
		logitsSeq = dimKept
	}
	ws := &weights{b: b.Scope("weights"), a: a, c: c, w: w, e: e, memo: map[string]string{}}

	outNames := []string{"logits"}
	outShapes := [][]pb.Dim{{dimBatch, logitsSeq, pb.D(int64(c.Vocab))}}
	if e.Past {
		for i := 0; i < c.Layers; i++ {
			for _, kv := range []string{"key", "value"} {
				outNames = append(outNames, presentName(i, kv))
				outShapes = append(outShapes, []pb.Dim{dimBatch, pb.D(int64(c.KVHeads)), dimTotal, pb.D(int64(c.HeadDim))})
			}
		}
	}
	var outs []string
	if !e.Merged {
		outs = (&Pass{B: b.Scope("model"), c: c, w: ws, e: e, past: e.Past}).build(a)
	} else {
		// Both branches compute the same outputs; the no-past branch ignores
		// the (empty) cache inputs, as optimum's merged export does.
		var branches []pb.Attribute
		for _, br := range []struct {
			attr string
			past bool
		}{{"then_branch", true}, {"else_branch", false}} {
			sb := b.Subgraph(br.attr)
			vals := (&Pass{B: sb, c: c, w: ws, e: e, past: br.past}).build(a)
			for i, v := range vals {
				sb.Output(v, br.attr+"/"+outNames[i], io)
			}
			branches = append(branches, pb.AttrGraph(br.attr, sb.Graph()))
		}
		outs = b.OpOuts("If", len(outNames), branches, "use_cache_branch")
	}
	for i, v := range outs {
		b.OutputNamed(v, outNames[i], io, outShapes[i]...)
	}
	m := &pb.Model{
		IRVersion:       IRVersion,
		Opsets:          []pb.Opset{{Domain: "", Version: Opset}},
		ProducerName:    "feather-testmodel", // every file so far says so: a change would change the pinned smoke files
		ProducerVersion: "1",
		Graph:           b.Graph(),
	}
	// Contrib operators (GroupQueryAttention, an export's MatMulNBits)
	// need their domain's opset declared.
	if usesDomain(m, MSDomain) {
		m.Opsets = append(m.Opsets, pb.Opset{Domain: MSDomain, Version: MSVersion})
	}
	return m
}

// gqaBuilds reports whether a's attention can be GroupQueryAttention.
func gqaBuilds(a Arch, c Config) bool {
	switch a.(type) {
	case llamaFamily, qwen2, qwen3:
		return c.rotaryDims() == c.HeadDim && !slices.Contains(c.SlidingLayers, true)
	}
	return false
}

// usesDomain reports whether a node of m, in any subgraph, is in domain.
func usesDomain(m *pb.Model, domain string) bool {
	for _, g := range m.Graphs() {
		for _, n := range g.Nodes {
			if n.Domain == domain {
				return true
			}
		}
	}
	return false
}

// weights emits each parameter once, in the file's storage type, and
// returns a float32 value: float16 weights pass through Cast.
type weights struct {
	b    *pb.Builder
	a    Arch
	c    Config
	w    map[string]*seeded.Tensor
	e    Export
	memo map[string]string
}

func (w *weights) get(name string) string {
	if v, ok := w.memo[name]; ok {
		return v
	}
	t := w.w[name]
	dims := make([]int64, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = int64(d)
	}
	v, ok := "", false
	if w.e.Emit != nil {
		v, ok = w.e.Emit(w.b, name, t, dims)
	}
	switch {
	case ok:
	case w.e.Half:
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
	if !w.c.TiedEmbeddings {
		return w.get(w.a.HeadName())
	}
	if v, ok := w.memo["lm_head (tied)"]; ok {
		return v
	}
	v := w.b.OpAttr("Transpose", []pb.Attribute{pb.AttrInts("perm", 1, 0)}, w.get(w.a.EmbedName()))
	w.memo["lm_head (tied)"] = v
	return v
}

// Pass emits one forward pass, with or without a cache, for an Arch to
// fill in; Layer scopes it to one layer.
type Pass struct {
	B    *pb.Builder
	c    Config
	w    *weights
	e    Export
	past bool
	bias string // additive attention mask [batch, 1, seq, total]
	// slidingBias is bias for a sliding-window layer (Config.SlidingLayers).
	slidingBias string

	// With Export.GQA: the lengths every GroupQueryAttention node reads,
	// and the operator's rotary tables when it rotates (no position_ids).
	gqa            gqaInputs
	gqaCos, gqaSin string
}

// RotaryInAttention says whether attention applies rotary embeddings
// itself, so the architecture must not.
func (p *Pass) RotaryInAttention() bool { return p.e.GQA && !p.e.PositionIDs }

// Config is the model's shape.
func (p *Pass) Config() Config { return p.c }

// Layer is the pass scoped to layer i, so node names read as exporters'.
func (p *Pass) Layer(i int) *Pass {
	l := *p
	l.B = p.B.Scope(fmt.Sprintf("layers.%d", i))
	return &l
}

// Op emits a node with one output.
func (p *Pass) Op(op string, in ...string) string { return p.B.Op(op, in...) }

// Attr is Op with attributes.
func (p *Pass) Attr(op string, attrs []pb.Attribute, in ...string) string {
	return p.B.OpAttr(op, attrs, in...)
}

// Weight is a parameter as a float32 value.
func (p *Pass) Weight(name string) string { return p.w.get(name) }

// Linear is x·W for the [in, out] parameter name: a MatMul, unless the
// export computes it its own way (Export.Linear).
func (p *Pass) Linear(x, name string) string {
	if p.e.Linear != nil {
		if y, ok := p.e.Linear(p.B, x, name, p.w.w[name]); ok {
			return y
		}
	}
	return p.Op("MatMul", x, p.Weight(name))
}

// DynamicMatMul is x·W as onnxruntime.quantization.quantize_dynamic
// writes a MatMul against an 8-bit weight w with its per-column scale and
// zero point: x quantized to uint8 per call (DynamicQuantizeLinear: one
// scale and zero point for the tensor), MatMulInteger, and the int32
// product scaled back by x's scale times each column's.
func DynamicMatMul(b *pb.Builder, x, w, scale, zero string) string {
	xq := b.OpOuts("DynamicQuantizeLinear", 3, nil, x)
	prod := b.Op("MatMulInteger", xq[0], w, xq[2], zero)
	f := b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, prod)
	return b.Op("Mul", f, b.Op("Mul", xq[1], scale))
}

func (p *Pass) cast(x string, to pb.DataType) string {
	return p.Attr("Cast", []pb.Attribute{pb.AttrInt("to", int64(to))}, x)
}

func (p *Pass) unsqueeze(x string, axes ...int64) string {
	return p.Op("Unsqueeze", x, p.B.Ints(axes...))
}

// build returns logits and then present key/value per layer (when past).
func (p *Pass) build(a Arch) []string {
	b := p.B
	ids := "input_ids"
	pos := "position_ids"
	if p.e.GQA {
		// The operator masks by itself, from each row's length.
		p.gqa = p.gqaLengths()
		if p.RotaryInAttention() {
			p.gqaCos, p.gqaSin = p.rotaryCaches()
			pos = ""
		}
	} else {
		pos = p.maskAndPositions()
	}

	x, presents := a.Forward(p, ids, pos)
	if k := p.e.LogitsToKeep; k != "" {
		// hidden[:, -k:, :]; -0 is 0, so k = 0 keeps every position.
		start := p.unsqueeze(p.Op("Neg", k), 0)
		x = p.Op("Slice", x, start, b.Ints(math.MaxInt64), b.Ints(1))
	}
	var head string
	if p.c.TiedEmbeddings {
		head = p.Op("MatMul", x, p.w.lmHead())
	} else {
		head = p.Linear(x, a.HeadName())
	}
	outs := []string{head}
	if p.e.Past {
		outs = append(outs, presents...)
	}
	if p.e.Half {
		for i := range outs {
			outs[i] = p.cast(outs[i], pb.Float16)
		}
	}
	return outs
}

// maskAndPositions sets the additive attention mask (p.bias) and returns
// the position ids: the input, or without one, derived from the mask.
func (p *Pass) maskAndPositions() string {
	b := p.B
	ids, mask := "input_ids", "attention_mask"
	seq := p.Op("Gather", p.Op("Shape", ids), b.Int(1))
	total := p.Op("Gather", p.Op("Shape", mask), b.Int(1))
	pastLen := p.Op("Sub", total, seq)

	pos := "position_ids"
	if !p.e.PositionIDs {
		// HF: position_ids = cumsum(mask) - 1, masked positions set to 1,
		// keeping the last seq columns.
		q := p.Op("Sub", p.Op("CumSum", mask, b.Int(1)), b.Int(1))
		q = p.Op("Where", p.Op("Equal", mask, b.Int(0)), b.Int(1), q)
		pos = p.Op("Slice", q, p.unsqueeze(pastLen, 0), p.unsqueeze(total, 0), b.Ints(1))
	}

	// Query i (absolute position past+i) sees key j when j ≤ past+i and the
	// mask keeps j. Masked scores get float32's lowest value, as HF does,
	// so a fully masked row (a padding query) stays finite.
	kpos := p.Op("Range", b.Int(0), total, b.Int(1))
	qpos := p.Op("Range", pastLen, total, b.Int(1))
	causal := p.Op("LessOrEqual", p.unsqueeze(kpos, 0), p.unsqueeze(qpos, 1))
	keep := p.Op("And", causal, p.cast(p.unsqueeze(mask, 1, 2), pb.Bool))
	causalKeep := keep
	if p.e.TreeMask {
		// The tree says which earlier slots are a query's ancestors.
		keep = p.Op("And", keep, p.unsqueeze(TreeMaskInput, 1))
	}
	p.bias = p.Op("Where", keep, b.Float(0), b.Float(-math.MaxFloat32))
	if slices.Contains(p.c.SlidingLayers, true) {
		var near string
		if p.e.TreeMask {
			// The caller knows each slot's position: its sliding tree
			// mask also drops the keys a window or more behind.
			near = p.unsqueeze(TreeSlidingMaskInput, 1)
		} else {
			// A sliding-window layer also drops keys SlidingWindow or more
			// positions back: query q keeps key k when q - k < window, in
			// positions counted from the start of the row, padding
			// included, as Hugging Face counts them.
			dist := p.Op("Sub", p.unsqueeze(qpos, 1), p.unsqueeze(kpos, 0))
			near = p.Op("Less", dist, b.Int(int64(p.c.SlidingWindow)))
		}
		p.slidingBias = p.Op("Where", p.Op("And", causalKeep, near), b.Float(0), b.Float(-math.MaxFloat32))
	}
	return pos
}

// Heads turns [batch, seq, n·head_dim] into [batch, n, seq, head_dim].
func (p *Pass) Heads(x string, n int) string {
	r := p.Op("Reshape", x, p.B.Ints(0, 0, int64(n), int64(p.c.HeadDim)))
	return p.Attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, r)
}

// Cache prepends layer i's past to this step's keys or values (kv is
// "key" or "value"); the result is both what attention reads and the
// present output.
func (p *Pass) Cache(i int, kv, cur string) string {
	if !p.past {
		return cur
	}
	past := pastName(i, kv)
	if p.e.Half {
		past = p.cast(past, pb.Float)
	}
	return p.Attr("Concat", []pb.Attribute{pb.AttrInt("axis", 2)}, past, cur)
}

// Attention is masked scaled dot-product attention over [batch, heads,
// seq, head_dim] queries and [batch, kv_heads, total, head_dim]
// keys/values, returning [batch, seq, heads·head_dim].
func (p *Pass) Attention(q, k, v string) string {
	return p.AttentionWith(q, k, v, 1/math.Sqrt(float64(p.c.HeadDim)), false)
}

// AttentionWith is Attention with the scores multiplied by scale (1
// leaves them as they are) and, when sliding, masked to the last
// Config.SlidingWindow positions.
func (p *Pass) AttentionWith(q, k, v string, scale float64, sliding bool) string {
	c := p.c
	if rep := int64(c.Heads / c.KVHeads); rep > 1 {
		k, v = p.repeatKV(k, rep), p.repeatKV(v, rep)
	}
	kt := p.Attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 1, 3, 2)}, k)
	scores := p.Op("MatMul", q, kt)
	if scale != 1 {
		scores = p.Op("Mul", scores, p.B.Float(float32(scale)))
	}
	bias := p.bias
	if sliding {
		bias = p.slidingBias
	}
	probs := p.Attr("Softmax", []pb.Attribute{pb.AttrInt("axis", -1)}, p.Op("Add", scores, bias))
	return p.flat(p.Op("MatMul", probs, v), c.Heads)
}

// flat turns [batch, n, seq, head_dim] back into [batch, seq, n·head_dim].
func (p *Pass) flat(x string, n int) string {
	t := p.Attr("Transpose", []pb.Attribute{pb.AttrInts("perm", 0, 2, 1, 3)}, x)
	return p.Op("Reshape", t, p.B.Ints(0, 0, int64(n*p.c.HeadDim)))
}

// repeatKV shares each KV head with rep query heads (HF's repeat_kv).
func (p *Pass) repeatKV(x string, rep int64) string {
	e := p.Op("Expand", p.unsqueeze(x, 2), p.B.Ints(1, 1, rep, 1, 1))
	return p.Op("Reshape", e, p.B.Ints(0, int64(p.c.Heads), -1, int64(p.c.HeadDim)))
}
