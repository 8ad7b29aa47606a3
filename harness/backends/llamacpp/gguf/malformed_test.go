package gguf_test

import (
	"bytes"
	"encoding/binary"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/internal/testenv"
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

type malformed struct {
	name string
	data []byte
	want string // the error after "<file>: "
}

// malformedCases are broken GGUF files, each with the error Read gives.
// They are the malformed-input corpus (testdata/malformed/gguf) and seed
// FuzzReadGGUF.
func malformedCases(t testing.TB) []malformed {
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
	return []malformed{
		{"not-gguf", []byte(`{"model_type": "llama"}`), `not a GGUF file (it starts with "{\"mo", not "GGUF")`},
		{"empty", []byte{}, `empty file; a GGUF file starts with "GGUF"`},
		{"short-magic", []byte("GG"), "truncated: the file ends at byte 2, in the magic" + incomplete},
		{"version-1", (&raw{b: []byte("GGUF")}).u32(1).u32(0).u32(0).b, "GGUF version 1 is no longer read by llama.cpp (versions 2 and 3 are); convert the model again"},
		{"version-4", (&raw{b: []byte("GGUF")}).u32(4).u64(0).u64(0).b, "GGUF version 4 is newer than llama.cpp reads (up to 3)"},
		{"big-endian", (&raw{b: []byte("GGUF")}).u32(3 << 24).u64(0).u64(0).b, "GGUF version 50331648: the file is big-endian (its version reads byte-swapped); llama.cpp reads little-endian files"},
		{"truncated-counts", (&raw{b: []byte("GGUF")}).u32(3).u64(0).u32(0).b, "truncated: the file ends at byte 20, in the number of metadata pairs" + incomplete},
		{"huge-tensor-count", header(1<<62, 0).b, "the header counts 4611686018427387904 tensors, more than the 24-byte file can hold"},
		{"huge-kv-count", header(0, 1<<40).kvString("general.name", "x").b, "the header counts 1099511627776 metadata pairs, more than the 57-byte file can hold"},
		{"empty-key", header(0, 1).kvString("", "x").b, "metadata pair 0 has an empty key"},
		{"duplicate-key", header(0, 2).kvString("general.name", "a").kvString("general.name", "b").b, "key general.name appears twice (metadata pairs 0 and 1)"},
		{"unknown-value-type", header(0, 1).str("general.name").u32(13).u32(0).b, "key general.name: unknown value type 13 (GGUF value types are 0 to 12)"},
		{"array-of-arrays", header(0, 1).str("x.list").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeArray)).u64(0).b, "key x.list: an array of arrays, which llama.cpp does not read"},
		{"huge-array", header(0, 1).str("tokenizer.ggml.tokens").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeString)).u64(1 << 40).b,
			"truncated: key tokenizer.ggml.tokens: an array of 1099511627776 strings at byte 69 cannot fit in the 69-byte file" + incomplete},
		{"huge-string", header(0, 1).str("general.name").u32(uint32(gguf.TypeString)).u64(1 << 50).b,
			"truncated: the value of general.name: a 1125899906842624-byte string at byte 56 runs past the end of the 56-byte file" + incomplete},
		{"truncated-value", header(0, 1).str("general.alignment").u32(uint32(gguf.TypeUint32)).u32(32).b[:55], "truncated: the file ends at byte 55, in the value of general.alignment" + incomplete},
		{"alignment-type", header(0, 1).kvString("general.alignment", "32").b, "general.alignment must be a uint32, got string"},
		{"alignment-not-power-of-two", header(0, 1).kvU32("general.alignment", 48).b, "general.alignment 48 is not a power of two"},
		{"long-tensor-name", header(1, 0).tensorInfo(strings.Repeat("x", 64), 0, 0, 1).withData(32).b,
			`tensor 0: its name has 64 bytes; ggml allows 63 ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…)`},
		{"five-dims", oneTensor("blk.0.attn_q.weight", 0, 1, 1, 1, 1, 1), "tensor blk.0.attn_q.weight: 5 dimensions; ggml tensors have at most 4"},
		{"negative-dim", oneTensor("blk.0.attn_q.weight", 0, 1<<64-1), "tensor blk.0.attn_q.weight: dimension 0 is -1; dimensions are not negative"},
		{"unknown-tensor-type", oneTensor("blk.3.ffn_up.weight", 99, 32), "tensor blk.3.ffn_up.weight: unknown tensor type 99 (ggml's types are 0 to 42)"},
		{"removed-tensor-type", oneTensor("blk.3.ffn_up.weight", 4, 32), "tensor blk.3.ffn_up.weight: tensor type 4 (Q4_2) is no longer supported by llama.cpp"},
		{"partial-block", oneTensor("blk.3.ffn_up.weight", 8, 33), "tensor blk.3.ffn_up.weight: a row of 33 values is not a whole number of Q8_0 blocks (32 values each)"},
		{"too-many-values", oneTensor("blk.3.ffn_up.weight", 0, 1<<40, 1<<40), "tensor blk.3.ffn_up.weight: shape [1099511627776 1099511627776] holds more than 2^63 values"},
		{"too-many-bytes", oneTensor("blk.3.ffn_up.weight", 0, 1<<62), "tensor blk.3.ffn_up.weight: shape [4611686018427387904] of F32 takes more than 2^63 bytes"},
		{"duplicate-tensor", header(2, 0).tensorInfo("t", 0, 0, 8).tensorInfo("t", 0, 32, 8).withData(64).b, "tensor t appears twice (tensors 0 and 1)"},
		{"unpacked-offset", header(2, 0).tensorInfo("a", 0, 0, 8).tensorInfo("b", 0, 64, 8).withData(128).b,
			"tensor b: data offset 64, but llama.cpp expects 32 (tensors are packed in file order, each padded to 32 bytes)"},
		{"truncated-data", v[:len(v)-40], "truncated: tensor blk.3.ffn_up.weight ends at byte 388 of 376" + incomplete},
		{"truncated-padding", header(1, 0).tensorInfo("t", 0, 0, 0).b, "truncated: the data section would start at byte 64 of 57" + incomplete},
		{"duplicate-token", tokens("a", "b", "a").b, `tokenizer.ggml.tokens: token "a" is both id 0 and id 2; llama.cpp needs each token once`},
		{"empty-token-clash", tokens("[EMPTY_1]", "").b, `tokenizer.ggml.tokens: token "[EMPTY_1]" is both id 0 and id 1; llama.cpp needs each token once`},
		{"tokens-not-strings", header(0, 1).str("tokenizer.ggml.tokens").u32(uint32(gguf.TypeArray)).u32(uint32(gguf.TypeInt32)).u64(1).u32(7).b,
			"tokenizer.ggml.tokens must be an array of strings, got an array of int32"},
		{"zero-layers", llamaKV(1).kvU32("llama.block_count", 0).b, "llama.block_count is 0; llama.cpp loads 1 to 512 layers"},
		{"too-many-layers", llamaKV(1).kvU32("llama.block_count", 513).b, "llama.block_count is 513; llama.cpp loads 1 to 512 layers"},
		{"experts-none-used", llamaKV(1).kvU32("llama.expert_count", 8).b, "llama.expert_count is 8 but llama.expert_used_count is 0 or missing; a mixture of experts uses at least one"},
		{"unknown-rope-scaling", llamaKV(1).kvString("llama.rope.scaling.type", "ntk").b, `llama.rope.scaling.type "ntk" is not one llama.cpp knows (none, linear, yarn, longrope)`},
	}
}

