package onnxpb_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
)

func TestFloat16Bits(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want uint16
	}{
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{1.0 / 3, 0x3555},
		{65504, 0x7bff}, // largest half
		{65519, 0x7bff}, // rounds down to it
		{65520, 0x7c00}, // rounds up to +Inf
		{float32(math.Inf(-1)), 0xfc00},
		{float32(math.NaN()), 0x7e00},
		{float32(math.Copysign(0, -1)), 0x8000},
		{0x1p-14, 0x0400},       // smallest normal
		{0x1p-24, 0x0001},       // smallest subnormal
		{0x1p-26, 0x0000},       // below half of it
		{0x1.8p-24, 0x0002},     // subnormal tie rounds to even
		{1 + 0x1p-11, 0x3c00},   // tie to even (down)
		{1 + 0x3p-11, 0x3c02},   // tie to even (up)
		{1 + 0x1.1p-11, 0x3c01}, // above the tie
	} {
		got := onnxpb.Float16Bits(tc.in)
		assert.Equalf(t, tc.want, got, "Float16Bits(%g) = %#04x, want %#04x", tc.in, got, tc.want)
		if tc.want&0x7c00 != 0x7c00 { // finite: converting back is close
			back := onnxpb.Float16Value(tc.want)
			assert.InDeltaf(t, tc.in, back, math.Abs(float64(tc.in))*1e-3+0x1p-24, "Float16Value(%#04x)", tc.want)
		}
	}
	assert.True(t, math.IsNaN(float64(onnxpb.Float16Value(0x7e00))))
}

func TestMarshalRejectsInconsistentModels(t *testing.T) {
	_, err := (&onnxpb.Model{Opsets: []onnxpb.Opset{{Version: 17}}}).Marshal()
	assert.EqualError(t, err, "onnxpb: model has no graph")
	_, err = (&onnxpb.Model{Graph: &onnxpb.Graph{}}).Marshal()
	assert.ErrorContains(t, err, "imports no opset")
	bad := &onnxpb.Graph{Name: "g", Initializers: []*onnxpb.Tensor{onnxpb.FloatTensor("w", []int64{2, 3}, []float32{1, 2})}}
	_, err = (&onnxpb.Model{Graph: bad, Opsets: []onnxpb.Opset{{Version: 17}}}).Marshal()
	assert.EqualError(t, err, `onnxpb: graph "g": tensor "w": 8 bytes of data, dims [2 3] need 24`)
}

// tinyModel is y = x·W + b and z = Softmax(y) over a symbolic batch, with an
// If node choosing between Neg(y) and y, and a float16 output through Cast.
func tinyModel() *onnxpb.Model {
	b := onnxpb.NewBuilder("tiny")
	x := b.Input("x", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(3))
	flag := b.Input("flag", onnxpb.Bool, onnxpb.D(1))
	w := b.Weight(onnxpb.FloatTensor("w", []int64{3, 2}, []float32{1, 2, 3, 4, 5, 6}))
	bias := b.Weight(onnxpb.FloatTensor("bias", []int64{2}, []float32{0.5, -0.5}))
	y := b.Op("Add", b.Op("MatMul", x, w), bias)
	b.Output(y, "y", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(2))
	b.Output(b.OpAttr("Softmax", []onnxpb.Attribute{onnxpb.AttrInt("axis", -1)}, y), "z", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(2))
	b.Output(b.OpAttr("Cast", []onnxpb.Attribute{onnxpb.AttrInt("to", int64(onnxpb.Float16))}, y), "y16", onnxpb.Float16, onnxpb.P("batch"), onnxpb.D(2))

	then := b.Subgraph("then")
	then.Output(then.Op("Neg", y), "then_out", onnxpb.Float)
	els := b.Subgraph("else")
	els.Output(els.Op("Identity", y), "else_out", onnxpb.Float)
	sel := b.OpAttr("If", []onnxpb.Attribute{onnxpb.AttrGraph("then_branch", then.Graph()), onnxpb.AttrGraph("else_branch", els.Graph())},
		b.Op("Squeeze", flag, b.Ints(0)))
	b.Output(sel, "sel", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(2))
	return &onnxpb.Model{IRVersion: 8, Opsets: []onnxpb.Opset{{Version: 17}}, ProducerName: "feather-test", Graph: b.Graph()}
}

