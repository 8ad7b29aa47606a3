package testmodel_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// fixtures are the shapes every ORT comparison runs on.
var fixtures = []struct {
	name string
	cfg  testmodel.Config
}{
	{"gpt2", testmodel.Config{Arch: testmodel.GPT2, TiedEmbeddings: true, Seed: 1}},
	{"gpt2 position_ids", testmodel.Config{Arch: testmodel.GPT2, TiedEmbeddings: true, PositionIDs: true, Seed: 2}},
	{"llama gqa untied", testmodel.Config{Arch: testmodel.Llama, Heads: 4, KVHeads: 2, Seed: 3}},
	{"llama gqa position_ids", testmodel.Config{Arch: testmodel.Llama, Heads: 8, KVHeads: 2, Hidden: 64, PositionIDs: true, Seed: 4}},
	{"llama tied mha", testmodel.Config{Arch: testmodel.Llama, TiedEmbeddings: true, Layers: 3, Seed: 5}},
}

const tol = 1e-4

func build(t *testing.T, cfg testmodel.Config) *testmodel.Model {
	t.Helper()
	m, err := testmodel.Build(filepath.Join(t.TempDir(), "model"), cfg)
	require.NoError(t, err)
	return m
}

func ids64(ids []int) []int64 {
	out := make([]int64, len(ids))
	for i, v := range ids {
		out[i] = int64(v)
	}
	return out
}

func ones(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

func seqPositions(from, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(from + i)
	}
	return out
}

// tokens is a deterministic sequence of ids spread over the vocabulary.
func tokens(n, vocab, salt int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = (i*131 + salt*977 + 7) % vocab
	}
	return out
}

func TestFullSequenceMatchesReference(t *testing.T) {
	orttest.Require(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			m := build(t, f.cfg)
			s := openSession(t, m, m.File)
			ids := tokens(12, m.Config.Vocab, 1)
			want := m.Logits(ids)
			got, _ := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(len(ids))}, [][]int64{seqPositions(0, len(ids))}, nil)
			for p := range ids {
				assert.LessOrEqualf(t, maxDiff(want[p], got[0][p]), tol, "position %d", p)
			}
		})
	}
}

// positionsFromMask is what a backend feeds as position_ids for a
// left-padded batch: cumulative mask minus one, padding at 1.
func positionsFromMask(mask []int64, last int) []int64 {
	var pos []int64
	var n int64
	for _, m := range mask {
		n += m
		if m == 0 {
			pos = append(pos, 1)
		} else {
			pos = append(pos, n-1)
		}
	}
	return pos[len(pos)-last:]
}

// decodeIncrementally feeds prefix then each later token alone, carrying
// the cache, and checks every position against the reference.
func decodeIncrementally(t *testing.T, m *testmodel.Model, ref *testmodel.Model, path string, tolerance float64) {
	s := openSession(t, m, path)
	ids := tokens(9, m.Config.Vocab, 2)
	const prefix = 5
	want := ref.LogitsInCalls(ids, prefix, 1, 1, 1, 1)
	got, cache := s.step(t, [][]int64{ids64(ids[:prefix])}, [][]int64{ones(prefix)}, [][]int64{seqPositions(0, prefix)}, nil)
	for p := 0; p < prefix; p++ {
		assert.LessOrEqualf(t, maxDiff(want[p], got[0][p]), tolerance, "prefix position %d", p)
	}
	for p := prefix; p < len(ids); p++ {
		got, cache = s.step(t, [][]int64{{int64(ids[p])}}, [][]int64{ones(p + 1)}, [][]int64{{int64(p)}}, cache)
		require.Equal(t, p+1, cache.len)
		assert.LessOrEqualf(t, maxDiff(want[p], got[0][0]), tolerance, "decoded position %d", p)
	}
}

func TestIncrementalDecodingMatchesReference(t *testing.T) {
	orttest.Require(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			m := build(t, f.cfg)
			decodeIncrementally(t, m, m, m.File, tol)
		})
	}
}

