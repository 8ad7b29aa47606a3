package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/safetensors"
	"github.com/feather-eval/feather/harness/malformed"
)

var update = flag.Bool("update", false, "rewrite testdata/malformed/safetensors/*.safetensors from malformedCases")

// file is a safetensors file: the length of header, header, then n data
// bytes.
func file(header string, n int) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, make([]byte, n)...)
}

// lengthOnly is a file that is just a header length.
func lengthOnly(n uint64, rest string) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, n), rest...)
}

// valid is a small well-formed file as save_file writes it.
func valid(t testing.TB) []byte {
	var b bytes.Buffer
	require.NoError(t, safetensors.Write(&b, []safetensors.WriteTensor{
		{Name: "model.norm.weight", DType: safetensors.F32, Shape: []int64{4}, Data: []float32{1, 2, 3, 4}},
		{Name: "model.embed_tokens.weight", DType: safetensors.BF16, Shape: []int64{2, 3}, Data: []float32{1, -1, 0.5, 2, 0, 3}},
	}, safetensors.PyTorchMetadata))
	return b.Bytes()
}

// pickle is the message for PyTorch's own format.
const pickle = "this is a PyTorch pickle (a zip archive or a raw pickle), not a safetensors file; feather never loads pickles, which run code when read: use the checkpoint's .safetensors files"

// corrupt and incomplete end the messages, as the package writes them.
const (
	corrupt    = "; the file is corrupt or not a safetensors file"
	incomplete = "; the file is incomplete: download or save it again"
)

