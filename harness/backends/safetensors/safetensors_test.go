package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// Write lays a file out byte for byte as safetensors' save_file does:
// F32 before BF16 before F16, names in order within a dtype, compact
// JSON with __metadata__ first, the header padded with spaces to 8 bytes.
func TestWriteLayout(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, safetensors.Write(&b, []safetensors.WriteTensor{
		{Name: "h", DType: safetensors.F16, Shape: []int64{1}, Data: []float32{1}},
		{Name: "b", DType: safetensors.BF16, Shape: []int64{1, 2}, Data: []float32{1, -2}},
		{Name: "z", DType: safetensors.F32, Shape: []int64{}, Data: []float32{0.5}},
		{Name: "a", DType: safetensors.F32, Shape: []int64{2}, Data: []float32{1, 2}},
	}, safetensors.PyTorchMetadata))
	header := `{"__metadata__":{"format":"pt"},` +
		`"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},` +
		`"z":{"dtype":"F32","shape":[],"data_offsets":[8,12]},` +
		`"b":{"dtype":"BF16","shape":[1,2],"data_offsets":[12,16]},` +
		`"h":{"dtype":"F16","shape":[1],"data_offsets":[16,18]}}`
	padded := header + "       "[:(8-len(header)%8)%8]
	want := binary.LittleEndian.AppendUint64(nil, uint64(len(padded)))
	want = append(want, padded...)
	want = append(want, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40) // a: 1, 2
	want = append(want, 0, 0, 0, 0x3f)                   // z: 0.5
	want = append(want, 0x80, 0x3f, 0x00, 0xc0)          // b: bf16 1, -2
	want = append(want, 0x00, 0x3c)                      // h: f16 1
	assert.Equal(t, want, b.Bytes())
	assert.Zero(t, len(padded)%8)
}

// A written file reads back: metadata, dtypes, shapes, and values as the
// dtype rounds them.
func TestRoundTrip(t *testing.T) {
	values := []float32{1, 1.00390625, 1.01171875, -3.14159, 65504, 1e-8}
	path := filepath.Join(t.TempDir(), "w.safetensors")
	var ts []safetensors.WriteTensor
	for _, d := range []safetensors.DType{safetensors.F32, safetensors.F16, safetensors.BF16} {
		ts = append(ts, safetensors.WriteTensor{Name: "w." + string(d), DType: d, Shape: []int64{2, 3}, Data: values})
	}
	require.NoError(t, safetensors.WriteFile(path, ts, map[string]string{"format": "pt", "note": "x"}))
	f, err := safetensors.Open(path)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt", "note": "x"}, f.Metadata)
	assert.Equal(t, []string{"w.BF16", "w.F16", "w.F32"}, f.Names())
	r, err := os.Open(path)
	require.NoError(t, err)
	defer r.Close()
	for _, d := range []safetensors.DType{safetensors.F32, safetensors.F16, safetensors.BF16} {
		tt := f.Tensor("w." + string(d))
		require.NotNil(t, tt)
		assert.Equal(t, d, tt.DType)
		assert.Equal(t, []int64{2, 3}, tt.Shape)
		assert.Equal(t, path, tt.File)
		got, err := tt.Float32s(r)
		require.NoError(t, err)
		for i, v := range values {
			assert.Equal(t, safetensors.Round(d, v), got[i], "%s[%d]", d, i)
		}
	}
}

// bfloat16 rounds to nearest even as torch does: ties go to the even
// pattern, overflow goes to infinity, NaN stays NaN.
func TestBF16(t *testing.T) {
	for _, tt := range []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{-2, 0xc000},
		{1 + 1.0/256, 0x3f80},        // a tie: down to even
		{1 + 3.0/256, 0x3f82},        // a tie: up to even
		{1 + 1.0/256 + 1e-6, 0x3f81}, // above the tie
		{math.MaxFloat32, 0x7f80},    // rounds to +Inf
		{float32(math.Inf(-1)), 0xff80},
		{0, 0},
	} {
		assert.Equal(t, tt.want, safetensors.BF16Bits(tt.in), "%g", tt.in)
	}
	nan := safetensors.BF16Bits(float32(math.NaN()))
	assert.True(t, math.IsNaN(float64(safetensors.BF16Value(nan))))
	assert.Equal(t, float32(1.0078125), safetensors.BF16Value(0x3f81))
}

// Only floats are decoded, and the error names the tensor and file.
func TestFloatOnly(t *testing.T) {
	data := file(`{"ids":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}`, 8)
	f, err := safetensors.Read(bytes.NewReader(data), int64(len(data)), "m.safetensors")
	require.NoError(t, err)
	_, err = f.Tensor("ids").Float32s(bytes.NewReader(data))
	assert.EqualError(t, err, "m.safetensors: tensor ids is I64; weights must be F32, F16 or BF16")
}

func tensors(names ...string) []safetensors.WriteTensor {
	var out []safetensors.WriteTensor
	for i, n := range names {
		data := make([]float32, 4*(i+1))
		out = append(out, safetensors.WriteTensor{Name: n, DType: safetensors.F32, Shape: []int64{int64(len(data))}, Data: data})
	}
	return out
}