// Every malformed header is refused with its message, and nothing in it
// makes Read panic or allocate past the file.
func TestMalformedHeaders(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range malformedCases(t) {
		t.Run(m.name, func(t *testing.T) {
			require.False(t, seen[m.name], "two cases named %s", m.name)
			seen[m.name] = true
			_, err := gguf.Read(bytes.NewReader(m.data), int64(len(m.data)), "x.gguf")
			assert.EqualError(t, err, "x.gguf: "+m.want)
		})
	}
}

// The corpus files are malformedCases' bytes; -update rewrites them.
func TestMalformedCorpusFiles(t *testing.T) {
	dir := filepath.Join(testenv.RepoRoot(), "testdata", "malformed", "gguf")
	want := map[string][]byte{}
	for _, m := range malformedCases(t) {
		want[m.name+".gguf"] = m.data
	}
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for name, data := range want {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.gguf"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		w, ok := want[filepath.Base(f)]
		if assert.True(t, ok, "%s is no case of malformedCases; delete it or add the case", f) {
			assert.True(t, bytes.Equal(w, data), "%s differs from its case; run go test -run TestMalformedCorpusFiles -update", f)
		}
	}
	var wantNames []string
	for n := range want {
		wantNames = append(wantNames, n)
	}
	sort.Strings(wantNames)
	assert.Equal(t, wantNames, names, "run go test -run TestMalformedCorpusFiles -update")
}

// zeros reads as data followed by zero bytes, up to size.
type zeros struct {
	data []byte
	size int64
}

func (z zeros) ReadAt(p []byte, off int64) (int, error) {
	for i := range p {
		p[i] = 0
		if off+int64(i) < int64(len(z.data)) {
			p[i] = z.data[off+int64(i)]
		}
	}
	return len(p), nil
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
		_, err := gguf.Read(zeros{tt.data, 1 << 30}, 1<<30, "big.gguf")
		assert.EqualError(t, err, tt.want)
	}
}
