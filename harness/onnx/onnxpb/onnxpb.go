// Package onnxpb writes ONNX models: the subset of onnx.proto a decoder
// export needs (models, graphs, nodes, attributes, tensors with inline or
// external data, value infos with symbolic dimensions), encoded with
// protowire over onnx.proto's field numbers. It only writes; ONNX Runtime
// is the reader.
package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// DataType is TensorProto.DataType.
type DataType int32

// The element types the builders use (onnx.proto TensorProto.DataType).
const (
	Float   DataType = 1
	Uint8   DataType = 2
	Int8    DataType = 3
	Int32   DataType = 6
	Int64   DataType = 7
	Bool    DataType = 9
	Float16 DataType = 10
	Double  DataType = 11
)

// Size is the element size in bytes.
func (t DataType) Size() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Float16:
		return 2
	case Float, Int32:
		return 4
	case Int64, Double:
		return 8
	}
	return 0
}

// Model is ModelProto.
type Model struct {
	IRVersion       int64
	Opsets          []Opset
	ProducerName    string
	ProducerVersion string
	DocString       string
	Graph           *Graph
	Metadata        []KeyValue
}

// Opset is OperatorSetIdProto; Domain "" is the default ONNX domain.
type Opset struct {
	Domain  string
	Version int64
}

// KeyValue is StringStringEntryProto.
type KeyValue struct{ Key, Value string }

// Graph is GraphProto.
type Graph struct {
	Name         string
	Nodes        []*Node
	Initializers []*Tensor
	Inputs       []*ValueInfo
	Outputs      []*ValueInfo
	ValueInfo    []*ValueInfo
}

// Node is NodeProto.
type Node struct {
	Name    string
	OpType  string
	Domain  string
	Inputs  []string
	Outputs []string
	Attrs   []Attribute
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// Attribute types used here.
const (
	AttrFloatType  AttrType = 1
	AttrIntType    AttrType = 2
	AttrStringType AttrType = 3
	AttrTensorType AttrType = 4
	AttrGraphType  AttrType = 5
	AttrFloatsType AttrType = 6
	AttrIntsType   AttrType = 7
)

// Attribute is AttributeProto; Type says which value field is set.
type Attribute struct {
	Name   string
	Type   AttrType
	F      float32
	I      int64
	S      string
	T      *Tensor
	G      *Graph
	Floats []float32
	Ints   []int64
}

// AttrInt, AttrFloat, … build attributes of one type each.
func AttrInt(name string, v int64) Attribute { return Attribute{Name: name, Type: AttrIntType, I: v} }

// AttrFloat is a float attribute.
func AttrFloat(name string, v float32) Attribute {
	return Attribute{Name: name, Type: AttrFloatType, F: v}
}

// AttrString is a string attribute.
func AttrString(name, v string) Attribute {
	return Attribute{Name: name, Type: AttrStringType, S: v}
}

// AttrInts is a list-of-ints attribute.
func AttrInts(name string, v ...int64) Attribute {
	return Attribute{Name: name, Type: AttrIntsType, Ints: v}
}

// AttrFloats is a list-of-floats attribute.
func AttrFloats(name string, v ...float32) Attribute {
	return Attribute{Name: name, Type: AttrFloatsType, Floats: v}
}

// AttrTensor is a tensor attribute (Constant's value).
func AttrTensor(name string, t *Tensor) Attribute {
	return Attribute{Name: name, Type: AttrTensorType, T: t}
}

// AttrGraph is a graph attribute (If's branches).
func AttrGraph(name string, g *Graph) Attribute {
	return Attribute{Name: name, Type: AttrGraphType, G: g}
}

// Tensor is TensorProto with its data in Raw (little-endian, as raw_data
// requires), or, once moved out by SplitExternal, in an external file.
type Tensor struct {
	Name     string
	DataType DataType
	Dims     []int64
	Raw      []byte
	External *External
}

// External is a tensor's place in an external data file.
type External struct {
	Location       string // relative to the model file's folder
	Offset, Length int64
}

// Elements is the product of the dims (1 for a scalar).
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// ValueInfo is ValueInfoProto for a tensor. Shape nil leaves the shape
// unknown; a Dim with Param set is symbolic (dim_param).
type ValueInfo struct {
	Name     string
	ElemType DataType
	Shape    []Dim
}

// Dim is one TensorShapeProto.Dimension.
type Dim struct {
	Value int64
	Param string
}

// D is a fixed dimension; P a symbolic one.
func D(v int64) Dim { return Dim{Value: v} }

// P is a symbolic dimension such as "batch_size".
func P(name string) Dim { return Dim{Param: name} }

// FloatTensor, Float16Tensor, … encode Go slices as raw_data tensors.
func FloatTensor(name string, dims []int64, v []float32) *Tensor {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return &Tensor{Name: name, DataType: Float, Dims: dims, Raw: raw}
}

// Float16Tensor stores v rounded to IEEE half precision.
func Float16Tensor(name string, dims []int64, v []float32) *Tensor {
	raw := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(raw[2*i:], Float16Bits(x))
	}
	return &Tensor{Name: name, DataType: Float16, Dims: dims, Raw: raw}
}

