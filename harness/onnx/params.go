package onnx

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers from onnx.proto.
const (
	modelGraph = 7

	graphNode        = 1
	graphInitializer = 5

	nodeInput     = 1
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDomain    = 7

	attrName   = 1
	attrInt    = 3
	attrGraph  = 6
	attrGraphs = 11

	tensorDims         = 1
	tensorDataType     = 2
	tensorName         = 8
	tensorExternalData = 13
	tensorDataLocation = 14

	entryKey   = 1
	entryValue = 2

	// TensorProto.DataType values that pack several weights per element.
	dtypeUint8 = 2
	dtypeInt8  = 3
)

// initializer is one stored tensor of the graph: its shape, not its data.
type initializer struct {
	name  string
	dims  []int64
	dtype int64
	// external is the data file of an initializer stored outside the model.
	external string
}

// node is the part of a graph node the parameter count needs.
type node struct {
	op     string
	inputs []string
	ints   map[string]int64
}

// graphSummary is an ONNX file read without its tensor data.
type graphSummary struct {
	inits []initializer
	nodes []node
}

// readGraphSummary streams an ONNX file, skipping tensor data, so that a
// multi-gigabyte model costs a few reads rather than its size in memory.
func readGraphSummary(path string) (*graphSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r := &pbReader{f: f, br: bufio.NewReaderSize(f, 1<<16)}
	g := &graphSummary{}
	err = r.message(st.Size(), func(num protowire.Number, typ protowire.Type, n int64) error {
		if num == modelGraph && typ == protowire.BytesType {
			return r.graph(n, g)
		}
		return r.skip(typ, n)
	})
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable ONNX model: %w", path, err)
	}
	return g, nil
}

// paramCount counts the weights the initializers hold: floating-point
// tensors of more than one element, and the integer weights quantization
// operators read. Index and shape constants and scalars are not weights;
// quantization scales and zero points are metadata; packed low-bit
// weights count as the matrix they encode (K×N, or 8/bits per byte). So a
// quantized export reports its original's count. Float constants such as
// a RoPE frequency table (head_dim/2 values) do count: nothing in the file
// tells them from weights, and they are a tiny fraction of any real model.
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
				if in.dtype == dtypeUint8 || in.dtype == dtypeInt8 {
					weight[in.name] = elements(in.dims) * (8 / bits)
				} else {
					weight[in.name] = elements(in.dims)
				}
			}
			skip[input(n, 2)], skip[input(n, 3)] = true, true
		case "DequantizeLinear":
			weight[input(n, 0)] = size(input(n, 0))
			skip[input(n, 1)], skip[input(n, 2)] = true, true
		case "MatMulInteger":
			weight[input(n, 1)] = size(input(n, 1))
			skip[input(n, 2)], skip[input(n, 3)] = true, true
		case "DynamicQuantizeMatMul":
			weight[input(n, 1)] = size(input(n, 1))
			skip[input(n, 2)], skip[input(n, 3)] = true, true
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

// isFloat reports the floating-point TensorProto data types.
func isFloat(dtype int64) bool {
	switch dtype {
	case 1, 10, 11, 16: // FLOAT, FLOAT16, DOUBLE, BFLOAT16
		return true
	}
	return false
}

// externalFiles lists the data files the initializers refer to.
func (g *graphSummary) externalFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, in := range g.inits {
		if in.external != "" && !seen[in.external] {
			seen[in.external] = true
			out = append(out, in.external)
		}
	}
	sort.Strings(out)
	return out
}

// checkExternalData fails when a data file the model refers to is absent,
// which ORT would otherwise report as an opaque load failure.
func checkExternalData(modelPath string, g *graphSummary) error {
	for _, rel := range g.externalFiles() {
		p := filepath.Join(filepath.Dir(modelPath), rel)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("%s keeps its weights in %s, which is missing; download it too (it sits beside the .onnx file in the repository)", modelPath, p)
		}
	}
	return nil
}

func elements(dims []int64) int64 {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	return n
}

// pbReader walks protobuf messages from a file, seeking over large fields.
type pbReader struct {
	f   io.ReadSeeker
	br  *bufio.Reader
	pos int64
}

var errTruncated = errors.New("truncated protobuf message")

func (r *pbReader) varint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := r.br.ReadByte()
		if err != nil {
			return 0, errTruncated
		}
		r.pos++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("malformed varint")
}

func (r *pbReader) bytes(n int64) ([]byte, error) {
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return nil, errTruncated
	}
	r.pos += n
	return buf, nil
}

func (r *pbReader) discard(n int64) error {
	if n <= int64(r.br.Buffered()) {
		_, err := r.br.Discard(int(n))
		r.pos += n
		return err
	}
	r.pos += n
	if _, err := r.f.Seek(r.pos, io.SeekStart); err != nil {
		return err
	}
	r.br.Reset(r.f)
	return nil
}

