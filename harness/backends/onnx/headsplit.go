package onnx

import (
	"cmp"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// This file cuts a decoder at its LM head when the export has no
// logits-to-keep input. ONNX Runtime computes logits at every position,
// but scoring reads them only at scored positions and generation's
// prefill only at the last one; on small models the head is a large share
// of the work (about a fifth to a quarter of a token's cost for
// SmolLM2-135M and Qwen2.5-0.5B, more on the perf fixture). So at load
// the graph becomes two: the body (everything up to the head's input,
// reshaped to [rows, width] hidden states, and the cache) and the head
// (hidden rows → logits), which runs only on the positions a call reads.

// rewrite is what every graph rewritten at load shares: its weights are
// external data in dir, where they already lay (referStored), and
// kvGrouped counts its attention products that read shared key/value
// heads unrepeated (groupSharedKV).
type rewrite struct {
	dir       string
	kvGrouped int
}

// headSplit is a model cut in two, serialised for ONNX Runtime.
type headSplit struct {
	rewrite
	body, head []byte
	// hidden is the head's input: the body's output of that name, and the
	// head's input of the same name.
	hidden string
	dtype  pb.DataType
	width  int // hidden size: the head's input has [rows, width]
}

// wholeGraph is a model rewritten but not split, serialised like a
// split's halves.
type wholeGraph struct {
	rewrite
	model []byte
}

// hiddenType is the hidden states' element type, as ONNX Runtime names it.
func (s *headSplit) hiddenType() ort.TensorElementDataType {
	if s.dtype == pb.Float16 {
		return ort.TensorElementDataTypeFloat16
	}
	return ort.TensorElementDataTypeFloat
}

// hiddenSize is the byte size of one hidden element.
func (s *headSplit) hiddenSize() int { return s.dtype.Size() }

// sessionSource is what a model's runners are created from: the file, its
// split when the head could be cut off, or else the whole graph rewritten
// when its attention repeats shared key/value heads (groupSharedKV). A
// rewrite ONNX Runtime refuses falls back to the file.
type sessionSource struct {
	file  string
	spec  *ioSpec
	split *headSplit
	whole *wholeGraph
	built bool // a checkpoint's graph: no file to fall back to
}

// newSessionSource rewrites the model at file (m, read with SkipData,
// which it changes) once, at load: the attention reads key/value heads
// that groups shares unrepeated, and the graph is cut at its head unless
// the export computes only the logits asked for itself (a logits-to-keep
// input) or the cut is not possible, which it says once. Uncut, the
// graph is written back whole if the attention was rewritten, or if it
// was built (from a checkpoint, file its first weight file): there is no
// file to run then, so a graph that cannot be written is an error.
func newSessionSource(file string, m *pb.Model, spec *ioSpec, groups kvGroups, built bool) (*sessionSource, error) {
	src := &sessionSource{file: file, spec: spec, built: built}
	rw, err := prepareRewrite(file, m, groups)
	if err != nil {
		if built {
			return nil, fmt.Errorf("the graph built for %s: %w", file, err)
		}
		if spec.keepInput == "" {
			noteNoSplit(file, err)
		}
		return src, nil
	}
	if spec.keepInput == "" {
		split, err := planHeadSplit(m, spec.vocab, rw)
		if err == nil {
			src.split = split
			return src, nil
		}
		noteNoSplit(file, err)
	}
	if rw.kvGrouped > 0 || built {
		model, err := m.Marshal()
		switch {
		case err == nil:
			src.whole = &wholeGraph{rewrite: rw, model: model}
		case built:
			return nil, fmt.Errorf("the graph built for %s: %w", file, err)
		}
	}
	return src, nil
}

// prepareRewrite readies the model at path (m, read with SkipData, which
// it changes) to be written back for ONNX Runtime: it refuses what
// onnxpb would not write back as it is, refers every weight to where its
// data already lies, in path itself or in the export's external data
// file (so a rewrite costs neither a copy of the weights in memory nor
// the 2 GiB limit of one protobuf), and has the attention read key/value
// heads that groups shares unrepeated.
func prepareRewrite(path string, m *pb.Model, groups kvGroups) (rewrite, error) {
	if err := checkRoundTrip(m); err != nil {
		return rewrite{}, err
	}
	dir, err := referStored(path, m)
	if err != nil {
		return rewrite{}, err
	}
	return rewrite{dir: dir, kvGrouped: groupSharedKV(m.Graph, groups)}, nil
}

func (s *sessionSource) newRunner(provider string, deviceID, threads int) (*runner, error) {
	r, rewriteErr := newRunner(s.file, s.spec, s.split, s.whole, provider, deviceID, threads)
	if rewriteErr == nil || s.split == nil && s.whole == nil || s.built {
		return r, rewriteErr
	}
	r, err := newRunner(s.file, s.spec, nil, nil, provider, deviceID, threads)
	if err != nil {
		return nil, err // the model fails whole too: that is the error to report
	}
	if s.split != nil {
		noteNoSplit(s.file, rewriteErr)
	} else {
		noteOnce(fmt.Sprintf("onnx: %s: running the graph as exported, as ONNX Runtime refused it with shared key/value heads read unrepeated: %v", s.file, rewriteErr))
	}
	s.split, s.whole = nil, nil
	return r, nil
}

var (
	// logf reports a model whose logits are computed at every position,
	// or whose rewritten graph ONNX Runtime refused; tests replace it.
	logf   = log.Printf
	noteMu sync.Mutex
	noted  = map[string]bool{}
)

// noteNoSplit says, once per file and process, that the model runs whole.
func noteNoSplit(file string, why error) {
	noteOnce(fmt.Sprintf("onnx: %s: computing logits at every position, as the LM head cannot be split off: %v", file, why))
}

// noteOnce logs line once per process.
func noteOnce(line string) {
	noteMu.Lock()
	defer noteMu.Unlock()
	if noted[line] {
		return
	}
	noted[line] = true
	logf("%s", line)
}

// Names the split adds to the body graph.
const (
	splitHidden      = "feather_split_hidden"
	splitHiddenShape = "feather_split_hidden_shape"
)

// planHeadSplit cuts m, made ready by prepareRewrite (rw), at its head,
// or says why it cannot. The halves hold no weights, only where they lie,
// so ONNX Runtime reads them from the model's folder (newRunner tells it
// where).
func planHeadSplit(m *pb.Model, vocab int, rw rewrite) (*headSplit, error) {
	g := m.Graph
	h, err := findHead(g, vocab)
	if err != nil {
		return nil, err
	}
	s := &headSplit{rewrite: rw, hidden: h.input, dtype: h.dtype, width: h.width}
	body := bodyGraph(g, h)
	head := headGraph(g, h)
	if s.body, err = marshalGraph(m, body); err != nil {
		return nil, err
	}
	if s.head, err = marshalGraph(m, head); err != nil {
		return nil, err
	}
	return s, nil
}

// referStored makes every initializer of at least minExternalBytes whose
// data a SkipData read left in path external data read from path, and
// reads the rest back inline: ONNX's shape inference reads small
// initializers (axes, shapes) while ONNX Runtime loads the graph, before
// any external data. An initializer already external keeps its file; one
// that runs to the end of its file gets its length, which Marshal
// checks. dir is the folder the locations are relative to (dataFiles).
func referStored(path string, m *pb.Model) (dir string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	inline := func(t *pb.Tensor) error {
		t.Raw = make([]byte, t.Stored.Length)
		if _, err := f.ReadAt(t.Raw, t.Stored.Offset); err != nil {
			return fmt.Errorf("reading %s's data: %w", t.Name, err)
		}
		t.Stored = nil
		return nil
	}
	files := dataFiles{from: filepath.Dir(path)}
	for _, g := range m.Graphs() {
		for _, t := range g.Initializers {
			if e := t.External; e != nil && e.Length == 0 {
				e.Length = t.Elements() * int64(t.DataType.Size())
			}
			switch {
			case t.External != nil:
				if t.External.Location, err = files.locate(t.External.Location); err != nil {
					return "", err
				}
			case t.Stored == nil:
			case t.Stored.Length >= minExternalBytes:
				loc, err := files.locate(filepath.Base(path))
				if err != nil {
					return "", err
				}
				t.External, t.Stored = &pb.External{Location: loc, Offset: t.Stored.Offset, Length: t.Stored.Length}, nil
			default:
				if err := inline(t); err != nil {
					return "", err
				}
			}
		}
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				if a.T != nil && a.T.Stored != nil {
					if err := inline(a.T); err != nil {
						return "", err
					}
				}
			}
		}
	}
	return cmp.Or(files.dir, filepath.Dir(path)), nil // the model's folder when nothing is external
}