// WriteDir shards as huggingface_hub does (a shard closes when the next
// tensor would pass the limit; a tensor above it alone, ahead of the
// shard being filled) and writes the index as transformers does.
func TestWriteDirSharded(t *testing.T) {
	dir := t.TempDir()
	// sizes 16, 32, 48, 64, 80 bytes; limit 64
	files, err := safetensors.WriteDir(dir, tensors("a", "b", "c", "d", "e"), 64)
	require.NoError(t, err)
	names := []string{}
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	assert.Equal(t, []string{"model-00001-of-00004.safetensors", "model-00002-of-00004.safetensors", "model-00003-of-00004.safetensors", "model-00004-of-00004.safetensors", "model.safetensors.index.json"}, names)
	index, err := os.ReadFile(filepath.Join(dir, safetensors.IndexFile))
	require.NoError(t, err)
	assert.Equal(t, `{
  "metadata": {
    "total_size": 240
  },
  "weight_map": {
    "a": "model-00001-of-00004.safetensors",
    "b": "model-00001-of-00004.safetensors",
    "c": "model-00002-of-00004.safetensors",
    "d": "model-00004-of-00004.safetensors",
    "e": "model-00003-of-00004.safetensors"
  }
}
`, string(index))
	c, err := safetensors.OpenDir(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, c.Names())
	assert.Equal(t, filepath.Join(dir, safetensors.IndexFile), c.Where())
	assert.Equal(t, filepath.Join(dir, "model-00004-of-00004.safetensors"), c.Tensor("d").File, "e, above the limit, took the shard before d's")
	got, err := c.Float32s("e")
	require.NoError(t, err)
	assert.Len(t, got, 20)

	single := t.TempDir()
	files, err = safetensors.WriteDir(single, tensors("a", "b"), 0)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(single, safetensors.SingleFile)}, files)
}

// A broken sharded checkpoint is refused, naming the index, the shard
// and the tensor.
func TestOpenDirErrors(t *testing.T) {
	write := func(t *testing.T, index string, shards ...string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, safetensors.IndexFile), []byte(index), 0o644))
		for _, s := range shards {
			require.NoError(t, safetensors.WriteFile(filepath.Join(dir, s), tensors("a"), safetensors.PyTorchMetadata))
		}
		return dir
	}
	for _, tt := range []struct {
		name, index string
		shards      []string
		want        string // after the index's path
	}{
		{"missing shard", `{"weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}`, []string{"model-00001-of-00002.safetensors"},
			" names the shard model-00002-of-00002.safetensors (tensor b is in it), which is not in DIR; download it too"},
		{"outside the folder", `{"weight_map": {"a": "../model.safetensors"}}`, nil,
			`: weight_map: tensor a is in "../model.safetensors", which is not a file of the checkpoint's folder; shards sit beside the index`},
		{"not a name", `{"weight_map": {"a": 3}}`, nil, ": weight_map: tensor a maps to 3, not a shard's file name"},
		{"empty", `{"metadata": {}}`, nil, " has no weight_map naming the shards; download it again"},
		{"not json", `{"weight_map": `, nil, " is not a safetensors index (unexpected end of JSON input); download it again"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, tt.index, tt.shards...)
			_, err := safetensors.OpenDir(dir)
			index := filepath.Join(dir, safetensors.IndexFile)
			want := index + tt.want
			want = string(bytes.ReplaceAll([]byte(want), []byte("DIR"), []byte(dir)))
			assert.EqualError(t, err, want)
		})
	}
	t.Run("tensor not in its shard", func(t *testing.T) {
		dir := write(t, `{"weight_map": {"a": "s.safetensors", "q": "s.safetensors"}}`, "s.safetensors")
		_, err := safetensors.OpenDir(dir)
		assert.EqualError(t, err, filepath.Join(dir, "s.safetensors")+": tensor q is not in s.safetensors, where model.safetensors.index.json says it is; download the checkpoint again")
	})
	t.Run("a broken shard", func(t *testing.T) {
		dir := write(t, `{"weight_map": {"a": "s.safetensors"}}`)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "s.safetensors"), []byte{1, 2}, 0o644))
		_, err := safetensors.OpenDir(dir)
		assert.EqualError(t, err, filepath.Join(dir, "s.safetensors")+": truncated: the file has 2 bytes, fewer than the 8-byte header length it starts with"+incomplete)
	})
	t.Run("no weights", func(t *testing.T) {
		dir := t.TempDir()
		_, err := safetensors.OpenDir(dir)
		assert.ErrorIs(t, err, safetensors.ErrNoWeights)
	})
	t.Run("the single file wins", func(t *testing.T) {
		dir := write(t, `{"weight_map": {"a": "gone.safetensors"}}`)
		require.NoError(t, safetensors.WriteFile(filepath.Join(dir, safetensors.SingleFile), tensors("x"), nil))
		c, err := safetensors.OpenDir(dir)
		require.NoError(t, err)
		assert.Equal(t, []string{"x"}, c.Names())
		assert.Empty(t, c.Index)
	})
}

// A header whose length's first bytes look like a pickle's magic (0x80,
// 0x02: 640 bytes) is a header all the same.
func TestHeaderLengthLikePickleMagic(t *testing.T) {
	header := `{"__metadata__":{"format":"pt"}}`
	for len(header) < 640 {
		header += " "
	}
	data := file(header, 0)
	require.Equal(t, []byte{0x80, 0x02}, data[:2])
	f, err := safetensors.Read(bytes.NewReader(data), int64(len(data)), "m.safetensors")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt"}, f.Metadata)
	assert.Empty(t, f.Tensors)
}
