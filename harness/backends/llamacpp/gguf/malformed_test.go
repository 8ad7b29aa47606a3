package gguf_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/malformed"
)

var update = flag.Bool("update", false, "rewrite testdata/malformed/gguf/*.gguf from malformedCases")

// raw writes GGUF bytes by hand, valid or not.
type raw struct{ b []byte }

func (r *raw) u32(v uint32) *raw { r.b = binary.LittleEndian.AppendUint32(r.b, v); return r }
func (r *raw) u64(v uint64) *raw { r.b = binary.LittleEndian.AppendUint64(r.b, v); return r }
func (r *raw) str(s string) *raw { r.u64(uint64(len(s))); r.b = append(r.b, s...); return r }
func (r *raw) pad(n int) *raw    { r.b = append(r.b, make([]byte, n)...); return r }

// header starts a version 3 file with the given counts.
func header(tensors, kvs uint64) *raw {
	r := &raw{b: []byte("GGUF")}
	return r.u32(3).u64(tensors).u64(kvs)
}

// kvString appends a string pair, kvU32 a uint32 one.
func (r *raw) kvString(key, v string) *raw { return r.str(key).u32(uint32(gguf.TypeString)).str(v) }
func (r *raw) kvU32(key string, v uint32) *raw {
	return r.str(key).u32(uint32(gguf.TypeUint32)).u32(v)
}

// tensorInfo appends a description: dims innermost first.
func (r *raw) tensorInfo(name string, typ uint32, offset uint64, dims ...uint64) *raw {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	return r.u32(typ).u64(offset)
}

// withData pads to the 32-byte data section and appends n data bytes.
func (r *raw) withData(n int) *raw {
	r.pad((32 - len(r.b)%32) % 32)
	return r.pad(n)
}

// valid is a small well-formed file: a llama's metadata and one F32 and
// one Q8_0 tensor.
func valid(t testing.TB) []byte {
	b := gguf.NewBuilder()
	b.Set("general.architecture", "llama")
	b.Set("llama.block_count", uint32(1))
	b.Set("tokenizer.ggml.tokens", []string{"a", "b", "c"})
	require.NoError(t, b.Add("blk.0.attn_norm.weight", []int{4}, gguf.F32, []float32{1, 2, 3, 4}))
	require.NoError(t, b.Add("blk.3.ffn_up.weight", []int{2, 32}, gguf.Q8_0, make([]float32, 64)))
	data, err := b.Bytes()
	require.NoError(t, err)
	return data
}

// incomplete is the fix every truncation error names.
const incomplete = "; the file is incomplete: download or convert it again"