// dataFiles places the files a split's weights are read from. ONNX
// Runtime refuses external data that resolves outside the folder it is
// given, and a Hugging Face cache's model folder holds symbolic links
// into its blobs folder; so each file is named by its resolved path,
// relative to the one folder they must all resolve into.
type dataFiles struct {
	from  string            // the model file's folder, which locations are relative to
	dir   string            // the folder the files resolve into; "" until one is placed
	names map[string]string // locations placed, to their resolved names
}

// locate names location (relative to from) by its resolved file, once
// per location.
func (d *dataFiles) locate(location string) (string, error) {
	if name, ok := d.names[location]; ok {
		return name, nil
	}
	real, err := filepath.EvalSymlinks(filepath.Join(d.from, location))
	if err != nil {
		return "", err
	}
	dir, name := filepath.Split(real)
	dir = filepath.Clean(dir)
	if d.dir == "" {
		d.dir = dir
	}
	if dir != d.dir {
		return "", fmt.Errorf("the weights lie in two folders, %s and %s, and ONNX Runtime reads a split's from one", d.dir, dir)
	}
	if d.names == nil {
		d.names = map[string]string{}
	}
	d.names[location] = name
	return name, nil
}

// minExternalBytes is the least data a split leaves in the file, as
// exporters leave data external (onnx's default threshold).
const minExternalBytes = 1024

