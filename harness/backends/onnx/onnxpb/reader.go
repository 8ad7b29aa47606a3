package onnxpb

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrTruncated is the error for a message that ends inside a field.
var ErrTruncated = errors.New("truncated protobuf message")

// ReadOptions tunes Read.
type ReadOptions struct {
	// SkipData leaves every Tensor's Raw nil and seeks past tensor data
	// instead of reading it, so a multi-gigabyte model costs a few reads
	// rather than its size in memory. Stored says where the data is.
	SkipData bool
}

// Read decodes the ONNX model of size bytes that starts at r's current
// offset: what Marshal writes, field for field, and the same subset of any
// other ONNX file. Fields outside that subset are skipped, among them a
// tensor's typed data fields (float_data, int64_data, …): only raw_data
// fills Raw. A tensor is External when its data_location is EXTERNAL.
func Read(r io.ReadSeeker, size int64, opt ReadOptions) (*Model, error) {
	base, err := r.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	rd := &reader{f: r, br: bufio.NewReaderSize(r, 1<<16), base: base, skipData: opt.SkipData}
	m := &Model{}
	err = rd.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		var err error
		switch {
		case num == modelIRVersion && typ == protowire.VarintType:
			var v uint64
			v, err = rd.varint()
			m.IRVersion = int64(v)
		case num == modelProducerName:
			m.ProducerName, err = rd.str(typ, n)
		case num == modelProducerVersion:
			m.ProducerVersion, err = rd.str(typ, n)
		case num == modelDocString:
			m.DocString, err = rd.str(typ, n)
		case num == modelGraph && typ == protowire.BytesType:
			m.Graph, err = rd.graph(n)
		case num == modelOpsetImport && typ == protowire.BytesType:
			var o Opset
			o, err = rd.opset(n)
			m.Opsets = append(m.Opsets, o)
		case num == modelMetadataProps && typ == protowire.BytesType:
			var kv KeyValue
			kv, err = rd.keyValue(n)
			m.Metadata = append(m.Metadata, kv)
		default:
			err = rd.skip(typ, n)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Unmarshal decodes an encoded model, tensor data included.
func Unmarshal(b []byte) (*Model, error) {
	return Read(bytes.NewReader(b), int64(len(b)), ReadOptions{})
}

// reader walks protobuf messages from a stream, seeking over large fields
// it skips. pos is the offset from base, where the model starts.
type reader struct {
	f        io.ReadSeeker
	br       *bufio.Reader
	base     int64
	pos      int64
	skipData bool
}

func (r *reader) varint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := r.br.ReadByte()
		if err != nil {
			return 0, ErrTruncated
		}
		r.pos++
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("malformed varint")
}

func (r *reader) fixed32() (uint32, error) {
	b, err := r.bytes(4)
	if err != nil {
		return 0, err
	}
	v, _ := protowire.ConsumeFixed32(b)
	return v, nil
}

func (r *reader) bytes(n int64) ([]byte, error) {
	buf := make([]byte, n)
	if _, err := io.ReadFull(r.br, buf); err != nil {
		return nil, ErrTruncated
	}
	r.pos += n
	return buf, nil
}

func (r *reader) discard(n int64) error {
	if n <= int64(r.br.Buffered()) {
		_, err := r.br.Discard(int(n))
		r.pos += n
		return err
	}
	r.pos += n
	if _, err := r.f.Seek(r.base+r.pos, io.SeekStart); err != nil {
		return err
	}
	r.br.Reset(r.f)
	return nil
}

// message calls field for each field of a message of size bytes. For a
// length-delimited field n is its length and field must consume exactly
// that; for the other types n is 0 and field must consume the value (skip
// does).
func (r *reader) message(size int64, field func(num protowire.Number, typ protowire.Type, n int64) error) error {
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
				return ErrTruncated
			}
		}
		if err := field(num, typ, n); err != nil {
			return err
		}
	}
	if r.pos != end {
		return ErrTruncated
	}
	return nil
}

