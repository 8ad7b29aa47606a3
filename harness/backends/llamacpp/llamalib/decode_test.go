package llamalib_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/internal/testenv"
)

// gpt2Vocab is the size of GPT-2's vocabulary; <|endoftext|> is its last id.
const gpt2Vocab = 50257

// tinyModel writes a random two-layer llama with GPT-2's vocabulary as GGUF
// and opens it.
func tinyModel(t *testing.T) *llamalib.Model {
	t.Helper()
	llamatest.Require(t)
	ck, err := checkpoint.Random(checkpoint.Llama, checkpoint.Shape{Vocab: gpt2Vocab, TiedEmbeddings: true}, 7)
	require.NoError(t, err)
	v, err := gguf.LoadVocab(testenv.Tokenizer("gpt2"), "")
	require.NoError(t, err)
	b, err := gguf.FromCheckpoint(ck, v, gguf.AllF32)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "tiny-llama.gguf")
	require.NoError(t, b.WriteFile(path))
	m, err := llamalib.OpenModel(path)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	return m
}

func TestVocabulary(t *testing.T) {
	m := tinyModel(t)
	arch, ok, err := m.Meta("general.architecture")
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "llama", arch)
	_, ok, err = m.Meta("no.such.key")
	require.NoError(t, err)
	assert.False(t, ok)

	assert.Equal(t, gpt2Vocab, m.VocabSize())
	assert.Equal(t, int32(50256), m.BOS())
	assert.Equal(t, int32(50256), m.EOS())
	assert.Equal(t, int32(50256), m.EOT(), "llama.cpp takes <|endoftext|> for the end of a turn too")
	assert.False(t, m.AddBOS())
	assert.False(t, m.AddEOS())
	assert.True(t, m.IsEOG(50256))
	assert.False(t, m.IsEOG(995))

	for _, tc := range []struct {
		text    string
		special bool
		want    []int32
	}{
		{"Hello world", false, []int32{15496, 995}},
		{"", false, []int32{}},
		{"<|endoftext|>", true, []int32{50256}},
		{"<|endoftext|>", false, []int32{27, 91, 437, 1659, 5239, 91, 29}},
	} {
		got, err := m.Tokenize(tc.text, tc.special)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%q special=%v", tc.text, tc.special)
	}
	text, err := m.Detokenize([]int32{15496, 995, 50256}, true)
	require.NoError(t, err)
	assert.Equal(t, "Hello world<|endoftext|>", text)
	text, err = m.Detokenize([]int32{15496, 995, 50256}, false)
	require.NoError(t, err)
	assert.Equal(t, "Hello world", text)
	piece, err := m.Piece(995, false)
	require.NoError(t, err)
	assert.Equal(t, " world", piece)

	_, err = m.Detokenize([]int32{15496, gpt2Vocab}, false)
	require.EqualError(t, err, "llamalib: token 50257 (at 1) is outside the vocabulary [0, 50257)")
	_, err = m.Piece(-1, false)
	require.EqualError(t, err, "llamalib: token -1 (at 0) is outside the vocabulary [0, 50257)")
}

// logSoftmaxMass is Σ exp(log_softmax(row)): 1 for a row of real logits.
func logSoftmaxMass(row []float32) float64 {
	hi := math.Inf(-1)
	for _, x := range row {
		hi = math.Max(hi, float64(x))
	}
	var z float64
	for _, x := range row {
		z += math.Exp(float64(x) - hi)
	}
	lse := hi + math.Log(z)
	var mass float64
	for _, x := range row {
		mass += math.Exp(float64(x) - lse)
	}
	return mass
}

func rows(t *testing.T, cx *llamalib.Context, idx ...int) [][]float32 {
	t.Helper()
	out := make([][]float32, len(idx))
	for i, r := range idx {
		row, err := cx.Logits(r, nil)
		require.NoError(t, err)
		out[i] = row
	}
	return out
}

