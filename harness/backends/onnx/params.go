package onnx

import (
	"fmt"
	"os"
	"path/filepath"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	ort "github.com/yalue/onnxruntime_go"
)

// initializer is one stored tensor of the graph: its shape, not its data.
type initializer struct {
	name  string
	dims  []int64
	dtype pb.DataType
}

// node is the part of a graph node the parameter count needs.
type node struct {
	op      string
	domain  string // "" for ONNX's own operators
	inputs  []string
	outputs []string
	ints    map[string]int64
}

// graphSummary is an ONNX file read without its tensor data, subgraphs
// (the branches of a merged decoder's If) flattened into it.
type graphSummary struct {
	inits []initializer
	nodes []node
	// external lists the data files initializers are stored in, as the
	// model file names them (onnxpb's ExternalLocations).
	external []string
	// inputs and outputs are the main graph's, as ONNX Runtime lists a
	// session's: inputs an initializer backs are left out.
	inputs, outputs []ort.InputOutputInfo
}

// readGraphSummary reads an ONNX file with onnxpb, skipping tensor data,
// so that a multi-gigabyte model costs a few reads rather than its size in
// memory. It returns the parse too, which the head split reuses.
func readGraphSummary(path string) (*graphSummary, *pb.Model, error) {
	m, err := pb.ReadFile(path, pb.ReadOptions{SkipData: true})
	if err != nil {
		return nil, nil, err
	}
	return summarize(m), m, nil
}

// summarize is m's summary.
func summarize(m *pb.Model) *graphSummary {
	g := &graphSummary{external: m.ExternalLocations()}
	if m.Graph != nil {
		g.inputs, g.outputs = signature(m.Graph)
	}
	for _, pg := range m.Graphs() {
		for _, n := range pg.Nodes {
			nd := node{op: n.OpType, domain: n.Domain, inputs: n.Inputs, outputs: n.Outputs, ints: map[string]int64{}}
			for _, a := range n.Attrs {
				if a.Type == pb.AttrIntType && a.Name != "" {
					nd.ints[a.Name] = a.I
				}
			}
			g.nodes = append(g.nodes, nd)
		}
		for _, t := range pg.Initializers {
			g.inits = append(g.inits, initializer{name: t.Name, dims: t.Dims, dtype: t.DataType})
		}
	}
	return g
}

// signature is g's inputs and outputs in ONNX Runtime's terms. Reading
// them here rather than from a session ONNX Runtime loads saves that
// load: seconds for a model of a few hundred megabytes, as much as
// creating the session that runs it.
func signature(g *pb.Graph) (ins, outs []ort.InputOutputInfo) {
	backed := map[string]bool{}
	for _, t := range g.Initializers {
		backed[t.Name] = true
	}
	for _, v := range g.Inputs {
		if !backed[v.Name] {
			ins = append(ins, ioInfo(v))
		}
	}
	for _, v := range g.Outputs {
		outs = append(outs, ioInfo(v))
	}
	return ins, outs
}

// ioInfo converts v as ONNX Runtime reports it: symbolic dimensions are
// -1 (an unset one reads 0 here; discoverIO takes both as unknown), and
// ONNX's element type numbers are ONNX Runtime's.
func ioInfo(v *pb.ValueInfo) ort.InputOutputInfo {
	info := ort.InputOutputInfo{Name: v.Name, OrtValueType: ort.ONNXTypeUnknown}
	if v.ElemType == 0 {
		return info // a sequence, map or optional: no tensor
	}
	info.OrtValueType = ort.ONNXTypeTensor
	info.DataType = ort.TensorElementDataType(v.ElemType)
	info.Dimensions = make(ort.Shape, len(v.Shape))
	for i, d := range v.Shape {
		info.Dimensions[i] = d.Value
		if d.Param != "" {
			info.Dimensions[i] = -1
		}
	}
	return info
}

// hasOp reports whether any node, in any subgraph, is an op of that type.
func (g *graphSummary) hasOp(op string) bool {
	for _, n := range g.nodes {
		if n.op == op {
			return true
		}
	}
	return false
}