func (r *reader) skip(typ protowire.Type, n int64) error {
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

func (r *reader) str(typ protowire.Type, n int64) (string, error) {
	if typ != protowire.BytesType {
		return "", errors.New("string field has a non-bytes wire type")
	}
	b, err := r.bytes(n)
	return string(b), err
}

// varints reads a repeated integer field, packed or not.
func (r *reader) varints(typ protowire.Type, n int64, out []int64) ([]int64, error) {
	if typ == protowire.VarintType {
		v, err := r.varint()
		return append(out, int64(v)), err
	}
	if typ != protowire.BytesType {
		return out, r.skip(typ, n)
	}
	b, err := r.bytes(n)
	if err != nil {
		return out, err
	}
	for len(b) > 0 {
		v, k := protowire.ConsumeVarint(b)
		if k < 0 {
			return out, errors.New("malformed packed varints")
		}
		out = append(out, int64(v))
		b = b[k:]
	}
	return out, nil
}

// floats reads a repeated float field, packed or not.
func (r *reader) floats(typ protowire.Type, n int64, out []float32) ([]float32, error) {
	if typ == protowire.Fixed32Type {
		v, err := r.fixed32()
		return append(out, math.Float32frombits(v)), err
	}
	if typ != protowire.BytesType {
		return out, r.skip(typ, n)
	}
	b, err := r.bytes(n)
	if err != nil {
		return out, err
	}
	if len(b)%4 != 0 {
		return out, errors.New("malformed packed floats")
	}
	for ; len(b) > 0; b = b[4:] {
		v, _ := protowire.ConsumeFixed32(b)
		out = append(out, math.Float32frombits(v))
	}
	return out, nil
}

func (r *reader) opset(size int64) (Opset, error) {
	var o Opset
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == opsetDomain:
			s, err := r.str(typ, n)
			o.Domain = s
			return err
		case num == opsetVersion && typ == protowire.VarintType:
			v, err := r.varint()
			o.Version = int64(v)
			return err
		}
		return r.skip(typ, n)
	})
	return o, err
}

func (r *reader) keyValue(size int64) (KeyValue, error) {
	var kv KeyValue
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		var err error
		switch num {
		case entryKey:
			kv.Key, err = r.str(typ, n)
		case entryValue:
			kv.Value, err = r.str(typ, n)
		default:
			err = r.skip(typ, n)
		}
		return err
	})
	return kv, err
}

func (r *reader) graph(size int64) (*Graph, error) {
	g := &Graph{}
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		if typ != protowire.BytesType {
			return r.skip(typ, n)
		}
		var err error
		switch num {
		case graphNode:
			var nd *Node
			nd, err = r.node(n)
			g.Nodes = append(g.Nodes, nd)
		case graphName:
			g.Name, err = r.str(typ, n)
		case graphInitializer:
			var t *Tensor
			t, err = r.tensor(n)
			g.Initializers = append(g.Initializers, t)
		case graphInput, graphOutput, graphValueInfo:
			var v *ValueInfo
			v, err = r.valueInfo(n)
			switch num {
			case graphInput:
				g.Inputs = append(g.Inputs, v)
			case graphOutput:
				g.Outputs = append(g.Outputs, v)
			default:
				g.ValueInfo = append(g.ValueInfo, v)
			}
		default:
			err = r.skip(typ, n)
		}
		return err
	})
	return g, err
}

func (r *reader) node(size int64) (*Node, error) {
	nd := &Node{}
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		var err error
		var s string
		switch {
		case num == nodeInput:
			s, err = r.str(typ, n)
			nd.Inputs = append(nd.Inputs, s)
		case num == nodeOutput:
			s, err = r.str(typ, n)
			nd.Outputs = append(nd.Outputs, s)
		case num == nodeName:
			nd.Name, err = r.str(typ, n)
		case num == nodeOpType:
			nd.OpType, err = r.str(typ, n)
		case num == nodeDomain:
			nd.Domain, err = r.str(typ, n)
		case num == nodeAttribute && typ == protowire.BytesType:
			var a Attribute
			a, err = r.attribute(n)
			nd.Attrs = append(nd.Attrs, a)
		default:
			err = r.skip(typ, n)
		}
		return err
	})
	return nd, err
}

