package onnx

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// This file rewrites grouped-query attention as exporters write Hugging
// Face's repeat_kv (Unsqueeze at axis 2, Expand, Reshape), which copies
// each layer's keys and values once per query head that shares them, at
// every call, before multiplying. On the SmolLM2 shape that copy was 15%
// of a decoding step's node time in ONNX Runtime's profiler. Query heads
// are numbered key/value head first (head h reads key/value head
// h / rep), so the queries [batch, heads, seq, x] reshaped to [batch,
// kv_heads, rep·seq, x] stack each key/value head's queries, which then
// multiply the unrepeated keys or values directly; the product is
// reshaped back to [batch, heads, seq, y]. Each output is the same dot
// product of the same numbers, though ONNX Runtime's kernels may add a
// decoding step's products in another order, since the step now
// multiplies rep query rows a key/value head instead of one a head:
// logits move within float32 rounding (TestGroupedDecodingMatchesFile).

// kvGroups is how query heads share key/value heads (config.json).
type kvGroups struct{ heads, kvHeads int }

// rep is how many query heads share each key/value head; 1 when none
// share or the config is not a grouping.
func (k kvGroups) rep() int {
	if k.kvHeads <= 0 || k.heads <= k.kvHeads || k.heads%k.kvHeads != 0 {
		return 1
	}
	return k.heads / k.kvHeads
}

// Names the rewrite adds.
const (
	kvGroupedShape = "feather_kv_grouped_shape" // [0, kv_heads, -1, 0]
	kvHeadsShape   = "feather_kv_heads_shape"   // [0, heads, -1, 0]
	kvSuffix       = "/feather_kv"
)

// groupSharedKV rewrites every repeat_kv in g or its subgraphs (a merged
// decoder's If branches) whose repeated keys or values reach a MatMul
// only through Transpose, a Mul or Div by one number, or Cast, and
// returns how many MatMuls it rewrote. It starts only from a graph's
// cache (a present output, or what one is an Identity or Cast of), whose
// shape [batch, kv_heads, total, head_dim] the model's inputs and
// outputs are checked against, and leaves any other graph as it is.
func groupSharedKV(g *pb.Graph, k kvGroups) int {
	if k.rep() == 1 {
		return 0
	}
	n := groupGraph(g, k, nil)
	if n == 0 {
		return 0
	}
	g.Initializers = append(g.Initializers,
		pb.Int64Tensor(kvGroupedShape, []int64{4}, []int64{0, int64(k.kvHeads), -1, 0}),
		pb.Int64Tensor(kvHeadsShape, []int64{4}, []int64{0, int64(k.heads), -1, 0}))
	prune(g)
	return n
}

// groupGraph rewrites the sites of g and of its subgraphs (a merged
// decoder's If branches), whose enclosing graphs' constants are outer,
// and returns how many it rewrote. The shapes the rewrite reads are the
// outermost graph's initializers, which every subgraph sees.
func groupGraph(g *pb.Graph, k kvGroups, outer map[string]*pb.Tensor) int {
	r := newKVReader(g, outer)
	var sites []kvSite
	for _, n := range g.Nodes {
		if s, ok := r.site(n, int64(k.rep()), int64(k.heads)); ok {
			sites = append(sites, s)
		}
	}
	count := len(sites)
	for _, n := range g.Nodes {
		for _, sub := range subgraphs(n) {
			if c := groupGraph(sub, k, r.consts); c > 0 {
				count += c
				prune(sub)
			}
		}
	}
	if len(sites) == 0 {
		return count
	}
	pre := map[*pb.Node]*pb.Node{}
	post := map[*pb.Node]*pb.Node{}
	for _, s := range sites {
		s.rewire()
		y := s.mm.Outputs[0]
		grouped := y + kvSuffix + "_queries"
		pre[s.mm] = &pb.Node{Name: s.mm.Name + kvSuffix + "/Reshape", OpType: "Reshape", Inputs: []string{s.mm.Inputs[0], kvGroupedShape}, Outputs: []string{grouped}}
		s.mm.Inputs[0] = grouped
		s.mm.Outputs[0] = y + kvSuffix
		// A product scaled by one number is reshaped back after the
		// scaling, which ONNX Runtime then folds into the product, as it
		// did before the rewrite.
		last := s.mm
		if sc := r.only(y); sc != nil && r.scales(sc, y) {
			replaceInput(sc, y, s.mm.Outputs[0])
			y = sc.Outputs[0]
			sc.Outputs[0] = y + kvSuffix
			last = sc
		}
		post[last] = &pb.Node{Name: s.mm.Name + kvSuffix + "/Reshape_back", OpType: "Reshape", Inputs: []string{last.Outputs[0], kvHeadsShape}, Outputs: []string{y}}
	}
	var nodes []*pb.Node
	for _, n := range g.Nodes {
		if p := pre[n]; p != nil {
			nodes = append(nodes, p)
		}
		nodes = append(nodes, n)
		if p := post[n]; p != nil {
			nodes = append(nodes, p)
		}
	}
	g.Nodes = nodes
	return count
}