// TestSharedPrefix decodes two sequences that share a prefix through
// SeqCopy, then the second from scratch: the prefix's logits are the same
// either way, and so are the continuation's, which read the copied KV
// entries; every row is a distribution's logits.
func TestSharedPrefix(t *testing.T) {
	m := tinyModel(t)
	cx, err := m.NewContext(llamalib.ContextOptions{Size: 256, Batch: 32, Sequences: 2, Threads: 1})
	require.NoError(t, err)
	defer cx.Close()
	assert.Equal(t, 256, cx.Size())
	assert.Equal(t, 32, cx.BatchSize())
	assert.Equal(t, 2, cx.Sequences())

	prefix, err := m.Tokenize("The quick brown fox", false)
	require.NoError(t, err)
	a, err := m.Tokenize(" jumps over", false)
	require.NoError(t, err)
	b, err := m.Tokenize(" sleeps", false)
	require.NoError(t, err)
	n := len(prefix)

	var batch llamalib.Batch
	for i, tok := range prefix {
		batch.Add(tok, i, true, 0)
	}
	require.NoError(t, cx.Decode(&batch))
	shared := rows(t, cx, 0, 1, 2, 3)
	require.NoError(t, cx.SeqCopy(0, 1))
	end, err := cx.SeqEnd(1)
	require.NoError(t, err)
	assert.Equal(t, n, end)

	// Both continuations in one batch: a's first token on 0, b's on 1.
	batch.Reset()
	batch.Add(a[0], n, true, 0)
	batch.Add(b[0], n, true, 1)
	require.NoError(t, cx.Decode(&batch))
	cont := rows(t, cx, 0, 1)
	assert.NotEqual(t, cont[0], cont[1], "different tokens give different logits")

	// Sequence 1 from scratch: prefix and b's first token, nothing shared.
	require.NoError(t, cx.Clear())
	batch.Reset()
	for i, tok := range prefix {
		batch.Add(tok, i, true, 1)
	}
	require.NoError(t, cx.Decode(&batch))
	assert.Equal(t, shared, rows(t, cx, 0, 1, 2, 3), "the prefix's logits are the same in both sequences")
	batch.Reset()
	batch.Add(b[0], n, true, 1)
	require.NoError(t, cx.Decode(&batch))
	alone := rows(t, cx, 0)[0]
	assert.InDeltaSlice(t, alone, cont[1], 1e-4, "the continuation read the copied prefix")

	for _, row := range append(append(shared, cont...), alone) {
		require.Len(t, row, gpt2Vocab)
		assert.InDelta(t, 1, logSoftmaxMass(row), 1e-6)
	}
}