// Int64Tensor is an int64 tensor.
func Int64Tensor(name string, dims []int64, v []int64) *Tensor {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return &Tensor{Name: name, DataType: Int64, Dims: dims, Raw: raw}
}

// Int8Tensor is an int8 tensor.
func Int8Tensor(name string, dims []int64, v []int8) *Tensor {
	raw := make([]byte, len(v))
	for i, x := range v {
		raw[i] = byte(x)
	}
	return &Tensor{Name: name, DataType: Int8, Dims: dims, Raw: raw}
}

// Uint8Tensor is a uint8 tensor.
func Uint8Tensor(name string, dims []int64, v []uint8) *Tensor {
	return &Tensor{Name: name, DataType: Uint8, Dims: dims, Raw: append([]byte(nil), v...)}
}

// BoolTensor is a bool tensor (one byte per element).
func BoolTensor(name string, dims []int64, v []bool) *Tensor {
	raw := make([]byte, len(v))
	for i, x := range v {
		if x {
			raw[i] = 1
		}
	}
	return &Tensor{Name: name, DataType: Bool, Dims: dims, Raw: raw}
}

// Marshal encodes the model. It checks what would make ONNX Runtime reject
// the file with a vaguer message: a missing graph or opset, tensors whose
// data does not match their dims.
func (m *Model) Marshal() ([]byte, error) {
	if m.Graph == nil {
		return nil, fmt.Errorf("onnxpb: model has no graph")
	}
	if len(m.Opsets) == 0 {
		return nil, fmt.Errorf("onnxpb: model imports no opset; add Opset{Domain: \"\", Version: 17} or similar")
	}
	if err := checkGraph(m.Graph); err != nil {
		return nil, err
	}
	size := sizeModel(m)
	b := appendModel(make([]byte, 0, size), m)
	if len(b) != size {
		return nil, fmt.Errorf("onnxpb: encoded %d bytes, sized %d (a bug in this package)", len(b), size)
	}
	return b, nil
}