// kvSite is one repeat_kv and the MatMul that reads it: x (the cache
// value) → Unsqueeze → Expand → Reshape → chain → mm's second input.
type kvSite struct {
	x     string
	from  string // the Reshape's output, which the chain (or mm) reads
	chain []*pb.Node
	mm    *pb.Node
}

// rewire makes the chain read x itself, renaming the chain's values,
// whose head axis now holds kv_heads.
func (s kvSite) rewire() {
	old, new := s.from, s.x
	for _, n := range s.chain {
		replaceInput(n, old, new)
		old, new = n.Outputs[0], n.Outputs[0]+kvSuffix
		n.Outputs[0] = new
	}
	replaceInput(s.mm, old, new)
}

func replaceInput(n *pb.Node, old, new string) {
	for i, in := range n.Inputs {
		if in == old {
			n.Inputs[i] = new
		}
	}
}

// kvReader answers what the rewrite asks of a graph: who computes and
// who reads each value, and which values are constants.
type kvReader struct {
	producer map[string]*pb.Node
	readers  map[string][]*pb.Node
	outputs  map[string]bool
	consts   map[string]*pb.Tensor
	rank     map[string]int // declared ranks (value infos), where known
}

// newKVReader reads g, a subgraph of graphs whose constants are outer
// (nil for the main graph).
func newKVReader(g *pb.Graph, outer map[string]*pb.Tensor) *kvReader {
	r := &kvReader{producer: map[string]*pb.Node{}, readers: map[string][]*pb.Node{},
		outputs: map[string]bool{}, consts: maps.Clone(outer), rank: map[string]int{}}
	if r.consts == nil {
		r.consts = map[string]*pb.Tensor{}
	}
	maps.Copy(r.consts, initializerMap(g))
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			r.producer[o] = n
		}
		// A value a subgraph reads counts as read by the node that holds
		// the subgraph, so it is never taken for a single reader's.
		for _, in := range nodeReads(n) {
			r.readers[in] = append(r.readers[in], n)
		}
		if t := constantValue(n); t != nil {
			r.consts[n.Outputs[0]] = t
		}
	}
	for _, o := range g.Outputs {
		r.outputs[o.Name] = true
	}
	for _, v := range slices.Concat(g.Inputs, g.Outputs, g.ValueInfo) {
		if v.Shape != nil {
			r.rank[v.Name] = len(v.Shape)
		}
	}
	return r
}

// only returns v's one reader, if it has exactly one and is not a graph
// output.
func (r *kvReader) only(v string) *pb.Node {
	if rs := r.readers[v]; len(rs) == 1 && !r.outputs[v] {
		return rs[0]
	}
	return nil
}

// ints is a constant int64 tensor's values; ok false when v is not one.
func (r *kvReader) ints(v string) (out []int64, ok bool) {
	t := r.consts[v]
	if t == nil || t.DataType != pb.Int64 || t.Raw == nil || len(t.Raw) != 8*int(t.Elements()) {
		return nil, false
	}
	for i := 0; i < len(t.Raw); i += 8 {
		out = append(out, int64(binary.LittleEndian.Uint64(t.Raw[i:])))
	}
	return out, true
}

// scalar says whether v is one number the same for every head: a
// constant of one element, or a scale computed from one, or from one
// dimension of a shape, through Sqrt, Cast, Reciprocal, Mul, Div and Pow
// (torch's exporter writes attention's default scale, 1/√head_dim, from
// the queries' shape).
func (r *kvReader) scalar(v string) bool {
	if t := r.consts[v]; t != nil {
		return t.Elements() == 1
	}
	n := r.producer[v]
	if n == nil || n.Domain != "" || len(n.Inputs) == 0 {
		return false
	}
	switch n.OpType {
	case "Sqrt", "Cast", "Reciprocal":
		return r.scalar(n.Inputs[0])
	case "Mul", "Div", "Pow":
		return len(n.Inputs) == 2 && r.scalar(n.Inputs[0]) && r.scalar(n.Inputs[1])
	case "Gather", "Slice":
		return r.oneDim(n)
	}
	return false
}

