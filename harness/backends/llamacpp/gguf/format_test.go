package gguf_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

func read(t *testing.T, b *gguf.Builder) (*gguf.File, []byte) {
	t.Helper()
	data, err := b.Bytes()
	require.NoError(t, err)
	f, err := gguf.Read(bytes.NewReader(data), int64(len(data)), "t.gguf")
	require.NoError(t, err)
	return f, data
}

// The smallest useful file, byte for byte: header, one string pair, one
// tensor description, padding to 32, the data padded to 32.
func TestLayoutBytes(t *testing.T) {
	b := gguf.NewBuilder()
	b.Set("general.architecture", "llama")
	require.NoError(t, b.Add("t", []int{2}, gguf.F32, []float32{1, 2}))
	data, err := b.Bytes()
	require.NoError(t, err)
	want := (&raw{b: []byte("GGUF")}).u32(3).u64(1).u64(1).
		str("general.architecture").u32(8).str("llama").
		str("t").u32(1).u64(2).u32(0).u64(0).b
	require.Len(t, want, 102)
	want = append(want, make([]byte, 128-102)...)
	want = append(want, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40)
	want = append(want, make([]byte, 24)...)
	assert.Equal(t, want, data)
}

// Every metadata type, scalar and array, reads back as written, with
// tensors of 1 to 4 dimensions in each type and a custom alignment.
func TestRoundTrip(t *testing.T) {
	kv := []gguf.KV{
		{"general.alignment", uint32(64)},
		{"u8", uint8(200)}, {"i8", int8(-100)}, {"u16", uint16(60000)}, {"i16", int16(-30000)},
		{"u32", uint32(4e9)}, {"i32", int32(-2e9)}, {"f32", float32(1.5e-5)}, {"bool", true},
		{"str", "héllo"}, {"u64", uint64(1 << 60)}, {"i64", int64(-1 << 60)}, {"f64", math.Pi},
		{"a.u8", []uint8{1, 2}}, {"a.i8", []int8{-1}}, {"a.u16", []uint16{1}}, {"a.i16", []int16{-1}},
		{"a.u32", []uint32{1, 2, 3}}, {"a.i32", []int32{-1, 5}}, {"a.f32", []float32{0.25}},
		{"a.bool", []bool{true, false}}, {"a.str", []string{"", "x", "yz"}}, {"a.u64", []uint64{1}},
		{"a.i64", []int64{-1}}, {"a.f64", []float64{2.5}}, {"a.empty", []string{}},
	}
	b := gguf.NewBuilder()
	for _, p := range kv {
		b.Set(p.Key, p.Value)
	}
	tensors := []struct {
		name  string
		shape []int
		typ   gguf.Type
	}{
		{"vec", []int{5}, gguf.F32},
		{"mat.f16", []int{3, 64}, gguf.F16},
		{"mat.q8", []int{3, 64}, gguf.Q8_0},
		{"cube", []int{2, 3, 32}, gguf.Q8_0},
		{"four", []int{2, 1, 3, 4}, gguf.F32},
	}
	values := map[string][]float32{}
	for _, tt := range tensors {
		n := 1
		for _, d := range tt.shape {
			n *= d
		}
		values[tt.name] = seeded.NewTensor(1, tt.name, seeded.Linear, n).Data
		require.NoError(t, b.Add(tt.name, tt.shape, tt.typ, values[tt.name]))
	}
	f, data := read(t, b)
	assert.Equal(t, kv, f.KV)
	assert.Equal(t, uint32(3), f.Version)
	assert.Equal(t, uint64(64), f.Alignment)
	assert.Zero(t, f.DataOffset%64)
	assert.Equal(t, int64(len(data)), f.Size)
	require.Len(t, f.Tensors, len(tensors))
	var offset uint64
	for i, tt := range tensors {
		ti := f.Tensors[i]
		assert.Equal(t, tt.name, ti.Name)
		assert.Equal(t, tt.typ, ti.Type)
		shape := make([]int64, len(tt.shape))
		for j, d := range tt.shape {
			shape[j] = int64(d)
		}
		assert.Equal(t, shape, ti.Shape())
		assert.Equal(t, shape[len(shape)-1], ti.Dims[0], "ggml lists the row length first")
		assert.Equal(t, offset, ti.Offset)
		offset += uint64(ti.Bytes+63) &^ 63

		got, err := f.ReadTensor(bytes.NewReader(data), tt.name)
		require.NoError(t, err)
		want := values[tt.name]
		switch tt.typ {
		case gguf.F32:
			assert.Equal(t, want, got)
		case gguf.F16:
			for j, v := range want {
				assert.Equal(t, onnxpb.Float16Value(onnxpb.Float16Bits(v)), got[j], "F16 is the value rounded to half precision")
			}
		case gguf.Q8_0:
			assertQ8_0(t, want, got)
		}
	}
}

