package onnx

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

// variantCase is a variant of a fixture ("quant" unless named) and how
// close its logits come to its own reference (testmodel's Variant: the
// weights as the file stores them, dequantized).
type variantCase struct {
	variant string
	fixture string
	// exact bounds a call the reference reproduces: one sequence, the
	// prompt in one call and then a token per call. q4 and bnb4 compute
	// in float32 from the dequantized weights, so only summation order
	// differs (fp32's 1e-4). fp16 rounds the cache and logits (float16's
	// precision on logits up to ~10). q4f16 rounds the 4-bit products'
	// inputs and outputs to float16 as the reference does, but also the
	// cache, and a value on a float16 rounding boundary may land a step
	// apart (up to 2.9e-3 seen, about one float16 step at these logits).
	// Dynamic 8-bit quantizes each call's activations as the reference
	// does, but an activation on a rounding boundary may land one step
	// (range/255) apart.
	exact float64
	// batched bounds a score from a batch: for dynamic 8-bit, every row
	// and padding position of a call shares one activation range, so a
	// score depends on its batch (up to 0.036 a token seen here).
	batched float64
}

var variantCases = []variantCase{
	{"q4", "", tol, tol},
	{"fp16", "", 2e-2, 2e-2},
	{"q4f16", "", 1e-2, 1e-2},
	{"bnb4", "", tol, tol},
	{"int8", "", 1e-3, 0.05},
	{"uint8", "", 1e-3, 0.05},
	// onnx-community's usual file: 4-bit weights around fused attention
	{"q4", "community-gqa", tol, tol},
}

func (c variantCase) name() string {
	if c.fixture == "" {
		return c.variant
	}
	return c.fixture + "/" + c.variant
}

func openVariant(t *testing.T, fixtureName, variant string) (*Model, *testmodel.Model) {
	t.Helper()
	if fixtureName == "" {
		fixtureName = "quant"
	}
	fx := fixture(t, fixtureName)
	ref, err := fx.Variant(variant)
	require.NoError(t, err)
	return open(t, fx.Dir, Options{Variant: variant}), ref
}

// referenceGreedy continues prompt greedily for n tokens with the
// reference, as the backend calls the model: the prompt, then a token at
// a time.
func referenceGreedy(ref *testmodel.Model, prompt []int, n int) []int {
	seq := slices.Clone(prompt)
	calls := []int{len(prompt)}
	for len(seq) < len(prompt)+n {
		rows := ref.LogitsInCalls(seq, calls...)
		seq = append(seq, argmax(rows[len(rows)-1]))
		calls = append(calls, 1)
	}
	return seq[len(prompt):]
}

// TestVariantsRun opens each variant through the backend and checks one
// sequence's logits, a μBench-style scoring batch and Featherweight-style
// greedy generation against the variant's reference.
func TestVariantsRun(t *testing.T) {
	for _, c := range variantCases {
		t.Run(c.name(), func(t *testing.T) {
			m, ref := openVariant(t, c.fixture, c.variant)
			assert.Equal(t, ref.Path(c.variant), m.file)
			vocab := ref.Config.Vocab

			seq := ids(9, vocab, 1)
			view, err := m.runners[0].run(m.leftPadded([]stageRow{{tokens: seq}}, len(seq)), nil)
			require.NoError(t, err)
			want := ref.Logits(seq)
			for p := range seq {
				assert.LessOrEqualf(t, maxDiff(want[p], view.row(0, p)), c.exact, "position %d", p)
			}

			ctxA, ctxB := ids(9, vocab, 2), ids(4, vocab, 3)
			seqs := []local.ScoreSeq{
				{Tokens: append(append([]int{1}, ctxA...), ids(1, vocab, 4)...), N: 1},
				{Tokens: append(append([]int{1}, ctxA...), ids(4, vocab, 5)...), N: 4},
				{Tokens: append(append([]int{1}, ctxB...), ids(3, vocab, 6)...), N: 3},
			}
			got, err := m.scoreSeqs(context.Background(), seqs, nil)
			require.NoError(t, err)
			for i, s := range seqs {
				logits := ref.Logits(s.Tokens[:len(s.Tokens)-1])
				var lp float64
				for p := len(s.Tokens) - 1 - s.N; p < len(s.Tokens)-1; p++ {
					lp += testmodel.LogSoftmax(logits[p])[s.Tokens[p+1]]
				}
				assert.InDeltaf(t, lp, got[i].LogProb, c.batched*float64(s.N), "sequence %d", i)
			}

			prompt := append([]int{1}, ids(6, vocab, 7)...)
			out, err := m.decodeSeqs(context.Background(), []local.GenSeq{{Prompt: prompt, MaxNew: 8}}, nil)
			require.NoError(t, err)
			wantTokens := referenceGreedy(ref, prompt, 8)
			if i := slices.Index(wantTokens, testmodel.EOSID); i >= 0 {
				wantTokens = wantTokens[:i+1]
			}
			assert.Equal(t, wantTokens, out[0].Tokens, "greedy tokens")
		})
	}
}

