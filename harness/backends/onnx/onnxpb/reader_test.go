package onnxpb_test

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// everyField is tinyModel plus every field and attribute type the writer
// knows: metadata, doc string, opsets of two domains, an empty (optional)
// input name, a rank-0 shape and an unknown one, GRAPHS.
func everyField() *onnxpb.Model {
	m := tinyModel()
	m.ProducerVersion, m.DocString = "1.0", "every field"
	m.Opsets = append(m.Opsets, onnxpb.Opset{Domain: "com.microsoft", Version: 1})
	m.Metadata = []onnxpb.KeyValue{{"a", "1"}, {"b", ""}}
	g := m.Graph
	g.Nodes = append(g.Nodes, &onnxpb.Node{
		Name: "all", OpType: "Custom", Domain: "com.microsoft", Inputs: []string{"x", "", "flag"}, Outputs: []string{"o1", "o2"},
		Attrs: []onnxpb.Attribute{
			onnxpb.AttrFloat("f", -0.25), onnxpb.AttrInt("i", -7), onnxpb.AttrString("s", "hello"),
			onnxpb.AttrTensor("t", onnxpb.Float16Tensor("t", []int64{2}, []float32{1, -2})),
			onnxpb.AttrFloats("fs", 1, 2.5), onnxpb.AttrInts("is", -1, 0, 1<<40),
			{Name: "gs", Type: onnxpb.AttrGraphsType, Graphs: []*onnxpb.Graph{{Name: "g1"}, {Name: "g2", Nodes: []*onnxpb.Node{{OpType: "Identity", Inputs: []string{"x"}, Outputs: []string{"x2"}}}}}},
		},
	})
	g.ValueInfo = []*onnxpb.ValueInfo{{Name: "scalar", ElemType: onnxpb.Int64, Shape: []onnxpb.Dim{}}, {Name: "unknown", ElemType: onnxpb.Float}}
	g.Initializers = append(g.Initializers,
		onnxpb.Int8Tensor("i8", []int64{3}, []int8{-1, 0, 1}), onnxpb.BoolTensor("b", []int64{2}, []bool{true, false}))
	return m
}

func TestReadRoundTrip(t *testing.T) {
	m := everyField()
	data, err := m.Marshal()
	require.NoError(t, err)
	got, err := onnxpb.Unmarshal(data)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	again, err := got.Marshal()
	require.NoError(t, err)
	assert.Equal(t, data, again, "what is read writes the same bytes")
}

func TestReadExternalAndSkipData(t *testing.T) {
	m := everyField()
	blob := m.SplitExternal("m.onnx_data", 16)
	require.NotEmpty(t, blob)
	data, err := m.Marshal()
	require.NoError(t, err)
	got, err := onnxpb.Unmarshal(data)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	assert.Equal(t, &onnxpb.External{Location: "m.onnx_data", Offset: 0, Length: 24}, got.Graph.Initializers[0].External) // w

	// SkipData: the same model, Raw left nil everywhere and Stored
	// pointing at each tensor's raw_data in the encoding.
	want := everyField()
	want.SplitExternal("m.onnx_data", 16)
	skipped, err := onnxpb.Read(bytes.NewReader(data), int64(len(data)), onnxpb.ReadOptions{SkipData: true})
	require.NoError(t, err)
	wantT, gotT := tensors(want.Graph), tensors(skipped.Graph)
	require.Len(t, gotT, len(wantT))
	stored := 0
	for i, w := range wantT {
		g := gotT[i]
		if w.Raw == nil {
			assert.Nil(t, g.Stored, w.Name)
		} else if assert.NotNil(t, g.Stored, w.Name) {
			assert.Equal(t, w.Raw, data[g.Stored.Offset:g.Stored.Offset+g.Stored.Length], w.Name)
			stored++
		}
		w.Raw, g.Stored = nil, nil
	}
	assert.Positive(t, stored)
	assert.Equal(t, want, skipped)
}