// assertQ8_0 holds each value to Q8_0's error: half a step of the
// block's scale d = amax/127, plus what storing d as float16 moves the
// largest quant (127 steps).
func assertQ8_0(t *testing.T, want, got []float32) {
	t.Helper()
	for blk := 0; blk < len(want); blk += 32 {
		var amax float64
		for _, v := range want[blk : blk+32] {
			amax = math.Max(amax, math.Abs(float64(v)))
		}
		d := float32(amax) / 127
		d16 := onnxpb.Float16Value(onnxpb.Float16Bits(d))
		bound := float64(d)/2 + 127*math.Abs(float64(d-d16)) + 1e-6*amax
		for j := blk; j < blk+32; j++ {
			assert.LessOrEqual(t, math.Abs(float64(want[j]-got[j])), bound, "value %d", j)
		}
	}
}

// Q8_0 blocks as ggml's quantize_row_q8_0_ref writes them: a float16 scale
// amax/127, then round-half-away-from-zero quants.
func TestQ8_0Bytes(t *testing.T) {
	exact := []float32{127, -2.5, 2.5, -0.5, 0.5, 1.49, -126.5, 0}
	for i := len(exact); i < 32; i++ {
		exact = append(exact, float32(i-16))
	}
	third := make([]float32, 32)
	third[0] = 1
	for i := 1; i < 32; i++ {
		third[i] = 0.25
	}
	values := append(append(append([]float32{}, exact...), make([]float32, 32)...), third...)

	b := gguf.NewBuilder()
	require.NoError(t, b.Add("q", []int{96}, gguf.Q8_0, values))
	f, data := read(t, b)
	got := data[f.DataOffset : f.DataOffset+3*34]

	want := []byte{0x00, 0x3c, 127, 0xfd, 3, 0xff, 1, 1, 0x81, 0} // d = 1.0; -2.5 → -3, -126.5 → -127
	for i := 8; i < 32; i++ {
		want = append(want, byte(int8(i-16)))
	}
	want = append(want, make([]byte, 34)...) // all zeros: d = 0, quants 0
	want = append(want, 0x08, 0x20, 127)     // d = 1/127 → float16 0x2008; 1 → 127
	for i := 1; i < 32; i++ {
		want = append(want, 32) // 0.25·127 = 31.75 → 32
	}
	assert.Equal(t, want, got)

	dec, err := f.ReadTensor(bytes.NewReader(data), "q")
	require.NoError(t, err)
	assert.Equal(t, []float32{127, -3, 3, -1, 1, 1, -127, 0}, dec[:8])
	d := onnxpb.Float16Value(0x2008)
	assert.Equal(t, []float32{127 * d, 32 * d}, []float32{dec[64], dec[65]})
}