// malformedCases are broken GGUF files, each with the error Read gives.
// They are the malformed-input corpus (testdata/malformed/gguf) and seed
// FuzzReadGGUF.
func malformedCases(t testing.TB) []malformed.Case {
	v := valid(t)
	tokens := func(toks ...string) *raw {
		r := header(0, 1).str("tokenizer.ggml.tokens").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeString)).u64(uint64(len(toks)))
		for _, s := range toks {
			r.str(s)
		}
		return r
	}
	llamaKV := func(extra int) *raw { return header(0, uint64(1+extra)).kvString("general.architecture", "llama") }
	oneTensor := func(name string, typ uint32, dims ...uint64) []byte {
		return header(1, 0).tensorInfo(name, typ, 0, dims...).withData(256).b
	}
	return []malformed.Case{
		{Name: "not-gguf", Data: []byte(`{"model_type": "llama"}`), Want: `not a GGUF file (it starts with "{\"mo", not "GGUF")`},
		{Name: "empty", Data: []byte{}, Want: `empty file; a GGUF file starts with "GGUF"`},
		{Name: "short-magic", Data: []byte("GG"), Want: "truncated: the file ends at byte 2, in the magic" + incomplete},
		{Name: "version-1", Data: (&raw{b: []byte("GGUF")}).u32(1).u32(0).u32(0).b, Want: "GGUF version 1 is no longer read by llama.cpp (versions 2 and 3 are); convert the model again"},
		{Name: "version-4", Data: (&raw{b: []byte("GGUF")}).u32(4).u64(0).u64(0).b, Want: "GGUF version 4 is newer than llama.cpp reads (up to 3)"},
		{Name: "big-endian", Data: (&raw{b: []byte("GGUF")}).u32(3 << 24).u64(0).u64(0).b, Want: "GGUF version 50331648: the file is big-endian (its version reads byte-swapped); llama.cpp reads little-endian files"},
		{Name: "truncated-counts", Data: (&raw{b: []byte("GGUF")}).u32(3).u64(0).u32(0).b, Want: "truncated: the file ends at byte 20, in the number of metadata pairs" + incomplete},
		{Name: "huge-tensor-count", Data: header(1<<62, 0).b, Want: "the header counts 4611686018427387904 tensors, more than the 24-byte file can hold"},
		{Name: "huge-kv-count", Data: header(0, 1<<40).kvString("general.name", "x").b, Want: "the header counts 1099511627776 metadata pairs, more than the 57-byte file can hold"},
		{Name: "empty-key", Data: header(0, 1).kvString("", "x").b, Want: "metadata pair 0 has an empty key"},
		{Name: "duplicate-key", Data: header(0, 2).kvString("general.name", "a").kvString("general.name", "b").b, Want: "key general.name appears twice (metadata pairs 0 and 1)"},
		{Name: "unknown-value-type", Data: header(0, 1).str("general.name").u32(13).u32(0).b, Want: "key general.name: unknown value type 13 (GGUF value types are 0 to 12)"},
		{Name: "array-of-arrays", Data: header(0, 1).str("x.list").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeArray)).u64(0).b, Want: "key x.list: an array of arrays, which llama.cpp does not read"},
		{Name: "huge-array", Data: header(0, 1).str("tokenizer.ggml.tokens").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeString)).u64(1 << 40).b,
			Want: "truncated: key tokenizer.ggml.tokens: an array of 1099511627776 strings at byte 69 cannot fit in the 69-byte file" + incomplete},
		{Name: "huge-string", Data: header(0, 1).str("general.name").u32(uint32(gguf.TypeString)).u64(1 << 50).b,
			Want: "truncated: the value of general.name: a 1125899906842624-byte string at byte 56 runs past the end of the 56-byte file" + incomplete},
		{Name: "truncated-value", Data: header(0, 1).str("general.alignment").u32(uint32(gguf.TypeUint32)).u32(32).b[:55], Want: "truncated: the file ends at byte 55, in the value of general.alignment" + incomplete},
		{Name: "alignment-type", Data: header(0, 1).kvString("general.alignment", "32").b, Want: "general.alignment must be a uint32, got string"},
		{Name: "alignment-not-power-of-two", Data: header(0, 1).kvU32("general.alignment", 48).b, Want: "general.alignment 48 is not a power of two"},
		{Name: "long-tensor-name", Data: header(1, 0).tensorInfo(strings.Repeat("x", 64), 0, 0, 1).withData(32).b,
			Want: `tensor 0: its name has 64 bytes; ggml allows 63 ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…)`},
		{Name: "five-dims", Data: oneTensor("blk.0.attn_q.weight", 0, 1, 1, 1, 1, 1), Want: "tensor blk.0.attn_q.weight: 5 dimensions; ggml tensors have at most 4"},
		{Name: "negative-dim", Data: oneTensor("blk.0.attn_q.weight", 0, 1<<64-1), Want: "tensor blk.0.attn_q.weight: dimension 0 is -1; dimensions are not negative"},
		{Name: "unknown-tensor-type", Data: oneTensor("blk.3.ffn_up.weight", 99, 32), Want: "tensor blk.3.ffn_up.weight: unknown tensor type 99 (ggml's types are 0 to 42)"},
		{Name: "removed-tensor-type", Data: oneTensor("blk.3.ffn_up.weight", 4, 32), Want: "tensor blk.3.ffn_up.weight: tensor type 4 (Q4_2) is no longer supported by llama.cpp"},
		{Name: "partial-block", Data: oneTensor("blk.3.ffn_up.weight", 8, 33), Want: "tensor blk.3.ffn_up.weight: a row of 33 values is not a whole number of Q8_0 blocks (32 values each)"},
		{Name: "too-many-values", Data: oneTensor("blk.3.ffn_up.weight", 0, 1<<40, 1<<40), Want: "tensor blk.3.ffn_up.weight: shape [1099511627776 1099511627776] holds more than 2^63 values"},
		{Name: "too-many-bytes", Data: oneTensor("blk.3.ffn_up.weight", 0, 1<<62), Want: "tensor blk.3.ffn_up.weight: shape [4611686018427387904] of F32 takes more than 2^63 bytes"},
		{Name: "duplicate-tensor", Data: header(2, 0).tensorInfo("t", 0, 0, 8).tensorInfo("t", 0, 32, 8).withData(64).b, Want: "tensor t appears twice (tensors 0 and 1)"},
		{Name: "unpacked-offset", Data: header(2, 0).tensorInfo("a", 0, 0, 8).tensorInfo("b", 0, 64, 8).withData(128).b,
			Want: "tensor b: data offset 64, but llama.cpp expects 32 (tensors are packed in file order, each padded to 32 bytes)"},
		{Name: "truncated-data", Data: v[:len(v)-40], Want: "truncated: tensor blk.3.ffn_up.weight ends at byte 388 of 376" + incomplete},
		{Name: "truncated-padding", Data: header(1, 0).tensorInfo("t", 0, 0, 0).b, Want: "truncated: the data section would start at byte 64 of 57" + incomplete},
		{Name: "duplicate-token", Data: tokens("a", "b", "a").b, Want: `tokenizer.ggml.tokens: token "a" is both id 0 and id 2; llama.cpp needs each token once`},
		{Name: "empty-token-clash", Data: tokens("[EMPTY_1]", "").b, Want: `tokenizer.ggml.tokens: token "[EMPTY_1]" is both id 0 and id 1; llama.cpp needs each token once`},
		{Name: "tokens-not-strings", Data: header(0, 1).str("tokenizer.ggml.tokens").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeInt32)).u64(1).u32(7).b,
			Want: "tokenizer.ggml.tokens must be an array of strings, got an array of int32"},
		{Name: "zero-layers", Data: llamaKV(1).kvU32("llama.block_count", 0).b, Want: "llama.block_count is 0; llama.cpp loads 1 to 512 layers"},
		{Name: "too-many-layers", Data: llamaKV(1).kvU32("llama.block_count", 513).b, Want: "llama.block_count is 513; llama.cpp loads 1 to 512 layers"},
		{Name: "experts-none-used", Data: llamaKV(1).kvU32("llama.expert_count", 8).b, Want: "llama.expert_count is 8 but llama.expert_used_count is 0 or missing; a mixture of experts uses at least one"},
		{Name: "unknown-rope-scaling", Data: llamaKV(1).kvString("llama.rope.scaling.type", "ntk").b, Want: `llama.rope.scaling.type "ntk" is not one llama.cpp knows (none, linear, yarn, longrope)`},
	}
}