func marshalGraph(m *pb.Model, g *pb.Graph) ([]byte, error) {
	out := *m
	out.Graph = g
	return out.Marshal()
}

// lmHead is the recognised head: op (MatMul, Gemm or MatMulNBits) reads
// input, the final hidden states, and weights computed from initializers
// only by weightNodes; post (Identity, Cast, Reshape) leads from op to
// logits.
type lmHead struct {
	op          *pb.Node
	input       string
	weightNodes []*pb.Node
	post        []*pb.Node // from op towards logits
	dtype       pb.DataType
	width       int
}

// findHead walks back from the logits output to the MatMul, Gemm or
// MatMulNBits that computes them.
func findHead(g *pb.Graph, vocab int) (*lmHead, error) {
	producer := map[string]*pb.Node{}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			producer[o] = n
		}
	}
	h := &lmHead{}
	cur := outLogits
	for {
		n := producer[cur]
		if n == nil {
			return nil, errors.New("no node of the main graph computes logits")
		}
		switch n.OpType {
		case "Identity", "Cast", "Reshape":
			h.post = append([]*pb.Node{n}, h.post...)
			cur = n.Inputs[0]
			continue
		case "MatMul", "Gemm", "MatMulNBits":
			h.op = n
		case "If":
			return nil, errors.New("logits come from an If (a merged decoder), whose branches each hold the head")
		default:
			return nil, fmt.Errorf("logits come from %s, not from a MatMul, Gemm or MatMulNBits head", n.OpType)
		}
		break
	}
	h.input = h.op.Inputs[0]
	if h.op.OpType == "MatMulNBits" {
		return nbitsHead(h, initializerMap(g), vocab)
	}
	if h.op.Domain != "" {
		return nil, fmt.Errorf("the head is %s of domain %q, not ONNX's", h.op.OpType, h.op.Domain)
	}
	w := weightResolver{g: g, producer: producer, inits: initializerMap(g)}
	wt, err := w.resolve(h.op.Inputs[1])
	if err != nil {
		return nil, fmt.Errorf("the head's weight: %w", err)
	}
	if h.op.OpType == "Gemm" && len(h.op.Inputs) > 2 && h.op.Inputs[2] != "" {
		if _, err := w.resolve(h.op.Inputs[2]); err != nil {
			return nil, fmt.Errorf("the head's bias: %w", err)
		}
	}
	if len(wt.dims) != 2 {
		return nil, fmt.Errorf("the head's weight has shape %v, not a matrix", wt.dims)
	}
	width, out := wt.dims[0], wt.dims[1]
	if h.op.OpType == "Gemm" {
		if attrInt(h.op, "transA", 0) != 0 {
			return nil, errors.New("the head is a Gemm with transA, which no exporter writes")
		}
		if attrInt(h.op, "transB", 0) != 0 {
			width, out = out, width
		}
	}
	if int(out) != vocab {
		return nil, fmt.Errorf("the head's weight has %d outputs, not the vocabulary's %d", out, vocab)
	}
	if wt.dtype != pb.Float && wt.dtype != pb.Float16 {
		return nil, fmt.Errorf("the head computes in element type %d; float32 and float16 heads are split", wt.dtype)
	}
	h.weightNodes, h.dtype, h.width = w.nodes, wt.dtype, int(width)
	return h, nil
}