// paramCount counts the weights the initializers hold: floating-point
// tensors of more than one element, and the integer weights quantization
// operators read. Index and shape constants and scalars are not weights;
// quantization scales and zero points are metadata; packed low-bit
// weights count as the matrix they encode (K×N, or 8/bits per byte). So a
// quantized export reports its original's count. Float constants such as
// a RoPE frequency table (head_dim/2 values) do count: nothing in the file
// tells them from weights, and they are a tiny fraction of any real model.
// The cos/sin tables that fused rotary operators read do not: they hold
// max_positions × head_dim/2 values each (12.6 million for a 128k-context
// Phi-3), and the operator names them.
func (g *graphSummary) paramCount() int64 {
	skip := map[string]bool{}
	weight := map[string]int64{} // integer weights: their logical size
	byName := map[string]initializer{}
	for _, in := range g.inits {
		byName[in.name] = in
	}
	input := func(n node, i int) string {
		if i < len(n.inputs) {
			return n.inputs[i]
		}
		return ""
	}
	size := func(name string) int64 { return elements(byName[name].dims) }
	actScale := dynamicScales(g.nodes)
	for _, n := range g.nodes {
		switch n.op {
		case "MatMulNBits", "MatMulBnb4":
			// B is packed; K and N give the matrix it encodes.
			if k, nn := n.ints["K"], n.ints["N"]; k > 0 && nn > 0 {
				weight[input(n, 1)] = k * nn
			}
			for i := 2; i < len(n.inputs); i++ {
				if n.op == "MatMulNBits" && i == 5 {
					continue // bias is a real parameter
				}
				skip[n.inputs[i]] = true
			}
		case "GatherBlockQuantized":
			bits := n.ints["bits"]
			if bits == 0 {
				bits = 4
			}
			if in, ok := byName[input(n, 0)]; ok {
				if in.dtype == pb.Uint8 || in.dtype == pb.Int8 {
					weight[in.name] = elements(in.dims) * (8 / bits)
				} else {
					weight[in.name] = elements(in.dims)
				}
			}
			skip[input(n, 2)], skip[input(n, 3)] = true, true
		case "GroupQueryAttention": // cos_cache, sin_cache
			skip[input(n, 7)], skip[input(n, 8)] = true, true
		case "RotaryEmbedding": // cos_cache, sin_cache
			if n.domain == "com.microsoft" {
				skip[input(n, 2)], skip[input(n, 3)] = true, true
			} else {
				skip[input(n, 1)], skip[input(n, 2)] = true, true // ONNX's, opset 23
			}
		case "DequantizeLinear":
			weight[input(n, 0)] = size(input(n, 0))
			skip[input(n, 1)], skip[input(n, 2)] = true, true
		case "MatMulInteger":
			weight[input(n, 1)] = size(input(n, 1))
			skip[input(n, 2)], skip[input(n, 3)] = true, true
		case "DynamicQuantizeMatMul":
			weight[input(n, 1)] = size(input(n, 1))
			skip[input(n, 2)], skip[input(n, 3)] = true, true
		case "Mul":
			// quantize_dynamic scales MatMulInteger's product by the
			// activation scale times the weight's: Mul(x_scale, W_scale).
			if len(n.inputs) == 2 && actScale[n.inputs[0]] {
				skip[n.inputs[1]] = true
			} else if len(n.inputs) == 2 && actScale[n.inputs[1]] {
				skip[n.inputs[0]] = true
			}
		}
	}
	var total int64
	for _, in := range g.inits {
		switch {
		case skip[in.name]:
		case weight[in.name] > 0:
			total += weight[in.name]
		case isFloat(in.dtype) && elements(in.dims) > 1:
			total += elements(in.dims)
		}
	}
	return total
}

// dynamicScales are DynamicQuantizeLinear's scale outputs: the
// activations' scale, computed per call.
func dynamicScales(nodes []node) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes {
		if n.op == "DynamicQuantizeLinear" && len(n.outputs) > 1 {
			out[n.outputs[1]] = true
		}
	}
	return out
}

// isFloat reports the floating-point TensorProto data types.
func isFloat(dtype pb.DataType) bool {
	switch dtype {
	case pb.Float, pb.Float16, pb.Double, pb.BFloat16:
		return true
	}
	return false
}

// fileBytes is the size of the model file and the external data files it
// refers to: about the bytes of weights every call reads. It fails when a
// data file is absent, which ORT would otherwise report as an opaque load
// failure.
func fileBytes(modelPath string, g *graphSummary) (int64, error) {
	st, err := os.Stat(modelPath)
	if err != nil {
		return 0, err
	}
	n := st.Size()
	for _, rel := range g.external {
		p := filepath.Join(filepath.Dir(modelPath), rel)
		st, err := os.Stat(p)
		if err != nil {
			return 0, fmt.Errorf("%s keeps its weights in %s, which is missing; download it too (it sits beside the .onnx file in the repository)", modelPath, p)
		}
		n += st.Size()
	}
	return n, nil
}

func elements(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}