// TestArgumentChecks: what a caller passes wrong is an error, never an
// abort in llama.cpp.
func TestArgumentChecks(t *testing.T) {
	m := tinyModel(t)
	cx, err := m.NewContext(llamalib.ContextOptions{Size: 256, Batch: 4, Sequences: 2, Threads: 1})
	require.NoError(t, err)

	for _, tc := range []struct {
		name string
		add  func(b *llamalib.Batch)
		err  string
	}{
		{"empty", func(*llamalib.Batch) {}, "llamalib: empty batch"},
		{"too long", func(b *llamalib.Batch) {
			for i := range 5 {
				b.Add(1, i, false, 0)
			}
		}, "llamalib: batch of 5 tokens exceeds the context's batch size 4"},
		{"token", func(b *llamalib.Batch) { b.Add(gpt2Vocab, 0, true, 0) }, "llamalib: token 50257 (at 0) is outside the vocabulary [0, 50257)"},
		{"negative position", func(b *llamalib.Batch) { b.Add(1, -1, true, 0) }, "llamalib: batch row 0: position -1 is outside the context [0, 256)"},
		{"position past the context", func(b *llamalib.Batch) { b.Add(1, 256, true, 0) }, "llamalib: batch row 0: position 256 is outside the context [0, 256)"},
		{"no sequence", func(b *llamalib.Batch) { b.Add(1, 0, true) }, "llamalib: batch row 0 belongs to no sequence"},
		{"sequence", func(b *llamalib.Batch) { b.Add(1, 0, true, 2) }, "llamalib: batch row 0: sequence 2 is outside the context's [0, 2)"},
		{"huge sequence", func(b *llamalib.Batch) { b.Add(1, 0, true, 1<<40) }, "llamalib: batch row 0: sequence 1099511627776 is outside the context's [0, 2)"},
		{"repeated sequence", func(b *llamalib.Batch) { b.Add(1, 0, true, 1, 1) }, "llamalib: batch row 0 names sequence 1 twice"},
		{"gap", func(b *llamalib.Batch) { b.Add(1, 0, true, 0); b.Add(2, 2, true, 0) }, "llama.cpp refused the batch: init: sequence 0 positions are not continuous; decode: failed to initialize batch; llama_decode: failed to decode, ret = -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b llamalib.Batch
			tc.add(&b)
			require.EqualError(t, cx.Decode(&b), tc.err)
			_, err := cx.Logits(0, nil)
			require.EqualError(t, err, "llamalib: row 0 of the last decoded batch has no logits (ask for them in Batch.Add)")
		})
	}

	var b llamalib.Batch
	b.Add(1, 0, false, 0)
	b.Add(2, 1, true, 0)
	require.NoError(t, cx.Decode(&b))
	_, err = cx.Logits(0, nil)
	require.EqualError(t, err, "llamalib: row 0 of the last decoded batch has no logits (ask for them in Batch.Add)")
	_, err = cx.Logits(2, nil)
	require.EqualError(t, err, "llamalib: row 2 of the last decoded batch has no logits (ask for them in Batch.Add)")
	dst := make([]float32, gpt2Vocab)
	got, err := cx.Logits(1, dst)
	require.NoError(t, err)
	assert.Same(t, &dst[0], &got[0], "Logits reuses dst")

	require.EqualError(t, cx.SeqCopy(0, 2), "llamalib: sequence 2 is outside the context's [0, 2)")
	require.EqualError(t, cx.SeqCopy(-1, 0), "llamalib: sequence -1 is outside the context's [0, 2)")
	require.EqualError(t, cx.SeqRemove(0, -1), "llamalib: position -1 is negative")
	require.NoError(t, cx.SeqRemove(0, 1))
	end, err := cx.SeqEnd(0)
	require.NoError(t, err)
	assert.Equal(t, 1, end)
	_, err = cx.SeqEnd(5)
	require.EqualError(t, err, "llamalib: sequence 5 is outside the context's [0, 2)")

	_, err = m.NewContext(llamalib.ContextOptions{Sequences: 257})
	require.EqualError(t, err, "llamalib: 257 sequences is out of range [1, 256]")
	_, err = m.NewContext(llamalib.ContextOptions{Sequences: 8, Batch: 4})
	require.EqualError(t, err, "llamalib: 8 sequences need a batch of at least 8 tokens, not 4")

	require.EqualError(t, m.Close(), "llamalib: model "+m.Path()+" still has 1 open contexts; close them first")
	require.NoError(t, cx.Close())
	require.ErrorIs(t, cx.Decode(&b), llamalib.ErrClosed)
}

// TestKVFull: a batch the KV cache has no room for is an error.
func TestKVFull(t *testing.T) {
	m := tinyModel(t)
	cx, err := m.NewContext(llamalib.ContextOptions{Size: 256, Batch: 128, Sequences: 2, Threads: 1})
	require.NoError(t, err)
	defer cx.Close()
	var b llamalib.Batch
	for start := 0; start < 256; start += 128 {
		b.Reset()
		for i := start; i < start+128; i++ {
			b.Add(int32(i), i, i == 255, 0)
		}
		require.NoError(t, cx.Decode(&b))
	}
	b.Reset()
	b.Add(1, 0, true, 1)
	require.EqualError(t, cx.Decode(&b), "llamalib: no room in the KV cache (256 tokens) for a batch of 1; remove sequences or use a larger context")
	require.NoError(t, cx.SeqRemove(0, 0))
	require.NoError(t, cx.Decode(&b))
}