// nbitsHead is a 4-bit (or other n-bit) head as ONNX Runtime's quantizer
// writes it: com.microsoft's MatMulNBits reading stored weights (packed
// B, scales, zero points, bias), its shape in the K and N attributes, and
// computing in its scales' element type.
func nbitsHead(h *lmHead, inits map[string]*pb.Tensor, vocab int) (*lmHead, error) {
	if h.op.Domain != "com.microsoft" {
		return nil, fmt.Errorf("the head is MatMulNBits of domain %q, not com.microsoft's", h.op.Domain)
	}
	for _, in := range h.op.Inputs[1:] {
		if in != "" && inits[in] == nil {
			return nil, fmt.Errorf("the head's MatMulNBits reads %s, which is not a stored weight", in)
		}
	}
	k, n := attrInt(h.op, "K", 0), attrInt(h.op, "N", 0)
	if int(n) != vocab || k <= 0 {
		return nil, fmt.Errorf("the head's MatMulNBits has K=%d, N=%d outputs, not the vocabulary's %d", k, n, vocab)
	}
	if len(h.op.Inputs) < 3 || inits[h.op.Inputs[2]] == nil {
		return nil, errors.New("the head's MatMulNBits has no scales")
	}
	h.dtype, h.width = inits[h.op.Inputs[2]].DataType, int(k)
	if h.dtype != pb.Float && h.dtype != pb.Float16 {
		return nil, fmt.Errorf("the head computes in element type %d; float32 and float16 heads are split", h.dtype)
	}
	return h, nil
}

func attrInt(n *pb.Node, name string, def int64) int64 {
	for _, a := range n.Attrs {
		if a.Name == name && a.Type == pb.AttrIntType {
			return a.I
		}
	}
	return def
}

// attrInts is n's list-of-ints attribute name; ok is false without one.
func attrInts(n *pb.Node, name string) (v []int64, ok bool) {
	for _, a := range n.Attrs {
		if a.Name == name && a.Type == pb.AttrIntsType {
			return a.Ints, true
		}
	}
	return nil, false
}

// constantValue is a Constant node's tensor (its value attribute); nil
// for another node or another form of Constant.
func constantValue(n *pb.Node) *pb.Tensor {
	if n.OpType != "Constant" || n.Domain != "" {
		return nil
	}
	for _, a := range n.Attrs {
		if a.Name == "value" && a.T != nil {
			return a.T
		}
	}
	return nil
}

func initializerMap(g *pb.Graph) map[string]*pb.Tensor {
	out := map[string]*pb.Tensor{}
	for _, t := range g.Initializers {
		out[t.Name] = t
	}
	return out
}

// weightResolver follows a head's weight back to initializers through the
// operators exports put there: Transpose (a tied head), Cast (float16
// weights computed in float32), DequantizeLinear (8-bit weights),
// Identity and Constant. nodes collects them in graph order.
type weightResolver struct {
	g        *pb.Graph
	producer map[string]*pb.Node
	inits    map[string]*pb.Tensor
	nodes    []*pb.Node
}

type weightType struct {
	dtype pb.DataType
	dims  []int64
}