// F16 tensors round to nearest, ties to even, as numpy and ggml do.
func TestF16Rounding(t *testing.T) {
	tests := []struct {
		in   float32
		bits uint16
	}{
		{1, 0x3c00},
		{-2, 0xc000},
		{65504, 0x7bff},                       // largest half
		{65519, 0x7bff},                       // just below the tie with infinity
		{65520, 0x7c00},                       // the tie rounds to even: infinity
		{1 + 1.0/2048, 0x3c00},                // a tie between 1 and its successor: even
		{1 + 3.0/2048, 0x3c02},                // a tie: even is up
		{float32(math.Ldexp(1, -24)), 0x0001}, // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0x0000}, // half of it: even is 0
		{float32(math.Ldexp(3, -25)), 0x0002}, // 1.5 of it: even is 2
		{float32(math.Ldexp(1, -14)), 0x0400}, // smallest normal
		{0.1, 0x2e66},
	}
	values := make([]float32, len(tests))
	for i, tt := range tests {
		values[i] = tt.in
	}
	b := gguf.NewBuilder()
	require.NoError(t, b.Add("h", []int{len(values)}, gguf.F16, values))
	f, data := read(t, b)
	for i, tt := range tests {
		assert.Equal(t, tt.bits, binary.LittleEndian.Uint16(data[f.DataOffset+int64(2*i):]), "%g", tt.in)
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		shape []int
		typ   gguf.Type
		n     int
		want  string
	}{
		{"q", []int{2, 33}, gguf.Q8_0, 66, "tensor q: Q8_0 stores rows of a multiple of 32 values, not 33"},
		{"q", []int{2, 3}, gguf.F32, 5, "tensor q: shape [2 3] holds 6 values, got 5"},
		{"q", []int{2, 0}, gguf.F32, 0, "tensor q: shape [2 0] has a dimension below 1"},
		{"q", []int{1, 1, 1, 1, 1}, gguf.F32, 1, "tensor q: 5 dimensions; ggml tensors have 1 to 4"},
		{"q", []int{4}, gguf.Type(12), 4, "tensor q: writing Q4_K tensors is not supported (F32, F16 and Q8_0 are)"},
		{string(bytes.Repeat([]byte("n"), 64)), []int{1}, gguf.F32, 1, `tensor "` + string(bytes.Repeat([]byte("n"), 64)) + `": a name must have 1 to 63 bytes`},
	}
	for _, tt := range tests {
		err := gguf.NewBuilder().Add(tt.name, tt.shape, tt.typ, make([]float32, tt.n))
		assert.EqualError(t, err, tt.want)
	}

	b := gguf.NewBuilder()
	require.NoError(t, b.Add("w", []int{1}, gguf.F32, []float32{1}))
	assert.EqualError(t, b.Add("w", []int{1}, gguf.F32, []float32{1}), "tensor w is added twice")
	assert.EqualError(t, gguf.NewBuilder().Add("nan", []int{2}, gguf.F32, []float32{1, float32(math.NaN())}), "tensor nan: value 1 is NaN; weights must be finite")

	b = gguf.NewBuilder()
	b.Set("x", 3) // an int has no GGUF size
	_, err := b.Bytes()
	assert.EqualError(t, err, "metadata x: a int is not a GGUF value (use a sized integer, float32/64, bool, string or a slice of one)")

	b = gguf.NewBuilder()
	b.Set("general.alignment", uint32(24))
	_, err = b.Bytes()
	assert.EqualError(t, err, "metadata general.alignment: want a uint32 power of two, got uint32 24")
}

// Set replaces a key in place, keeping the file's key order.
func TestSetReplaces(t *testing.T) {
	b := gguf.NewBuilder()
	b.Set("a", uint32(1))
	b.Set("b", "x")
	b.Set("a", uint32(2))
	f, _ := read(t, b)
	assert.Equal(t, []gguf.KV{{"a", uint32(2)}, {"b", "x"}}, f.KV)
}

// WriteFile writes the whole file, which Open reads.
func TestWriteFileAndOpen(t *testing.T) {
	b := gguf.NewBuilder()
	b.Set("general.architecture", "gpt2")
	require.NoError(t, b.Add("t", []int{32}, gguf.Q8_0, make([]float32, 32)))
	path := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, b.WriteFile(path))
	f, err := gguf.Open(path)
	require.NoError(t, err)
	arch, err := f.Architecture()
	require.NoError(t, err)
	assert.Equal(t, "gpt2", arch)
	assert.Equal(t, path, f.Path)

	_, err = gguf.Open(filepath.Dir(path))
	assert.EqualError(t, err, filepath.Dir(path)+" is a folder, not a GGUF file")
	_, err = gguf.Open(filepath.Join(filepath.Dir(path), "none.gguf"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