// malformedCases are broken safetensors files, each with the error Read
// gives. They are the malformed-input corpus (testdata/malformed/
// safetensors) and seed FuzzReadSafetensors.
func malformedCases(t testing.TB) []malformed.Case {
	v := valid(t)
	one := func(entry string, n int) []byte { return file(`{"w":`+entry+`}`, n) }
	return []malformed.Case{
		{Name: "empty", Data: []byte{}, Want: "empty file; a safetensors file starts with an 8-byte header length"},
		{Name: "short-length", Data: []byte{1, 2, 3}, Want: "truncated: the file has 3 bytes, fewer than the 8-byte header length it starts with" + incomplete},
		{Name: "header-past-eof", Data: lengthOnly(1000, `{"w":{}}`), Want: "truncated: the header length is 1000 bytes, past the end of the 16-byte file" + incomplete},
		{Name: "huge-header", Data: lengthOnly(1<<40, `{}`), Want: "the header length is 1099511627776 bytes, more than the 100000000 a safetensors header may take" + corrupt},
		{Name: "tiny-header", Data: lengthOnly(1, `{`), Want: "the header length is 1 bytes, too short for the JSON object it must hold" + corrupt},
		{Name: "not-an-object", Data: file(`[1, 2]`, 0), Want: `the header does not start with '{' (it starts with "[1, 2]")` + corrupt},
		{Name: "pickle", Data: append([]byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46}, "\xf9\x20\x6a\xa8\x50\x19"...), Want: pickle},
		{Name: "torch-zip", Data: []byte("PK\x03\x04\x00\x00\x08\x08\x00\x00archive/data.pkl"), Want: pickle},
		{Name: "not-utf8", Data: file("{\"\xff\":1}", 0), Want: "the header is not UTF-8 text" + corrupt},
		{Name: "not-json", Data: file(`{"w": {"dtype": "F32",}}`, 0), Want: "the header is not valid JSON (at header byte 23: invalid character '}' looking for beginning of object key string)" + corrupt},
		{Name: "json-ends-early", Data: file(`{"w": {"dtype": "F32"`, 0), Want: "the header is not valid JSON (at header byte 21: unexpected end of JSON input)" + corrupt},
		{Name: "trailing-data", Data: file(`{} {}    `, 0), Want: "the header is not valid JSON (at header byte 4: invalid character '{' after top-level value)" + corrupt},
		{Name: "entry-not-object", Data: one(`[1, 2]`, 0), Want: "tensor w: its entry must be an object with dtype, shape and data_offsets, not a list" + corrupt},
		{Name: "missing-dtype", Data: one(`{"shape": [1], "data_offsets": [0, 4]}`, 4), Want: "tensor w: the entry has no dtype" + corrupt},
		{Name: "missing-shape", Data: one(`{"dtype": "F32", "data_offsets": [0, 4]}`, 4), Want: "tensor w: the entry has no shape" + corrupt},
		{Name: "missing-offsets", Data: one(`{"dtype": "F32", "shape": [1]}`, 4), Want: "tensor w: the entry has no data_offsets" + corrupt},
		{Name: "dtype-not-string", Data: one(`{"dtype": 5, "shape": [1], "data_offsets": [0, 4]}`, 4), Want: "tensor w: dtype must be a string, not a JSON number" + corrupt},
		{Name: "unknown-dtype", Data: one(`{"dtype": "F7", "shape": [1], "data_offsets": [0, 4]}`, 4),
			Want: `tensor w: unknown dtype "F7" (the format's are BF16, BOOL, F16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0, I16, I32, I64, I8, U16, U32, U64, U8)`},
		{Name: "lowercase-dtype", Data: one(`{"dtype": "float32", "shape": [1], "data_offsets": [0, 4]}`, 4),
			Want: `tensor w: unknown dtype "float32" (the format's are BF16, BOOL, F16, F32, F64, F8_E4M3, F8_E5M2, F8_E8M0, I16, I32, I64, I8, U16, U32, U64, U8)`},
		{Name: "shape-not-list", Data: one(`{"dtype": "F32", "shape": 4, "data_offsets": [0, 16]}`, 16), Want: "tensor w: shape must be a list of non-negative integers, not a JSON number" + corrupt},
		{Name: "negative-dim", Data: one(`{"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}`, 4), Want: "tensor w: dimension 0 of its shape is -1, not a non-negative integer" + corrupt},
		{Name: "fractional-dim", Data: one(`{"dtype": "F32", "shape": [2, 1.5], "data_offsets": [0, 12]}`, 12), Want: "tensor w: dimension 1 of its shape is 1.5, not a non-negative integer" + corrupt},
		{Name: "huge-shape", Data: one(`{"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 4]}`, 4),
			Want: "tensor w: shape [1099511627776, 1099511627776] holds more than 2^62 values" + corrupt},
		{Name: "shape-mismatch", Data: one(`{"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 8]}`, 8), Want: "tensor w: shape [2 2] of F32 takes 16 bytes, but its data_offsets [0, 8] span 8" + corrupt},
		{Name: "bf16-as-f32", Data: one(`{"dtype": "BF16", "shape": [4], "data_offsets": [0, 16]}`, 16), Want: "tensor w: shape [4] of BF16 takes 8 bytes, but its data_offsets [0, 16] span 16" + corrupt},
		{Name: "offsets-three", Data: one(`{"dtype": "F32", "shape": [1], "data_offsets": [0, 4, 8]}`, 8), Want: "tensor w: data_offsets must be [begin, end], not 3 numbers" + corrupt},
		{Name: "offsets-reversed", Data: one(`{"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}`, 4), Want: "tensor w: data_offsets [4, 0] end before they begin" + corrupt},
		{Name: "offsets-negative", Data: one(`{"dtype": "F32", "shape": [1], "data_offsets": [-4, 0]}`, 4), Want: "tensor w: data_offsets [-4, 0] are not two non-negative integers" + corrupt},
		{Name: "duplicate-tensor", Data: file(`{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}`, 8),
			Want: "tensor w appears twice in the header" + corrupt},
		{Name: "duplicate-metadata", Data: file(`{"__metadata__": {}, "__metadata__": {}}`, 0), Want: "__metadata__ appears twice in the header" + corrupt},
		{Name: "metadata-number", Data: file(`{"__metadata__": {"format": 1}}`, 0), Want: "__metadata__ must map names to strings, but format holds a number" + corrupt},
		{Name: "metadata-list", Data: file(`{"__metadata__": ["pt"]}`, 0), Want: "__metadata__ must be an object of strings, not a list" + corrupt},
		{Name: "overlap", Data: file(`{"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}`, 12),
			Want: "tensors a and b overlap (data bytes 0–8 and 4–12); the file is corrupt"},
		{Name: "gap", Data: file(`{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}`, 12),
			Want: "the data section's bytes 4–8, between tensors a and b, belong to no tensor; the file is corrupt"},
		{Name: "starts-late", Data: one(`{"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}`, 8), Want: "the data section's bytes 0–4 belong to no tensor (the first, w, starts at 4); the file is corrupt"},
		{Name: "truncated-data", Data: v[:len(v)-4], Want: "truncated: tensor model.embed_tokens.weight ends at data byte 28, but the file holds 24 bytes of data" + incomplete},
		{Name: "tensor-past-eof", Data: one(`{"dtype": "F32", "shape": [1048576], "data_offsets": [0, 4194304]}`, 64), Want: "truncated: tensor w ends at data byte 4194304, but the file holds 64 bytes of data" + incomplete},
		{Name: "trailing-bytes", Data: append(append([]byte(nil), v...), 0, 0, 0, 0), Want: "the tensors' data ends at byte 28 but the file holds 32 bytes of data after its header; the file is corrupt"},
	}
}