// A left-padded batch gives each row the logits it has alone, for the
// prompt and for a decoding step after it.
func TestLeftPaddedBatchMatchesSingleSequences(t *testing.T) {
	orttest.Require(t)
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			m := build(t, f.cfg)
			s := openSession(t, m, m.File)
			lens := []int{7, 3, 5}
			width := 7
			var ids, mask, pos [][]int64
			seqs := make([][]int, len(lens))
			for b, n := range lens {
				seqs[b] = tokens(n+1, m.Config.Vocab, 10+b) // the last token is the decoding step
				row := make([]int64, width-n)               // left padding with the pad id
				mrow := make([]int64, width-n)
				row = append(row, ids64(seqs[b][:n])...)
				mrow = append(mrow, ones(n)...)
				ids, mask = append(ids, row), append(mask, mrow)
				pos = append(pos, positionsFromMask(mrow, width))
			}
			got, cache := s.step(t, ids, mask, pos, nil)
			var next, nextPos [][]int64
			for b, n := range lens {
				want := m.Logits(seqs[b])
				for p := 0; p < n; p++ {
					assert.LessOrEqualf(t, maxDiff(want[p], got[b][width-n+p]), tol, "row %d position %d", b, p)
				}
				next = append(next, []int64{int64(seqs[b][n])})
				mask[b] = append(mask[b], 1)
				nextPos = append(nextPos, positionsFromMask(mask[b], 1))
			}
			got, _ = s.step(t, next, mask, nextPos, cache)
			for b, n := range lens {
				want := m.Logits(seqs[b])
				assert.LessOrEqualf(t, maxDiff(want[n], got[b][0]), tol, "row %d decoding step", b)
			}
		})
	}
}

func TestLayouts(t *testing.T) {
	orttest.Require(t)
	for _, tc := range []struct {
		name   string
		cfg    testmodel.Config
		file   string
		inputs []string
	}{
		{"transformers.js", testmodel.Config{}, "onnx/model.onnx",
			[]string{"input_ids", "attention_mask", "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key", "past_key_values.1.value"}},
		{"root", testmodel.Config{Layout: testmodel.LayoutRoot, PositionIDs: true}, "model.onnx",
			[]string{"input_ids", "attention_mask", "position_ids", "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key", "past_key_values.1.value"}},
		{"merged", testmodel.Config{Layout: testmodel.LayoutMerged, PositionIDs: true}, "decoder_model_merged.onnx",
			[]string{"input_ids", "attention_mask", "position_ids", "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key", "past_key_values.1.value", "use_cache_branch"}},
		{"merged gpt2", testmodel.Config{Arch: testmodel.GPT2, TiedEmbeddings: true, Layout: testmodel.LayoutMergedJS}, "onnx/decoder_model_merged.onnx",
			[]string{"input_ids", "attention_mask", "past_key_values.0.key", "past_key_values.0.value", "past_key_values.1.key", "past_key_values.1.value", "use_cache_branch"}},
		{"no past", testmodel.Config{NoPast: true, KVHeads: 2}, "onnx/model.onnx", []string{"input_ids", "attention_mask"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, tc.cfg)
			assert.Equal(t, filepath.Join(m.Dir, filepath.FromSlash(tc.file)), m.File)
			s := openSession(t, m, m.File)
			var names []string
			for _, in := range s.ins {
				names = append(names, in.Name)
			}
			assert.Equal(t, tc.inputs, names)
			if tc.cfg.NoPast {
				require.Len(t, s.outs, 1)
				assert.Equal(t, "logits", s.outs[0].Name)
				ids := tokens(6, m.Config.Vocab, 3)
				want := m.Logits(ids)
				got, _ := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(6)}, nil, nil)
				for p := range ids {
					assert.LessOrEqual(t, maxDiff(want[p], got[0][p]), tol)
				}
				return
			}
			assert.Equal(t, "present.1.value", s.outs[len(s.outs)-1].Name)
			// The first step runs the merged file's no-past branch, later
			// steps the cache branch.
			decodeIncrementally(t, m, m, m.File, tol)
		})
	}
}