func checkGraph(g *Graph) error {
	for _, t := range g.Initializers {
		if err := checkTensor(t); err != nil {
			return fmt.Errorf("onnxpb: graph %q: %w", g.Name, err)
		}
	}
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			switch {
			case a.T != nil:
				if err := checkTensor(a.T); err != nil {
					return fmt.Errorf("onnxpb: node %q attribute %q: %w", n.Name, a.Name, err)
				}
			case a.G != nil:
				if err := checkGraph(a.G); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkTensor(t *Tensor) error {
	want := t.Elements() * int64(t.DataType.Size())
	switch {
	case t.DataType.Size() == 0:
		return fmt.Errorf("tensor %q: unsupported data type %d", t.Name, t.DataType)
	case t.External != nil && t.External.Length != want:
		return fmt.Errorf("tensor %q: external length %d, dims %v need %d bytes", t.Name, t.External.Length, t.Dims, want)
	case t.External == nil && int64(len(t.Raw)) != want:
		return fmt.Errorf("tensor %q: %d bytes of data, dims %v need %d", t.Name, len(t.Raw), t.Dims, want)
	}
	return nil
}

// Each message has an appendX, which writes its fields, and a sizeX, which
// counts them, so Marshal allocates once and copies tensor data once
// (a nested message's length prefix needs its size up front).

func appendModel(b []byte, m *Model) []byte {
	b = appendVarint(b, 1, uint64(m.IRVersion))
	b = appendString(b, 2, m.ProducerName)
	b = appendString(b, 3, m.ProducerVersion)
	b = appendString(b, 6, m.DocString)
	b = appendLen(b, 7, sizeGraph(m.Graph))
	b = appendGraph(b, m.Graph)
	for _, o := range m.Opsets {
		b = appendLen(b, 8, sizeOpset(o))
		b = appendString(b, 1, o.Domain)
		b = appendVarint(b, 2, uint64(o.Version))
	}
	for _, kv := range m.Metadata {
		b = appendKV(b, 14, kv)
	}
	return b
}

func sizeModel(m *Model) int {
	n := sizeVarint(1, uint64(m.IRVersion)) + sizeString(2, m.ProducerName) + sizeString(3, m.ProducerVersion) +
		sizeString(6, m.DocString) + sizeLen(7, sizeGraph(m.Graph))
	for _, o := range m.Opsets {
		n += sizeLen(8, sizeOpset(o))
	}
	for _, kv := range m.Metadata {
		n += sizeLen(14, sizeKV(kv))
	}
	return n
}

func sizeOpset(o Opset) int { return sizeString(1, o.Domain) + sizeVarint(2, uint64(o.Version)) }

func appendGraph(b []byte, g *Graph) []byte {
	for _, n := range g.Nodes {
		b = appendLen(b, 1, sizeNode(n))
		b = appendNode(b, n)
	}
	b = appendString(b, 2, g.Name)
	for _, t := range g.Initializers {
		b = appendLen(b, 5, sizeTensor(t))
		b = appendTensor(b, t)
	}
	for _, list := range []struct {
		num   protowire.Number
		infos []*ValueInfo
	}{{11, g.Inputs}, {12, g.Outputs}, {13, g.ValueInfo}} {
		for _, v := range list.infos {
			b = appendLen(b, list.num, sizeValueInfo(v))
			b = appendValueInfo(b, v)
		}
	}
	return b
}

func sizeGraph(g *Graph) int {
	n := sizeString(2, g.Name)
	for _, x := range g.Nodes {
		n += sizeLen(1, sizeNode(x))
	}
	for _, t := range g.Initializers {
		n += sizeLen(5, sizeTensor(t))
	}
	for _, infos := range [][]*ValueInfo{g.Inputs, g.Outputs, g.ValueInfo} {
		for _, v := range infos {
			n += sizeLen(11, sizeValueInfo(v))
		}
	}
	return n
}

func appendNode(b []byte, n *Node) []byte {
	for _, s := range n.Inputs {
		b = appendBytesField(b, 1, s) // repeated: empty names (optional inputs) are kept
	}
	for _, s := range n.Outputs {
		b = appendBytesField(b, 2, s)
	}
	b = appendString(b, 3, n.Name)
	b = appendString(b, 4, n.OpType)
	for _, a := range n.Attrs {
		b = appendLen(b, 5, sizeAttr(a))
		b = appendAttr(b, a)
	}
	return appendString(b, 7, n.Domain)
}

func sizeNode(n *Node) int {
	size := sizeString(3, n.Name) + sizeString(4, n.OpType) + sizeString(7, n.Domain)
	for _, s := range n.Inputs {
		size += sizeLen(1, len(s))
	}
	for _, s := range n.Outputs {
		size += sizeLen(2, len(s))
	}
	for _, a := range n.Attrs {
		size += sizeLen(5, sizeAttr(a))
	}
	return size
}

func appendAttr(b []byte, a Attribute) []byte {
	b = appendString(b, 1, a.Name)
	switch a.Type {
	case AttrFloatType:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrIntType:
		b = appendVarint(b, 3, uint64(a.I))
	case AttrStringType:
		b = appendBytesField(b, 4, a.S)
	case AttrTensorType:
		b = appendLen(b, 5, sizeTensor(a.T))
		b = appendTensor(b, a.T)
	case AttrGraphType:
		b = appendLen(b, 6, sizeGraph(a.G))
		b = appendGraph(b, a.G)
	case AttrFloatsType:
		for _, f := range a.Floats {
			b = protowire.AppendTag(b, 7, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(f))
		}
	case AttrIntsType:
		for _, i := range a.Ints {
			b = appendVarint(b, 8, uint64(i))
		}
	}
	return appendVarint(b, 20, uint64(a.Type))
}

func sizeAttr(a Attribute) int {
	n := sizeString(1, a.Name) + sizeVarint(20, uint64(a.Type))
	switch a.Type {
	case AttrFloatType:
		n += protowire.SizeTag(2) + protowire.SizeFixed32()
	case AttrIntType:
		n += sizeVarint(3, uint64(a.I))
	case AttrStringType:
		n += sizeLen(4, len(a.S))
	case AttrTensorType:
		n += sizeLen(5, sizeTensor(a.T))
	case AttrGraphType:
		n += sizeLen(6, sizeGraph(a.G))
	case AttrFloatsType:
		n += len(a.Floats) * (protowire.SizeTag(7) + protowire.SizeFixed32())
	case AttrIntsType:
		for _, i := range a.Ints {
			n += sizeVarint(8, uint64(i))
		}
	}
	return n
}

func externalKVs(e *External) []KeyValue {
	return []KeyValue{
		{"location", e.Location},
		{"offset", fmt.Sprint(e.Offset)},
		{"length", fmt.Sprint(e.Length)},
	}
}

func appendTensor(b []byte, t *Tensor) []byte {
	for _, d := range t.Dims {
		b = appendVarint(b, 1, uint64(d))
	}
	b = appendVarint(b, 2, uint64(t.DataType))
	b = appendString(b, 8, t.Name)
	if t.External == nil {
		// raw_data is written even when empty: a zero-element tensor is valid.
		b = appendLen(b, 9, len(t.Raw))
		return append(b, t.Raw...)
	}
	for _, kv := range externalKVs(t.External) {
		b = appendKV(b, 13, kv)
	}
	return appendVarint(b, 14, 1) // DataLocation EXTERNAL
}

func sizeTensor(t *Tensor) int {
	n := sizeVarint(2, uint64(t.DataType)) + sizeString(8, t.Name)
	for _, d := range t.Dims {
		n += sizeVarint(1, uint64(d))
	}
	if t.External == nil {
		return n + sizeLen(9, len(t.Raw))
	}
	for _, kv := range externalKVs(t.External) {
		n += sizeLen(13, sizeKV(kv))
	}
	return n + sizeVarint(14, 1)
}

func appendValueInfo(b []byte, v *ValueInfo) []byte {
	b = appendString(b, 1, v.Name)
	b = appendLen(b, 2, sizeTypeProto(v))  // TypeProto
	b = appendLen(b, 1, sizeTensorType(v)) // TypeProto.tensor_type
	b = appendVarint(b, 1, uint64(v.ElemType))
	if v.Shape != nil {
		b = appendLen(b, 2, sizeShape(v.Shape))
		for _, d := range v.Shape {
			b = appendLen(b, 1, sizeDim(d))
			if d.Param != "" {
				b = appendString(b, 2, d.Param)
			} else {
				b = appendVarint(b, 1, uint64(d.Value))
			}
		}
	}
	return b
}

func sizeValueInfo(v *ValueInfo) int { return sizeString(1, v.Name) + sizeLen(2, sizeTypeProto(v)) }
func sizeTypeProto(v *ValueInfo) int { return sizeLen(1, sizeTensorType(v)) }

func sizeTensorType(v *ValueInfo) int {
	n := sizeVarint(1, uint64(v.ElemType))
	if v.Shape != nil {
		n += sizeLen(2, sizeShape(v.Shape))
	}
	return n
}

func sizeShape(dims []Dim) int {
	n := 0
	for _, d := range dims {
		n += sizeLen(1, sizeDim(d))
	}
	return n
}

func sizeDim(d Dim) int {
	if d.Param != "" {
		return sizeString(2, d.Param)
	}
	return sizeVarint(1, uint64(d.Value))
}

func appendKV(b []byte, num protowire.Number, kv KeyValue) []byte {
	b = appendLen(b, num, sizeKV(kv))
	b = appendString(b, 1, kv.Key)
	return appendString(b, 2, kv.Value)
}

func sizeKV(kv KeyValue) int { return sizeString(1, kv.Key) + sizeString(2, kv.Value) }

// appendString skips empty strings: proto2 optional fields left unset.
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	return appendBytesField(b, num, s)
}

func sizeString(num protowire.Number, s string) int {
	if s == "" {
		return 0
	}
	return sizeLen(num, len(s))
}

func appendBytesField(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func sizeVarint(num protowire.Number, v uint64) int {
	return protowire.SizeTag(num) + protowire.SizeVarint(v)
}

// appendLen writes the tag and length prefix of a length-delimited field
// whose n bytes of content follow.
func appendLen(b []byte, num protowire.Number, n int) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(n))
}

func sizeLen(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}