// message calls field for each field of a message of size bytes. For a
// length-delimited field n is its length and field must consume exactly
// that; for the other types n is 0 and field must consume the value (skip
// does).
func (r *pbReader) message(size int64, field func(num protowire.Number, typ protowire.Type, n int64) error) error {
	end := r.pos + size
	for r.pos < end {
		tag, err := r.varint()
		if err != nil {
			return err
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber {
			return errors.New("invalid field number")
		}
		var n int64
		if typ == protowire.BytesType {
			l, err := r.varint()
			if err != nil {
				return err
			}
			n = int64(l)
			if n < 0 || r.pos+n > end {
				return errTruncated
			}
		}
		if err := field(num, typ, n); err != nil {
			return err
		}
	}
	if r.pos != end {
		return errTruncated
	}
	return nil
}

func (r *pbReader) skip(typ protowire.Type, n int64) error {
	switch typ {
	case protowire.VarintType:
		_, err := r.varint()
		return err
	case protowire.Fixed32Type:
		return r.discard(4)
	case protowire.Fixed64Type:
		return r.discard(8)
	case protowire.BytesType:
		return r.discard(n)
	}
	return fmt.Errorf("unsupported wire type %d", typ)
}

func (r *pbReader) str(typ protowire.Type, n int64) (string, error) {
	if typ != protowire.BytesType {
		return "", errors.New("string field has a non-bytes wire type")
	}
	b, err := r.bytes(n)
	return string(b), err
}

func (r *pbReader) graph(size int64, g *graphSummary) error {
	return r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == graphInitializer && typ == protowire.BytesType:
			in, err := r.tensor(n)
			if err != nil {
				return err
			}
			g.inits = append(g.inits, in)
			return nil
		case num == graphNode && typ == protowire.BytesType:
			return r.node(n, g)
		}
		return r.skip(typ, n)
	})
}

func (r *pbReader) node(size int64, g *graphSummary) error {
	nd := node{ints: map[string]int64{}}
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == nodeInput:
			s, err := r.str(typ, n)
			nd.inputs = append(nd.inputs, s)
			return err
		case num == nodeOpType:
			s, err := r.str(typ, n)
			nd.op = s
			return err
		case num == nodeAttribute && typ == protowire.BytesType:
			return r.attribute(n, &nd, g)
		case num == nodeDomain:
			_, err := r.str(typ, n)
			return err
		}
		return r.skip(typ, n)
	})
	g.nodes = append(g.nodes, nd)
	return err
}

// attribute keeps integer attributes and descends into subgraphs (the
// branches of a merged decoder's If node hold initializers too).
func (r *pbReader) attribute(size int64, nd *node, g *graphSummary) error {
	var name string
	var iv int64
	hasInt := false
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == attrName:
			s, err := r.str(typ, n)
			name = s
			return err
		case num == attrInt && typ == protowire.VarintType:
			v, err := r.varint()
			iv, hasInt = int64(v), true
			return err
		case (num == attrGraph || num == attrGraphs) && typ == protowire.BytesType:
			return r.graph(n, g)
		}
		return r.skip(typ, n)
	})
	if hasInt && name != "" {
		nd.ints[name] = iv
	}
	return err
}

func (r *pbReader) tensor(size int64) (initializer, error) {
	var in initializer
	external := false
	var location string
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == tensorDims && typ == protowire.VarintType:
			v, err := r.varint()
			in.dims = append(in.dims, int64(v))
			return err
		case num == tensorDims && typ == protowire.BytesType: // packed
			b, err := r.bytes(n)
			if err != nil {
				return err
			}
			for len(b) > 0 {
				v, k := protowire.ConsumeVarint(b)
				if k < 0 {
					return errors.New("malformed dims")
				}
				in.dims = append(in.dims, int64(v))
				b = b[k:]
			}
			return nil
		case num == tensorDataType && typ == protowire.VarintType:
			v, err := r.varint()
			in.dtype = int64(v)
			return err
		case num == tensorName:
			s, err := r.str(typ, n)
			in.name = s
			return err
		case num == tensorDataLocation && typ == protowire.VarintType:
			v, err := r.varint()
			external = v == 1
			return err
		case num == tensorExternalData && typ == protowire.BytesType:
			var key, value string
			err := r.message(n, func(num protowire.Number, typ protowire.Type, n int64) error {
				var err error
				switch num {
				case entryKey:
					key, err = r.str(typ, n)
				case entryValue:
					value, err = r.str(typ, n)
				default:
					err = r.skip(typ, n)
				}
				return err
			})
			if key == "location" {
				location = value
			}
			return err
		}
		return r.skip(typ, n)
	})
	if external {
		in.external = location
	}
	return in, err
}