// Every malformed header is refused with its message, and nothing in it
// makes Read panic or allocate past the file.
func TestMalformedHeaders(t *testing.T) {
	malformed.CheckErrors(t, ".safetensors", malformedCases(t), safetensors.Read)
}

// The corpus files (testdata/malformed/safetensors) are malformedCases' bytes;
// -update rewrites them.
func TestMalformedCorpusFiles(t *testing.T) {
	malformed.CheckFiles(t, "safetensors", ".safetensors", malformedCases(t), *update)
}

// However large the file, the header may not claim more than 100 MB, so
// a hostile length cannot make Read allocate gigabytes.
func TestHeaderBound(t *testing.T) {
	_, err := safetensors.Read(malformed.Sparse{Data: lengthOnly(100_000_001, "{"), Size: 1 << 40}, 1<<40, "big.safetensors")
	assert.EqualError(t, err, "big.safetensors: the header length is 100000001 bytes, more than the 100000000 a safetensors header may take"+corrupt)
	assert.False(t, strings.Contains(err.Error(), "truncated"))
}

// holdsTogether fails t unless every tensor of file, read from data, has
// its shape and dtype's bytes, inside the file, packed without gaps or
// overlaps, is found by name, and has readable floats.
func holdsTogether(t *testing.T, data []byte, file *safetensors.File) {
	next := file.DataOffset
	for _, ti := range file.Tensors {
		if ti.Offset != next {
			t.Fatalf("tensor %s at %d, want %d", ti.Name, ti.Offset, next)
		}
		if ti.Length != ti.Elements()*ti.DType.Size() {
			t.Fatalf("tensor %s: %d bytes for shape %v of %s", ti.Name, ti.Length, ti.Shape, ti.DType)
		}
		next += ti.Length
		if file.Tensor(ti.Name) != ti {
			t.Fatalf("tensor %s is not found by name", ti.Name)
		}
		if ti.Float() == nil {
			if _, err := ti.Float32s(bytes.NewReader(data)); err != nil {
				t.Fatalf("tensor %s: %v", ti.Name, err)
			}
		}
	}
	if next != file.Size {
		t.Fatalf("tensors end at %d of %d", next, file.Size)
	}
}

// FuzzReadSafetensors feeds Read arbitrary bytes: it must return a file
// or an error naming the file, never panic, and what it accepts must hold
// together.
func FuzzReadSafetensors(f *testing.F) {
	v := valid(f)
	malformed.Fuzz(f, ".safetensors", v, []int{4, 8, 9, 40, len(v) / 2, len(v) - 1}, malformedCases(f), safetensors.Read, holdsTogether)
}