func (w *weightResolver) resolve(name string) (weightType, error) {
	if t, ok := w.inits[name]; ok {
		return weightType{t.DataType, t.Dims}, nil
	}
	n := w.producer[name]
	if n == nil {
		return weightType{}, fmt.Errorf("%s is a graph input, not a stored weight", name)
	}
	if n.Domain != "" {
		return weightType{}, fmt.Errorf("%s comes from %s of domain %q", name, n.OpType, n.Domain)
	}
	var out weightType
	switch n.OpType {
	case "Constant":
		t := constantValue(n)
		if t == nil {
			return out, fmt.Errorf("%s is a Constant without a tensor value", name)
		}
		out = weightType{t.DataType, t.Dims}
	case "Identity", "Cast", "Transpose", "DequantizeLinear":
		for i, in := range n.Inputs {
			if in == "" {
				continue
			}
			t, err := w.resolve(in)
			if err != nil {
				return out, err
			}
			switch {
			case i == 0:
				out = t
			case i == 1 && n.OpType == "DequantizeLinear":
				out.dtype = t.dtype // the scale's type
			}
		}
		var err error
		if out, err = applyWeightOp(n, out); err != nil {
			return out, err
		}
	default:
		return out, fmt.Errorf("%s comes from %s; a split head's weight may pass only through Transpose, Cast, DequantizeLinear and Identity", name, n.OpType)
	}
	if !slices.Contains(w.nodes, n) {
		w.nodes = append(w.nodes, n)
	}
	return out, nil
}

// applyWeightOp is the type and shape a weight operator produces.
func applyWeightOp(n *pb.Node, in weightType) (weightType, error) {
	switch n.OpType {
	case "Cast":
		in.dtype = pb.DataType(attrInt(n, "to", 0))
	case "Transpose":
		perm, ok := attrInts(n, "perm")
		if !ok {
			perm = []int64{1, 0}
		}
		if len(in.dims) != 2 || !slices.Equal(perm, []int64{1, 0}) {
			return in, fmt.Errorf("the weight's Transpose has perm %v on shape %v", perm, in.dims)
		}
		in.dims = []int64{in.dims[1], in.dims[0]}
	}
	return in, nil
}

// supportedAttrs are the attribute types onnxpb reads and writes back; a
// model with any other cannot be rewritten faithfully.
var supportedAttrs = []pb.AttrType{pb.AttrFloatType, pb.AttrIntType, pb.AttrStringType, pb.AttrTensorType,
	pb.AttrGraphType, pb.AttrFloatsType, pb.AttrIntsType, pb.AttrGraphsType}