func TestVariants(t *testing.T) {
	orttest.Require(t)
	m := build(t, testmodel.Config{KVHeads: 2, Variants: []string{"fp16", "int8", "uint8", "quantized", "q4", "q4f16", "bnb4"}, Seed: 7})
	ids := tokens(9, m.Config.Vocab, 2)
	fp32 := m.Logits(ids)
	for _, tc := range []struct {
		variant, file string
		tolerance     float64 // against the variant's own reference, in one call and decoding with the cache
		fp32          float64 // against the float32 model: what the variant gives up
	}{
		// float16 rounds the cache and the logits too: allow fp16's
		// relative precision on logits of magnitude up to ~10.
		{"fp16", "onnx/model_fp16.onnx", 2e-2, 0.1},
		// Dynamic 8-bit: each call quantizes its activations as the
		// reference does (LogitsInCalls), but an activation on a rounding
		// boundary may land one step (its range/255) apart.
		{"int8", "onnx/model_int8.onnx", 1e-3, 0.1},
		{"uint8", "onnx/model_uint8.onnx", 1e-3, 0.1},
		{"quantized", "onnx/model_quantized.onnx", 1e-3, 0.1},
		// q4: float activations against the dequantized weights, so only
		// summation order differs. 16 levels per block of 32 weights move
		// logits by up to ~0.8 from float32's here.
		{"q4", "onnx/model_q4.onnx", tol, 1.0},
		// q4f16: the reference rounds each 4-bit product's input and
		// output to float16 as the file does, but a value near a float16
		// rounding boundary may land one step apart and carry on (up to
		// 2.9e-3 here, about one float16 step of these logits).
		{"q4f16", "onnx/model_q4f16.onnx", 1e-2, 1.0},
		// bnb4: float activations against the dequantized weights, like q4
		// (2e-6 here). NF4 is symmetric, 16 levels per block of 64: up to
		// ~1.2 from float32's here.
		{"bnb4", "onnx/model_bnb4.onnx", tol, 1.5},
	} {
		t.Run(tc.variant, func(t *testing.T) {
			path := m.Path(tc.variant)
			assert.Equal(t, filepath.Join(m.Dir, filepath.FromSlash(tc.file)), path)
			ref, err := m.Variant(tc.variant)
			require.NoError(t, err)
			want := ref.Logits(ids)
			s := openSession(t, m, path)
			got, _ := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(len(ids))}, nil, nil)
			for p := range ids {
				assert.LessOrEqualf(t, maxDiff(want[p], got[0][p]), tc.tolerance, "position %d against the variant's reference", p)
				// And the variant is still close to the float32 model.
				assert.LessOrEqualf(t, maxDiff(fp32[p], got[0][p]), tc.fp32, "position %d against float32", p)
			}
			decodeIncrementally(t, m, ref, path, tc.tolerance)
		})
	}
	_, err := m.Variant("q2")
	assert.EqualError(t, err, `testmodel: unknown variant "q2"; known variants are fp16, int8, uint8, quantized, q4, q4f16, bnb4`)
}

func TestFP16MainFile(t *testing.T) {
	orttest.Require(t)
	m := build(t, testmodel.Config{FP16: true, KVHeads: 2, Layout: testmodel.LayoutMerged, Seed: 8})
	s := openSession(t, m, m.File)
	assert.True(t, s.half, "logits are float16")
	for _, in := range s.ins[2:6] {
		assert.Equalf(t, ort.TensorElementDataType(ort.TensorElementDataTypeFloat16), in.DataType, "%s", in.Name)
	}
	ref, err := m.Variant("fp16")
	require.NoError(t, err)
	decodeIncrementally(t, m, ref, m.File, 2e-2)
}

func TestExternalData(t *testing.T) {
	orttest.Require(t)
	m := build(t, testmodel.Config{ExternalData: true, Variants: []string{"fp16"}, Seed: 9})
	for _, f := range []string{"onnx/model.onnx", "onnx/model.onnx_data", "onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data"} {
		assert.FileExists(t, filepath.Join(m.Dir, filepath.FromSlash(f)))
	}
	decodeIncrementally(t, m, m, m.File, tol)
}