// TestVariantsThroughTheAPI runs each variant as the suites call a model:
// LogLikelihood on μBench-shaped requests (a shared context, several
// continuations) and Generate on a batch of greedy prompts.
func TestVariantsThroughTheAPI(t *testing.T) {
	reqs := []lm.LLRequest{
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat sat on the", Continuation: " hat, and then it slept"},
		{Context: "Question: what is two plus two? Answer:", Continuation: " four"},
		{Context: "Question: what is two plus two? Answer:", Continuation: " five, I think"},
	}
	prompts := []lm.GenerateRequest{
		{Prompt: "Once upon a time", MaxNewTokens: 6, Sampling: lm.Greedy()},
		{Prompt: "The answer is", MaxNewTokens: 6, Sampling: lm.Greedy()},
	}
	for _, c := range variantCases {
		t.Run(c.name(), func(t *testing.T) {
			m, ref := openVariant(t, c.fixture, c.variant)
			base, err := open(t, ref.Dir, Options{}).LogLikelihood(context.Background(), reqs, lm.ScoreOptions{})
			require.NoError(t, err)
			res, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{})
			require.NoError(t, err)
			for i, r := range res {
				require.NoError(t, r.Err, "request %d", i)
				// A variant moves a score by what quantization costs the
				// model: up to 0.26 a token for q4 here, 0.02 for 8-bit.
				assert.InDeltaf(t, base[i].LogProb, r.LogProb, float64(r.ContinuationTokens), "request %d against float32", i)
			}
			gens, err := m.Generate(context.Background(), prompts)
			require.NoError(t, err)
			for i, g := range gens {
				require.NoError(t, g.Err, "prompt %d", i)
				assert.Equal(t, lm.StopLength, g.StopReason, "prompt %d", i)
				assert.Equal(t, 6, g.OutputTokens, "prompt %d", i)
				// Alone or in the batch, the same text.
				one, err := m.Generate(context.Background(), prompts[i:i+1])
				require.NoError(t, err)
				if c.variant == "int8" || c.variant == "uint8" {
					continue // the batch shares an activation range: near ties may differ
				}
				assert.Equal(t, one[0].Text, g.Text, "prompt %d", i)
			}
		})
	}
}

// TestQuantizedHeads: a 4-bit MatMulNBits head is split off like a float
// one, in float32 (q4) or float16 (q4f16, behind the Casts around it);
// TestVariantsRun holds their logits to the reference through the split.
// A dynamic 8-bit head, a MatMulInteger behind DynamicQuantizeLinear, and
// an NF4 MatMulBnb4 head stay in the model, which says so once.
func TestQuantizedHeads(t *testing.T) {
	for v, split := range map[string]bool{"q4": true, "q4f16": true, "int8": false, "bnb4": false} {
		t.Run(v, func(t *testing.T) {
			m, _ := openVariant(t, "", v)
			assert.Equal(t, split, m.runners[0].head != nil, "split")
		})
	}
	t.Run("bnb4 says so once", func(t *testing.T) {
		file := fixture(t, "quant").Path("bnb4")
		var lines []string
		defer func(f func(string, ...any)) { logf = f }(logf)
		logf = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
		want := "onnx: " + file + ": computing logits at every position, as the LM head cannot be split off: logits come from MatMulBnb4, not from a MatMul, Gemm or MatMulNBits head"
		noteMu.Lock()
		delete(noted, want) // another test may have opened it already
		noteMu.Unlock()
		openVariant(t, "", "bnb4")
		openVariant(t, "", "bnb4")
		assert.Equal(t, []string{want}, lines)
	})
}