// checkRoundTrip refuses models that onnxpb would not write back as they
// are: attribute types it does not keep, tensors whose data sits in typed
// fields rather than raw_data.
func checkRoundTrip(m *pb.Model) error {
	for _, g := range m.Graphs() {
		for _, t := range g.Initializers {
			if err := checkTensorData(t); err != nil {
				return err
			}
		}
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				if !slices.Contains(supportedAttrs, a.Type) {
					return fmt.Errorf("node %q has an attribute %q of type %d, which the graph rewriter does not keep", n.Name, a.Name, a.Type)
				}
				if a.T != nil {
					if err := checkTensorData(a.T); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func checkTensorData(t *pb.Tensor) error {
	if t.Raw == nil && t.External == nil && t.Stored == nil && t.Elements()*int64(t.DataType.Size()) > 0 {
		return fmt.Errorf("tensor %q keeps its data in a typed field, which the graph rewriter does not copy", t.Name)
	}
	if t.DataType.Size() == 0 {
		return fmt.Errorf("tensor %q has element type %d, which the graph rewriter does not know", t.Name, t.DataType)
	}
	return nil
}

// bodyGraph is g without the head: its outputs are the head's input as
// [rows, width] hidden states, then every output but logits; nodes and
// initializers nothing needs any more are dropped.
func bodyGraph(g *pb.Graph, h *lmHead) *pb.Graph {
	shape := pb.Int64Tensor(splitHiddenShape, []int64{2}, []int64{-1, int64(h.width)})
	reshape := &pb.Node{Name: "/feather/split/Reshape", OpType: "Reshape", Inputs: []string{h.input, splitHiddenShape}, Outputs: []string{splitHidden}}
	out := &pb.Graph{Name: g.Name, Inputs: g.Inputs}
	out.Outputs = append(out.Outputs, &pb.ValueInfo{Name: splitHidden, ElemType: h.dtype, Shape: []pb.Dim{pb.P("rows"), pb.D(int64(h.width))}})
	for _, o := range g.Outputs {
		if o.Name != outLogits {
			out.Outputs = append(out.Outputs, o)
		}
	}
	out.Nodes = append(slices.Clone(g.Nodes), reshape)
	out.Initializers = append(slices.Clone(g.Initializers), shape)
	out.ValueInfo = g.ValueInfo
	prune(out)
	return out
}

// headGraph computes logits [rows, vocab] from hidden rows [rows, width]:
// the weight's nodes, the head, and the casts after it (reshapes dropped:
// the rows are already flat).
func headGraph(g *pb.Graph, h *lmHead) *pb.Graph {
	nodes := slices.Clone(h.weightNodes)
	nodes = append(nodes, h.op)
	x := h.op.Outputs[0]
	for _, n := range h.post {
		if n.OpType == "Reshape" {
			continue
		}
		c := *n
		c.Inputs = append([]string{x}, n.Inputs[1:]...)
		nodes = append(nodes, &c)
		x = c.Outputs[0]
	}
	if x != outLogits {
		nodes = append(nodes, &pb.Node{Name: "/feather/head/Identity", OpType: "Identity", Inputs: []string{x}, Outputs: []string{outLogits}})
	}
	logitsType := h.dtype
	for _, o := range g.Outputs {
		if o.Name == outLogits {
			logitsType = o.ElemType
		}
	}
	out := &pb.Graph{Name: g.Name + "_head"}
	out.Inputs = []*pb.ValueInfo{{Name: h.input, ElemType: h.dtype, Shape: []pb.Dim{pb.P("rows"), pb.D(int64(h.width))}}}
	out.Outputs = []*pb.ValueInfo{{Name: outLogits, ElemType: logitsType, Shape: []pb.Dim{pb.P("rows"), pb.P("vocab")}}}
	out.Nodes, out.Initializers = liveNodes(nodes, g.Initializers, []string{outLogits})
	return out
}

// prune drops what g's outputs no longer need (a rewrite's Unsqueeze,
// Expand and Reshape and whatever computed their shapes, the nodes a cut
// leaves behind) and the value infos of what is gone.
func prune(g *pb.Graph) {
	var want []string
	for _, o := range g.Outputs {
		want = append(want, o.Name)
	}
	g.Nodes, g.Initializers = liveNodes(g.Nodes, g.Initializers, want)
	g.ValueInfo = producedInfo(g.ValueInfo, g.Nodes)
}

// liveNodes keeps, in order, the nodes the wanted values depend on and
// the initializers they read (a node with subgraphs reads whatever its
// subgraphs name).
func liveNodes(nodes []*pb.Node, inits []*pb.Tensor, want []string) ([]*pb.Node, []*pb.Tensor) {
	live := map[string]bool{}
	for _, w := range want {
		live[w] = true
	}
	keep := make([]bool, len(nodes))
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if !slices.ContainsFunc(n.Outputs, func(o string) bool { return live[o] }) {
			continue
		}
		keep[i] = true
		for _, in := range nodeReads(n) {
			live[in] = true
		}
	}
	var outNodes []*pb.Node
	for i, n := range nodes {
		if keep[i] {
			outNodes = append(outNodes, n)
		}
	}
	var outInits []*pb.Tensor
	for _, t := range inits {
		if live[t.Name] {
			outInits = append(outInits, t)
		}
	}
	return outNodes, outInits
}

// nodeReads is every value a node reads: its inputs and, for control
// flow, every name its subgraphs' nodes read.
func nodeReads(n *pb.Node) []string {
	out := slices.Clone(n.Inputs)
	for _, g := range subgraphs(n) {
		for _, sn := range g.Nodes {
			out = append(out, nodeReads(sn)...)
		}
		for _, o := range g.Outputs {
			out = append(out, o.Name)
		}
	}
	return out
}

// subgraphs is every graph n's attributes hold (control flow's branches
// and bodies).
func subgraphs(n *pb.Node) []*pb.Graph {
	var out []*pb.Graph
	for _, a := range n.Attrs {
		if a.G != nil {
			out = append(out, a.G)
		}
		out = append(out, a.Graphs...)
	}
	return out
}

// producedInfo keeps the value infos of values the nodes still produce.
func producedInfo(infos []*pb.ValueInfo, nodes []*pb.Node) []*pb.ValueInfo {
	made := map[string]bool{}
	for _, n := range nodes {
		for _, o := range n.Outputs {
			made[o] = true
		}
	}
	var out []*pb.ValueInfo
	for _, v := range infos {
		if made[v.Name] {
			out = append(out, v)
		}
	}
	return out
}