// attribute reads an AttributeProto. Files from before IR version 2 may
// leave out its type; then the value field present decides it.
func (r *reader) attribute(size int64) (Attribute, error) {
	var a Attribute
	var seen AttrType
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		var err error
		switch {
		case num == attrName:
			a.Name, err = r.str(typ, n)
		case num == attrF && typ == protowire.Fixed32Type:
			var v uint32
			v, err = r.fixed32()
			a.F, seen = math.Float32frombits(v), AttrFloatType
		case num == attrI && typ == protowire.VarintType:
			var v uint64
			v, err = r.varint()
			a.I, seen = int64(v), AttrIntType
		case num == attrS:
			a.S, err = r.str(typ, n)
			seen = AttrStringType
		case num == attrT && typ == protowire.BytesType:
			a.T, err = r.tensor(n)
			seen = AttrTensorType
		case num == attrG && typ == protowire.BytesType:
			a.G, err = r.graph(n)
			seen = AttrGraphType
		case num == attrFloats:
			a.Floats, err = r.floats(typ, n, a.Floats)
			seen = AttrFloatsType
		case num == attrInts:
			a.Ints, err = r.varints(typ, n, a.Ints)
			seen = AttrIntsType
		case num == attrGraphs && typ == protowire.BytesType:
			var g *Graph
			g, err = r.graph(n)
			a.Graphs, seen = append(a.Graphs, g), AttrGraphsType
		case num == attrType && typ == protowire.VarintType:
			var v uint64
			v, err = r.varint()
			a.Type = AttrType(v)
		default:
			err = r.skip(typ, n)
		}
		return err
	})
	if a.Type == 0 {
		a.Type = seen
	}
	return a, err
}

func (r *reader) tensor(size int64) (*Tensor, error) {
	t := &Tensor{}
	var ext *External
	external := false
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		var err error
		switch {
		case num == tensorDims:
			t.Dims, err = r.varints(typ, n, t.Dims)
		case num == tensorDataType && typ == protowire.VarintType:
			var v uint64
			v, err = r.varint()
			t.DataType = DataType(v)
		case num == tensorName:
			t.Name, err = r.str(typ, n)
		case num == tensorRawData && typ == protowire.BytesType && r.skipData:
			t.Stored = &External{Offset: r.base + r.pos, Length: n}
			err = r.discard(n)
		case num == tensorRawData && typ == protowire.BytesType:
			t.Raw, err = r.bytes(n)
		case num == tensorDataLocation && typ == protowire.VarintType:
			var v uint64
			v, err = r.varint()
			external = v == dataLocationExternal
		case num == tensorExternalData && typ == protowire.BytesType:
			var kv KeyValue
			kv, err = r.keyValue(n)
			if ext == nil {
				ext = &External{}
			}
			// onnx.proto's keys; offset and length are optional, and a
			// malformed one is left for ONNX Runtime to report.
			switch kv.Key {
			case "location":
				ext.Location = kv.Value
			case "offset":
				ext.Offset, _ = strconv.ParseInt(kv.Value, 10, 64)
			case "length":
				ext.Length, _ = strconv.ParseInt(kv.Value, 10, 64)
			}
		default:
			err = r.skip(typ, n)
		}
		return err
	})
	if external {
		if ext == nil {
			ext = &External{}
		}
		t.External = ext
	}
	return t, err
}

// valueInfo reads a ValueInfoProto of a tensor type; other types (sequence,
// map, optional) leave ElemType 0 and Shape nil.
func (r *reader) valueInfo(size int64) (*ValueInfo, error) {
	v := &ValueInfo{}
	err := r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == valueInfoName:
			s, err := r.str(typ, n)
			v.Name = s
			return err
		case num == valueInfoType && typ == protowire.BytesType:
			return r.message(n, func(num protowire.Number, typ protowire.Type, n int64) error {
				if num == typeTensorType && typ == protowire.BytesType {
					return r.tensorType(n, v)
				}
				return r.skip(typ, n)
			})
		}
		return r.skip(typ, n)
	})
	return v, err
}

func (r *reader) tensorType(size int64, v *ValueInfo) error {
	return r.message(size, func(num protowire.Number, typ protowire.Type, n int64) error {
		switch {
		case num == tensorTypeElemType && typ == protowire.VarintType:
			e, err := r.varint()
			v.ElemType = DataType(e)
			return err
		case num == tensorTypeShape && typ == protowire.BytesType:
			v.Shape = []Dim{} // present, perhaps of rank 0
			return r.message(n, func(num protowire.Number, typ protowire.Type, n int64) error {
				if num != shapeDim || typ != protowire.BytesType {
					return r.skip(typ, n)
				}
				var d Dim
				err := r.message(n, func(num protowire.Number, typ protowire.Type, n int64) error {
					switch {
					case num == dimValue && typ == protowire.VarintType:
						x, err := r.varint()
						d.Value = int64(x)
						return err
					case num == dimParam:
						s, err := r.str(typ, n)
						d.Param = s
						return err
					}
					return r.skip(typ, n)
				})
				v.Shape = append(v.Shape, d)
				return err
			})
		}
		return r.skip(typ, n)
	})
}