// oneDim says whether n picks one dimension out of a Shape: a Gather at
// one constant index, or a Slice of one constant step from a constant
// start (-1 to the end, or i to i+1).
func (r *kvReader) oneDim(n *pb.Node) bool {
	if src := r.producer[n.Inputs[0]]; src == nil || src.OpType != "Shape" || src.Domain != "" {
		return false
	}
	if n.OpType == "Gather" {
		return len(n.Inputs) == 2 && r.consts[n.Inputs[1]] != nil && r.consts[n.Inputs[1]].Elements() == 1
	}
	if len(n.Inputs) < 3 || len(n.Inputs) > 4 && n.Inputs[4] != "" {
		return false
	}
	starts, ok1 := r.ints(n.Inputs[1])
	ends, ok2 := r.ints(n.Inputs[2])
	if !ok1 || !ok2 || len(starts) != 1 || len(ends) != 1 {
		return false
	}
	if len(n.Inputs) > 3 && n.Inputs[3] != "" {
		if axes, ok := r.ints(n.Inputs[3]); !ok || len(axes) != 1 || axes[0] != 0 && axes[0] != -1 {
			return false
		}
	}
	return starts[0] == -1 && ends[0] >= math.MaxInt32 || starts[0] >= 0 && ends[0] == starts[0]+1
}

// isCache says whether x is a present output or what one is copied or
// cast from.
func (r *kvReader) isCache(x string) bool {
	if r.outputs[x] {
		return true
	}
	for _, n := range r.readers[x] {
		if (n.OpType == "Identity" || n.OpType == "Cast") && n.Domain == "" && r.isCache(n.Outputs[0]) {
			return true
		}
	}
	return false
}

// site matches u as the start of a repeat_kv the rewrite can take.
func (r *kvReader) site(u *pb.Node, rep, heads int64) (kvSite, bool) {
	if u.OpType != "Unsqueeze" || u.Domain != "" || len(u.Inputs) == 0 {
		return kvSite{}, false
	}
	axes, ok := r.unsqueezeAxes(u)
	if !ok || !slices.Equal(axes, []int64{2}) && !slices.Equal(axes, []int64{-3}) {
		return kvSite{}, false
	}
	s := kvSite{x: u.Inputs[0]}
	if rk, known := r.rank[s.x]; known && rk != 4 || !r.isCache(s.x) {
		return kvSite{}, false
	}
	e := r.only(u.Outputs[0])
	if e == nil || e.OpType != "Expand" || e.Domain != "" || e.Inputs[0] != u.Outputs[0] {
		return kvSite{}, false
	}
	// A shape written out must repeat axis 2 rep times; a computed one
	// (exporters build it from the input's shape) is taken as written.
	if shape, ok := r.ints(e.Inputs[1]); ok && (len(shape) != 5 || shape[2] != rep) {
		return kvSite{}, false
	}
	re := r.only(e.Outputs[0])
	if re == nil || re.OpType != "Reshape" || re.Domain != "" || re.Inputs[0] != e.Outputs[0] {
		return kvSite{}, false
	}
	if shape, ok := r.ints(re.Inputs[1]); ok && (len(shape) != 4 || shape[1] != heads) {
		return kvSite{}, false
	}
	s.from = re.Outputs[0]
	cur := s.from
	for {
		n := r.only(cur)
		if n == nil || n.Domain != "" {
			return kvSite{}, false
		}
		switch {
		case n.OpType == "MatMul" && n.Inputs[1] == cur && n.Inputs[0] != cur:
			if rk, known := r.rank[n.Inputs[0]]; known && rk != 4 {
				return kvSite{}, false
			}
			s.mm = n
			return s, true
		case n.OpType == "Transpose" && r.keepsHeads(n), n.OpType == "Cast":
		case r.scales(n, cur):
		default:
			return kvSite{}, false
		}
		s.chain = append(s.chain, n)
		cur = n.Outputs[0]
	}
}

// scales says whether n multiplies v by one number, or divides it by one.
func (r *kvReader) scales(n *pb.Node, v string) bool {
	if n.Domain != "" || len(n.Inputs) != 2 || len(n.Outputs) != 1 {
		return false
	}
	switch n.OpType {
	case "Mul":
		return n.Inputs[0] == v && r.scalar(n.Inputs[1]) || n.Inputs[1] == v && r.scalar(n.Inputs[0])
	case "Div":
		return n.Inputs[0] == v && r.scalar(n.Inputs[1])
	}
	return false
}

// unsqueezeAxes reads Unsqueeze's axes: an attribute before opset 13, an
// input from it.
func (r *kvReader) unsqueezeAxes(u *pb.Node) ([]int64, bool) {
	if len(u.Inputs) > 1 {
		return r.ints(u.Inputs[1])
	}
	return attrInts(u, "axes")
}

// keepsHeads says whether a Transpose leaves batch and heads in place
// (the keys' [0, 1, 3, 2]), so it commutes with the repeat.
func (r *kvReader) keepsHeads(n *pb.Node) bool {
	perm, ok := attrInts(n, "perm")
	return ok && len(perm) == 4 && perm[0] == 0 && perm[1] == 1 // no perm reverses every axis
}
