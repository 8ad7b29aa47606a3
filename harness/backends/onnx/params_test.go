package onnx

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	ort "github.com/yalue/onnxruntime_go"
)

// TestParamCountQuantizedOps counts a graph that uses the packed and
// integer weight formats of real quantized exports (it is parsed, not run).
func TestParamCountQuantizedOps(t *testing.T) {
	const (
		K, N      = 64, 48 // a 4-bit MatMulNBits weight: 48 rows of 64, blocks of 32
		V, H      = 100, 16
		blockSize = 32
	)
	u8 := func(name string, dims ...int64) *pb.Tensor {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		return pb.Uint8Tensor(name, dims, make([]uint8, n))
	}
	f32 := func(name string, dims ...int64) *pb.Tensor {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		return pb.FloatTensor(name, dims, make([]float32, n))
	}
	g := &pb.Graph{
		Name: "quantized",
		Initializers: []*pb.Tensor{
			u8("q4.B", N, K/blockSize, blockSize/2), f32("q4.scales", N*K/blockSize), u8("q4.zp", N*K/blockSize/2), f32("q4.bias", N),
			u8("emb.data", V, H/2), f32("emb.scales", V, H/blockSize+1), u8("emb.zp", V, 1),
			pb.Int8Tensor("mmi.B", []int64{H, N}, make([]int8, H*N)), pb.Int8Tensor("mmi.zp", []int64{N}, make([]int8, N)), f32("mmi.scale", N),
			u8("dq.x", N, H), f32("dq.scale", N), u8("dq.zp", N),
			f32("norm.weight", H),
			f32("gqa.cos", 4096, H/2), f32("gqa.sin", 4096, H/2), // the fused operators' rotary tables
			f32("rot.cos", 4096, H/2), f32("rot.sin", 4096, H/2),
			f32("rot23.cos", 4096, H/2), f32("rot23.sin", 4096, H/2),
			f32("eps", 1), f32("scalar"), pb.Int64Tensor("shape", []int64{3}, []int64{1, 2, 3}),
		},
		Nodes: []*pb.Node{
			{OpType: "GatherBlockQuantized", Domain: "com.microsoft", Inputs: []string{"emb.data", "ids", "emb.scales", "emb.zp"}, Outputs: []string{"h"},
				Attrs: []pb.Attribute{pb.AttrInt("bits", 4), pb.AttrInt("block_size", blockSize)}},
			{OpType: "MatMulNBits", Domain: "com.microsoft", Inputs: []string{"h", "q4.B", "q4.scales", "q4.zp", "", "q4.bias"}, Outputs: []string{"y"},
				Attrs: []pb.Attribute{pb.AttrInt("K", K), pb.AttrInt("N", N), pb.AttrInt("bits", 4), pb.AttrInt("block_size", blockSize)}},
			{OpType: "DynamicQuantizeLinear", Inputs: []string{"h"}, Outputs: []string{"hq", "hscale", "hzp"}},
			{OpType: "MatMulInteger", Inputs: []string{"hq", "mmi.B", "hzp", "mmi.zp"}, Outputs: []string{"z"}},
			{OpType: "Mul", Inputs: []string{"hscale", "mmi.scale"}, Outputs: []string{"zscale"}}, // quantize_dynamic's scale: not a weight
			{OpType: "DequantizeLinear", Inputs: []string{"dq.x", "dq.scale", "dq.zp"}, Outputs: []string{"w"}},
			{OpType: "GroupQueryAttention", Domain: "com.microsoft", Inputs: []string{"q", "k", "v", "pk", "pv", "seqlens", "total", "gqa.cos", "gqa.sin"}, Outputs: []string{"a", "ck", "cv"}},
			{OpType: "RotaryEmbedding", Domain: "com.microsoft", Inputs: []string{"x", "pos", "rot.cos", "rot.sin"}, Outputs: []string{"xr"}},
			{OpType: "RotaryEmbedding", Inputs: []string{"x", "rot23.cos", "rot23.sin", "pos"}, Outputs: []string{"xr23"}},
		},
	}
	data, err := (&pb.Model{IRVersion: 8, Opsets: []pb.Opset{{Version: 17}, {Domain: "com.microsoft", Version: 1}}, Graph: g}).Marshal()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "model.onnx")
	require.NoError(t, os.WriteFile(path, data, 0o644))

	sum, _, err := readGraphSummary(path)
	require.NoError(t, err)
	want := int64(K*N + N + // MatMulNBits: the matrix it encodes, and its bias
		V*H + // 4-bit embedding: two weights a byte
		H*N + // MatMulInteger's int8 weight
		N*H + // DequantizeLinear's 8-bit weight
		H) // a float weight; scales, zero points, scalars, shapes and rotary tables are not weights
	assert.Equal(t, want, sum.paramCount())
}

func TestReadGraphSummaryErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model.onnx")
	require.NoError(t, os.WriteFile(path, []byte{0x3a, 0x10, 0x01}, 0o644)) // graph field claiming 16 bytes, 1 present
	_, _, err := readGraphSummary(path)
	assert.EqualError(t, err, path+" is not a readable ONNX model: truncated protobuf message")
}

// TestFixturesRoundTrip reads every fixture's ONNX file with onnxpb and
// writes it again: the same bytes, so the reader misses nothing the
// writer writes (merged If branches, external data, float16, 8-bit).
func TestFixturesRoundTrip(t *testing.T) {
	for _, name := range []string{"gpt2", "llama-gqa", "external", "fp16", "merged"} {
		t.Run(name, func(t *testing.T) {
			fx := fixture(t, name)
			paths := []string{fx.File}
			if name == "llama-gqa" {
				paths = append(paths, fx.Path("quantized"))
			}
			for _, p := range paths {
				data, err := os.ReadFile(p)
				require.NoError(t, err)
				m, err := pb.Unmarshal(data)
				require.NoError(t, err)
				again, err := m.Marshal()
				require.NoError(t, err)
				assert.True(t, bytes.Equal(data, again), "%s: %d bytes read, %d written", p, len(data), len(again))
			}
		})
	}
}

// TestSignatureMatchesONNXRuntime holds the inputs and outputs Open reads
// from the file itself to those ONNX Runtime lists for a session on it,
// on every fixture's every ONNX file (layouts, variants, merged decoders
// with If, external data) and on a graph with the cases exports rarely
// show: an input an initializer backs (as IR version 3 files list every
// initializer), a dimension neither fixed nor named, an output of fixed
// shape.
func TestSignatureMatchesONNXRuntime(t *testing.T) {
	orttest.Require(t)
	require.NoError(t, ortlib.Init())
	var files []string
	for _, name := range slices.Sorted(maps.Keys(modelConfigs)) {
		root := fixture(t, name).Dir
		require.NoError(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(path, ".onnx") {
				files = append(files, path)
			}
			return err
		}))
	}
	x := &pb.ValueInfo{Name: "x", ElemType: pb.Float, Shape: []pb.Dim{pb.P("batch"), {}, pb.D(4)}}
	w := pb.FloatTensor("w", []int64{4}, []float32{1, 2, 3, 4})
	edge := &pb.Model{IRVersion: 3, Opsets: []pb.Opset{{Version: 9}}, Graph: &pb.Graph{
		Name:         "edge",
		Nodes:        []*pb.Node{{Name: "add", OpType: "Add", Inputs: []string{"x", "w"}, Outputs: []string{"y"}}, {Name: "shape", OpType: "Shape", Inputs: []string{"w"}, Outputs: []string{"n"}}},
		Initializers: []*pb.Tensor{w},
		Inputs:       []*pb.ValueInfo{x, {Name: "w", ElemType: pb.Float, Shape: []pb.Dim{pb.D(4)}}},
		Outputs:      []*pb.ValueInfo{{Name: "y", ElemType: pb.Float, Shape: x.Shape}, {Name: "n", ElemType: pb.Int64, Shape: []pb.Dim{pb.D(1)}}},
	}}
	raw, err := edge.Marshal()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "edge.onnx")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	files = append(files, path)
	assert.Greater(t, len(files), len(modelConfigs), "variants and layouts add files")

	so, err := ort.NewSessionOptions()
	require.NoError(t, err)
	defer so.Destroy()
	for _, f := range files {
		wantIn, wantOut, err := ort.GetInputOutputInfoWithOptions(f, so)
		require.NoError(t, err, f)
		s, _, err := readGraphSummary(f)
		require.NoError(t, err, f)
		assert.Equal(t, wantIn, s.inputs, "%s: inputs", f)
		assert.Equal(t, wantOut, s.outputs, "%s: outputs", f)
	}
	s, _, err := readGraphSummary(path)
	require.NoError(t, err)
	assert.Equal(t, []ort.InputOutputInfo{{Name: "x", OrtValueType: ort.ONNXTypeTensor, DataType: ort.TensorElementDataTypeFloat, Dimensions: ort.Shape{-1, 0, 4}}}, s.inputs, "the backed input is left out")
}
