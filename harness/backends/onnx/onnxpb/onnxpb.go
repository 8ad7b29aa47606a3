// Package onnxpb writes and reads ONNX models: the subset of onnx.proto a
// decoder export needs (models, graphs, nodes, attributes, tensors with
// inline or external data, value infos with symbolic dimensions), encoded
// with protowire over onnx.proto's field numbers (fields.go). Marshal
// writes it; Read (reader.go) reads it back, from this writer or any other,
// and can seek past tensor data instead of reading it.
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
	// BFloat16 is read, never built: the builders round to IEEE half.
	BFloat16 DataType = 16
)

// Size is the element size in bytes.
func (t DataType) Size() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Float16, BFloat16:
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

// Graphs returns the main graph and then, depth first in node order, every
// subgraph the nodes' attributes hold (a merged decoder's If branches);
// none when Graph is nil. SplitExternal's blob offsets follow this order.
func (m *Model) Graphs() []*Graph {
	var out []*Graph
	var walk func(g *Graph)
	walk = func(g *Graph) {
		if g == nil {
			return
		}
		out = append(out, g)
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				walk(a.G)
				for _, sub := range a.Graphs {
					walk(sub)
				}
			}
		}
	}
	walk(m.Graph)
	return out
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
	AttrGraphsType AttrType = 10
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
	Graphs []*Graph
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
	// Stored is where raw_data lies in the stream a SkipData read left
	// it in (Location empty, Offset from the stream's start); Marshal
	// ignores it.
	Stored *External
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
			for _, g := range a.Graphs {
				if err := checkGraph(g); err != nil {
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
	b = appendVarint(b, modelIRVersion, uint64(m.IRVersion))
	b = appendString(b, modelProducerName, m.ProducerName)
	b = appendString(b, modelProducerVersion, m.ProducerVersion)
	b = appendString(b, modelDocString, m.DocString)
	b = appendLen(b, modelGraph, sizeGraph(m.Graph))
	b = appendGraph(b, m.Graph)
	for _, o := range m.Opsets {
		b = appendLen(b, modelOpsetImport, sizeOpset(o))
		b = appendString(b, opsetDomain, o.Domain)
		b = appendVarint(b, opsetVersion, uint64(o.Version))
	}
	for _, kv := range m.Metadata {
		b = appendKV(b, modelMetadataProps, kv)
	}
	return b
}

func sizeModel(m *Model) int {
	n := sizeVarint(modelIRVersion, uint64(m.IRVersion)) + sizeString(modelProducerName, m.ProducerName) +
		sizeString(modelProducerVersion, m.ProducerVersion) + sizeString(modelDocString, m.DocString) +
		sizeLen(modelGraph, sizeGraph(m.Graph))
	for _, o := range m.Opsets {
		n += sizeLen(modelOpsetImport, sizeOpset(o))
	}
	for _, kv := range m.Metadata {
		n += sizeLen(modelMetadataProps, sizeKV(kv))
	}
	return n
}

func sizeOpset(o Opset) int {
	return sizeString(opsetDomain, o.Domain) + sizeVarint(opsetVersion, uint64(o.Version))
}

func appendGraph(b []byte, g *Graph) []byte {
	for _, n := range g.Nodes {
		b = appendLen(b, graphNode, sizeNode(n))
		b = appendNode(b, n)
	}
	b = appendString(b, graphName, g.Name)
	for _, t := range g.Initializers {
		b = appendLen(b, graphInitializer, sizeTensor(t))
		b = appendTensor(b, t)
	}
	for _, list := range []struct {
		num   protowire.Number
		infos []*ValueInfo
	}{{graphInput, g.Inputs}, {graphOutput, g.Outputs}, {graphValueInfo, g.ValueInfo}} {
		for _, v := range list.infos {
			b = appendLen(b, list.num, sizeValueInfo(v))
			b = appendValueInfo(b, v)
		}
	}
	return b
}

func sizeGraph(g *Graph) int {
	n := sizeString(graphName, g.Name)
	for _, x := range g.Nodes {
		n += sizeLen(graphNode, sizeNode(x))
	}
	for _, t := range g.Initializers {
		n += sizeLen(graphInitializer, sizeTensor(t))
	}
	for _, infos := range [][]*ValueInfo{g.Inputs, g.Outputs, g.ValueInfo} {
		for _, v := range infos {
			n += sizeLen(graphInput, sizeValueInfo(v)) // 11, 12 and 13 have one-byte tags alike
		}
	}
	return n
}

func appendNode(b []byte, n *Node) []byte {
	for _, s := range n.Inputs {
		b = appendBytesField(b, nodeInput, s) // repeated: empty names (optional inputs) are kept
	}
	for _, s := range n.Outputs {
		b = appendBytesField(b, nodeOutput, s)
	}
	b = appendString(b, nodeName, n.Name)
	b = appendString(b, nodeOpType, n.OpType)
	for _, a := range n.Attrs {
		b = appendLen(b, nodeAttribute, sizeAttr(a))
		b = appendAttr(b, a)
	}
	return appendString(b, nodeDomain, n.Domain)
}

func sizeNode(n *Node) int {
	size := sizeString(nodeName, n.Name) + sizeString(nodeOpType, n.OpType) + sizeString(nodeDomain, n.Domain)
	for _, s := range n.Inputs {
		size += sizeLen(nodeInput, len(s))
	}
	for _, s := range n.Outputs {
		size += sizeLen(nodeOutput, len(s))
	}
	for _, a := range n.Attrs {
		size += sizeLen(nodeAttribute, sizeAttr(a))
	}
	return size
}

func appendAttr(b []byte, a Attribute) []byte {
	b = appendString(b, attrName, a.Name)
	switch a.Type {
	case AttrFloatType:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrIntType:
		b = appendVarint(b, attrI, uint64(a.I))
	case AttrStringType:
		b = appendBytesField(b, attrS, a.S)
	case AttrTensorType:
		b = appendLen(b, attrT, sizeTensor(a.T))
		b = appendTensor(b, a.T)
	case AttrGraphType:
		b = appendLen(b, attrG, sizeGraph(a.G))
		b = appendGraph(b, a.G)
	case AttrFloatsType:
		for _, f := range a.Floats {
			b = protowire.AppendTag(b, attrFloats, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, math.Float32bits(f))
		}
	case AttrIntsType:
		for _, i := range a.Ints {
			b = appendVarint(b, attrInts, uint64(i))
		}
	case AttrGraphsType:
		for _, g := range a.Graphs {
			b = appendLen(b, attrGraphs, sizeGraph(g))
			b = appendGraph(b, g)
		}
	}
	return appendVarint(b, attrType, uint64(a.Type))
}

func sizeAttr(a Attribute) int {
	n := sizeString(attrName, a.Name) + sizeVarint(attrType, uint64(a.Type))
	switch a.Type {
	case AttrFloatType:
		n += protowire.SizeTag(attrF) + protowire.SizeFixed32()
	case AttrIntType:
		n += sizeVarint(attrI, uint64(a.I))
	case AttrStringType:
		n += sizeLen(attrS, len(a.S))
	case AttrTensorType:
		n += sizeLen(attrT, sizeTensor(a.T))
	case AttrGraphType:
		n += sizeLen(attrG, sizeGraph(a.G))
	case AttrFloatsType:
		n += len(a.Floats) * (protowire.SizeTag(attrFloats) + protowire.SizeFixed32())
	case AttrIntsType:
		for _, i := range a.Ints {
			n += sizeVarint(attrInts, uint64(i))
		}
	case AttrGraphsType:
		for _, g := range a.Graphs {
			n += sizeLen(attrGraphs, sizeGraph(g))
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
		b = appendVarint(b, tensorDims, uint64(d))
	}
	b = appendVarint(b, tensorDataType, uint64(t.DataType))
	b = appendString(b, tensorName, t.Name)
	if t.External == nil {
		// raw_data is written even when empty: a zero-element tensor is valid.
		b = appendLen(b, tensorRawData, len(t.Raw))
		return append(b, t.Raw...)
	}
	for _, kv := range externalKVs(t.External) {
		b = appendKV(b, tensorExternalData, kv)
	}
	return appendVarint(b, tensorDataLocation, dataLocationExternal)
}

func sizeTensor(t *Tensor) int {
	n := sizeVarint(tensorDataType, uint64(t.DataType)) + sizeString(tensorName, t.Name)
	for _, d := range t.Dims {
		n += sizeVarint(tensorDims, uint64(d))
	}
	if t.External == nil {
		return n + sizeLen(tensorRawData, len(t.Raw))
	}
	for _, kv := range externalKVs(t.External) {
		n += sizeLen(tensorExternalData, sizeKV(kv))
	}
	return n + sizeVarint(tensorDataLocation, dataLocationExternal)
}

func appendValueInfo(b []byte, v *ValueInfo) []byte {
	b = appendString(b, valueInfoName, v.Name)
	b = appendLen(b, valueInfoType, sizeTypeProto(v))
	b = appendLen(b, typeTensorType, sizeTensorType(v))
	b = appendVarint(b, tensorTypeElemType, uint64(v.ElemType))
	if v.Shape != nil {
		b = appendLen(b, tensorTypeShape, sizeShape(v.Shape))
		for _, d := range v.Shape {
			b = appendLen(b, shapeDim, sizeDim(d))
			if d.Param != "" {
				b = appendString(b, dimParam, d.Param)
			} else {
				b = appendVarint(b, dimValue, uint64(d.Value))
			}
		}
	}
	return b
}

func sizeValueInfo(v *ValueInfo) int {
	return sizeString(valueInfoName, v.Name) + sizeLen(valueInfoType, sizeTypeProto(v))
}

func sizeTypeProto(v *ValueInfo) int { return sizeLen(typeTensorType, sizeTensorType(v)) }

func sizeTensorType(v *ValueInfo) int {
	n := sizeVarint(tensorTypeElemType, uint64(v.ElemType))
	if v.Shape != nil {
		n += sizeLen(tensorTypeShape, sizeShape(v.Shape))
	}
	return n
}

func sizeShape(dims []Dim) int {
	n := 0
	for _, d := range dims {
		n += sizeLen(shapeDim, sizeDim(d))
	}
	return n
}

func sizeDim(d Dim) int {
	if d.Param != "" {
		return sizeString(dimParam, d.Param)
	}
	return sizeVarint(dimValue, uint64(d.Value))
}

func appendKV(b []byte, num protowire.Number, kv KeyValue) []byte {
	b = appendLen(b, num, sizeKV(kv))
	b = appendString(b, entryKey, kv.Key)
	return appendString(b, entryValue, kv.Value)
}

func sizeKV(kv KeyValue) int { return sizeString(entryKey, kv.Key) + sizeString(entryValue, kv.Value) }

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