func runTiny(t *testing.T, path string, flag bool) map[string][]float32 {
	t.Helper()
	outs := []string{"y", "z", "sel"}
	sess, err := ort.NewDynamicAdvancedSession(path, []string{"x", "flag"}, outs, nil)
	require.NoError(t, err)
	defer sess.Destroy()
	x, err := ort.NewTensor(ort.NewShape(2, 3), []float32{1, 0, 0, 0, 1, -1})
	require.NoError(t, err)
	defer x.Destroy()
	f, err := ort.NewTensor(ort.NewShape(1), []bool{flag})
	require.NoError(t, err)
	defer f.Destroy()
	out := make([]ort.Value, len(outs))
	require.NoError(t, sess.Run([]ort.Value{x, f}, out))
	got := map[string][]float32{}
	for i, name := range outs {
		got[name] = out[i].(*ort.Tensor[float32]).GetData()
		assert.Equal(t, ort.NewShape(2, 2), out[i].GetShape(), name)
		out[i].Destroy()
	}
	return got
}

func TestModelRunsInORT(t *testing.T) {
	orttest.Require(t)
	for _, external := range []bool{false, true} {
		name := map[bool]string{false: "inline", true: "external data"}[external]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m := tinyModel()
			if external {
				blob := m.SplitExternal("tiny.onnx_data", 16)
				// w (24 bytes) moves out; bias (8 bytes) stays inline.
				require.Len(t, blob, 24)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.onnx_data"), blob, 0o644))
			}
			data, err := m.Marshal()
			require.NoError(t, err)
			path := filepath.Join(dir, "tiny.onnx")
			require.NoError(t, os.WriteFile(path, data, 0o644))

			in, out, err := ort.GetInputOutputInfo(path)
			require.NoError(t, err)
			require.Len(t, in, 2)
			assert.Equal(t, "x", in[0].Name)
			assert.Equal(t, ort.TensorElementDataType(ort.TensorElementDataTypeFloat), in[0].DataType)
			assert.Equal(t, ort.NewShape(-1, 3), in[0].Dimensions) // symbolic batch
			assert.Equal(t, ort.TensorElementDataType(ort.TensorElementDataTypeBool), in[1].DataType)
			var outNames []string
			for _, o := range out {
				outNames = append(outNames, o.Name)
			}
			assert.Equal(t, []string{"y", "z", "y16", "sel"}, outNames)
			assert.Equal(t, ort.TensorElementDataType(ort.TensorElementDataTypeFloat16), out[2].DataType)

			// x rows [1 0 0] and [0 1 -1]: y = [1.5 1.5], [-1.5 -2.5].
			wantY := []float32{1.5, 1.5, -1.5, -2.5}
			e := math.Exp(1.0)
			wantZ := []float32{0.5, 0.5, float32(e / (e + 1)), float32(1 / (e + 1))}
			for _, flag := range []bool{false, true} {
				got := runTiny(t, path, flag)
				assert.Equal(t, wantY, got["y"])
				assert.InDeltaSlice(t, wantZ, got["z"], 1e-6)
				wantSel := wantY
				if flag {
					wantSel = []float32{-1.5, -1.5, 1.5, 2.5}
				}
				assert.Equal(t, wantSel, got["sel"], "If with flag=%v", flag)
			}
		})
	}
}

func TestMarshalIsDeterministic(t *testing.T) {
	a, err := tinyModel().Marshal()
	require.NoError(t, err)
	b, err := tinyModel().Marshal()
	require.NoError(t, err)
	assert.Equal(t, a, b)
}