// Every malformed header is refused with its message, and nothing in it
// makes Read panic or allocate past the file.
func TestMalformedHeaders(t *testing.T) {
	malformed.CheckErrors(t, ".gguf", malformedCases(t), gguf.Read)
}

// The corpus files (testdata/malformed/gguf) are malformedCases' bytes;
// -update rewrites them.
func TestMalformedCorpusFiles(t *testing.T) {
	malformed.CheckFiles(t, "gguf", ".gguf", malformedCases(t), *update)
}

// However large the file, a header may not claim more than 256 MiB, so a
// hostile count cannot make Read allocate gigabytes.
func TestHeaderBound(t *testing.T) {
	for _, tt := range []struct {
		data []byte
		want string
	}{
		{header(0, 1).str("general.name").u32(uint32(gguf.TypeString)).u64(300 << 20).b,
			"big.gguf: the value of general.name at byte 56 would take the header past 256 MiB; real models' headers take a few MB, so the file is corrupt"},
		{header(0, 1).str("tokenizer.ggml.scores").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeFloat32)).u64(100 << 20).b,
			"big.gguf: the values of tokenizer.ggml.scores at byte 69 would take the header past 256 MiB; real models' headers take a few MB, so the file is corrupt"},
	} {
		_, err := gguf.Read(malformed.Sparse{Data: tt.data, Size: 1 << 30}, 1<<30, "big.gguf")
		assert.EqualError(t, err, tt.want)
	}
}

// holdsTogether fails t unless every tensor of file, read from data, lies
// inside the file, packed in order, and reads.
func holdsTogether(t *testing.T, data []byte, file *gguf.File) {
	var next uint64
	for _, ti := range file.Tensors {
		if ti.Offset != next {
			t.Fatalf("tensor %s at %d, want %d", ti.Name, ti.Offset, next)
		}
		if end := file.DataOffset + int64(ti.Offset) + ti.Bytes; end > file.Size {
			t.Fatalf("tensor %s ends at %d of %d", ti.Name, end, file.Size)
		}
		next += (uint64(ti.Bytes) + file.Alignment - 1) &^ (file.Alignment - 1)
		switch ti.Type {
		case gguf.F32, gguf.F16, gguf.BF16, gguf.Q8_0:
			if _, err := file.ReadTensor(bytes.NewReader(data), ti.Name); err != nil {
				t.Fatalf("tensor %s: %v", ti.Name, err)
			}
		}
	}
}

// FuzzReadGGUF feeds Read arbitrary bytes: it must return a file or an
// error naming the file, never panic, and what it accepts must hold
// together.
func FuzzReadGGUF(f *testing.F) {
	v := valid(f)
	malformed.Fuzz(f, ".gguf", v, []int{4, 8, 24, 60, len(v) / 2, len(v) - 1}, malformedCases(f), gguf.Read, holdsTogether)
}