// tensors lists g's initializers and attribute tensors, subgraphs' too,
// in a fixed order.
func tensors(g *onnxpb.Graph) []*onnxpb.Tensor {
	out := slices.Clone(g.Initializers)
	for _, n := range g.Nodes {
		for _, a := range n.Attrs {
			if a.T != nil {
				out = append(out, a.T)
			}
			for _, sub := range append(slices.Clone(a.Graphs), a.G) {
				if sub != nil {
					out = append(out, tensors(sub)...)
				}
			}
		}
	}
	return out
}

// countingReader counts the bytes read through it.
type countingReader struct {
	io.ReadSeeker
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadSeeker.Read(p)
	c.n += int64(n)
	return n, err
}

// TestReadSkipsDataLazily: a 4 MiB initializer is sought over, not read.
func TestReadSkipsDataLazily(t *testing.T) {
	m := tinyModel()
	m.Graph.Initializers = append(m.Graph.Initializers, onnxpb.FloatTensor("big", []int64{1 << 20}, make([]float32, 1<<20)))
	data, err := m.Marshal()
	require.NoError(t, err)
	r := &countingReader{ReadSeeker: bytes.NewReader(data)}
	got, err := onnxpb.Read(r, int64(len(data)), onnxpb.ReadOptions{SkipData: true})
	require.NoError(t, err)
	assert.Equal(t, []int64{1 << 20}, got.Graph.Initializers[len(got.Graph.Initializers)-1].Dims)
	assert.Less(t, r.n, int64(256<<10), "bytes read")
}

// TestReadOtherWriters reads what onnx.proto allows and Marshal does not
// write: packed dims, ints and floats, attributes without a type (IR 1),
// unknown fields, and typed tensor data (skipped).
func TestReadOtherWriters(t *testing.T) {
	msg := func(num protowire.Number, parts ...[]byte) []byte {
		body := bytes.Join(parts, nil)
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), body)
	}
	varint := func(num protowire.Number, v uint64) []byte {
		return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
	}
	str := func(num protowire.Number, s string) []byte { return msg(num, []byte(s)) }
	packed := func(num protowire.Number, vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = protowire.AppendVarint(b, v)
		}
		return msg(num, b)
	}
	var fl []byte
	fl = protowire.AppendFixed32(fl, 0x3f800000) // 1.0
	fl = protowire.AppendFixed32(fl, 0x40000000) // 2.0
	tensor := msg(5,                             // graph.initializer
		packed(1, 2, 3), varint(2, 1), str(8, "w"),
		msg(4, make([]byte, 24)), // float_data, packed: skipped
		varint(99, 5))            // unknown field
	node := msg(1, str(1, "a"), str(4, "Op"),
		msg(5, str(1, "ints"), packed(8, 1, 2, 3)), // no type
		msg(5, str(1, "fl"), msg(7, fl)),           // packed floats, no type
		msg(5, str(1, "i"), varint(3, 9), varint(20, 2)))
	data := append(varint(1, 8), msg(7, node, tensor, str(2, "g"))...)
	data = append(data, msg(8, varint(2, 17))...)

	got, err := onnxpb.Unmarshal(data)
	require.NoError(t, err)
	assert.Equal(t, &onnxpb.Model{IRVersion: 8, Opsets: []onnxpb.Opset{{Version: 17}}, Graph: &onnxpb.Graph{
		Name: "g",
		Nodes: []*onnxpb.Node{{OpType: "Op", Inputs: []string{"a"}, Attrs: []onnxpb.Attribute{
			onnxpb.AttrInts("ints", 1, 2, 3), onnxpb.AttrFloats("fl", 1, 2), onnxpb.AttrInt("i", 9)}}},
		Initializers: []*onnxpb.Tensor{{Name: "w", DataType: onnxpb.Float, Dims: []int64{2, 3}}},
	}}, got)
}

// TestReadTruncated: every proper prefix of a model fails as truncated.
func TestReadTruncated(t *testing.T) {
	data, err := everyField().Marshal()
	require.NoError(t, err)
	for n := 0; n < len(data); n++ {
		_, err := onnxpb.Read(bytes.NewReader(data[:n]), int64(len(data)), onnxpb.ReadOptions{})
		if !assert.Truef(t, errors.Is(err, onnxpb.ErrTruncated), "prefix of %d bytes: %v", n, err) {
			break
		}
	}
}
