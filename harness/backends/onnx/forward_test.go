package onnx

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

const tol = 1e-4

// reference returns the Go model whose logits the fixture's main file
// should reproduce, and the tolerance: float16 files round weights, cache
// and logits, so they get float16's precision on logits of magnitude ~10.
func reference(t *testing.T, name string) (*testmodel.Model, float64) {
	fx := fixture(t, name)
	if !fx.Config.FP16 {
		return fx, tol
	}
	ref, err := fx.Variant("fp16")
	require.NoError(t, err)
	return ref, 2e-2
}

// TestForwardMatchesReference runs batches through the backend's own
// forward path (left padding, mask, positions, empty cache) and compares
// every real position with the Go reference forward.
func TestForwardMatchesReference(t *testing.T) {
	for _, name := range []string{"gpt2", "llama-gqa", "llama-nopos", "nopast", "merged", "fp16", "external", "tied", "keep", "keep-merged", "genai-gqa", "community-gqa", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			ref, tolerance := reference(t, name)
			m := open(t, fixture(t, name).Dir, Options{})
			vocab := ref.Config.Vocab
			lens := []int{7, 3, 7, 1}
			if !m.spec.leftPadOK() {
				lens = []int{5, 5} // such exports only batch equal lengths
			}
			var rows []stageRow
			for i, n := range lens {
				rows = append(rows, stageRow{tokens: ids(n, vocab, i)})
			}
			st := m.leftPadded(rows, 7)
			if !m.spec.leftPadOK() {
				st = m.leftPadded(rows, 5)
			}
			view, err := m.runners[0].run(st, nil)
			require.NoError(t, err)
			for b, row := range rows {
				want := ref.Logits(row.tokens)
				pad := st.seq - len(row.tokens)
				for p := range row.tokens {
					assert.LessOrEqualf(t, maxDiff(want[p], view.row(b, pad+p)), tolerance, "row %d position %d", b, p)
				}
			}
		})
	}
}

// TestDecodeCachedEqualsRecompute decodes with the cache and by full
// recomputation at every step: the tokens must be identical, the logits
// within tolerance of each other and of the reference.
func TestDecodeCachedEqualsRecompute(t *testing.T) {
	for _, name := range []string{"gpt2", "llama-gqa", "llama-nopos", "merged", "fp16", "keep", "keep-merged", "genai-gqa", "community-gqa", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			ref, tolerance := reference(t, name)
			m := open(t, fixture(t, name).Dir, Options{})
			vocab := ref.Config.Vocab
			// The last three prompts share 10 tokens, which the cached
			// decoder runs once (stage 0) where left padding works.
			shared := ids(10, vocab, 4)
			seqs := []local.GenSeq{
				{Prompt: ids(6, vocab, 1), MaxNew: 8},
				{Prompt: ids(3, vocab, 2), MaxNew: 5},
				{Prompt: ids(6, vocab, 3), MaxNew: 8},
				{Prompt: append(slices.Clone(shared), ids(4, vocab, 5)...), MaxNew: 6},
				{Prompt: append(slices.Clone(shared), ids(4, vocab, 6)...), MaxNew: 3},
				{Prompt: append(slices.Clone(shared), ids(4, vocab, 7)...), MaxNew: 6},
			}
			if !m.spec.leftPadOK() {
				seqs[1].Prompt = ids(6, vocab, 2)
			} else if m.spec.layers > 0 {
				var rows []stageRow
				for _, s := range seqs {
					rows = append(rows, stageRow{tokens: s.Prompt, targets: []target{{pos: len(s.Prompt) - 1}}})
				}
				assert.Len(t, sharePrefixes(rows, 1<<20), 1, "the case exercises stage 0")
			}
			decode := func(noCache bool) ([]local.GenOut, [][][]float32) {
				m.noCache = noCache
				var mu sync.Mutex
				logits := make([][][]float32, len(seqs))
				out, err := m.decodeSeqs(context.Background(), seqs, func(seq int, l []float32) {
					mu.Lock()
					logits[seq] = append(logits[seq], slices.Clone(l))
					mu.Unlock()
				})
				require.NoError(t, err)
				return out, logits
			}
			cached, cachedLogits := decode(false)
			full, fullLogits := decode(true)
			for i, s := range seqs {
				require.Equal(t, full[i].Tokens, cached[i].Tokens, "sequence %d", i)
				assert.Equal(t, full[i].Stop, cached[i].Stop)
				seq := append(slices.Clone(s.Prompt), cached[i].Tokens...)
				want := ref.Logits(seq[:len(seq)-1])
				for k := range cached[i].Tokens {
					assert.LessOrEqualf(t, maxDiff(cachedLogits[i][k], fullLogits[i][k]), tolerance, "sequence %d step %d: cached vs recomputed", i, k)
					assert.LessOrEqualf(t, maxDiff(want[len(s.Prompt)-1+k], cachedLogits[i][k]), tolerance, "sequence %d step %d: against the reference", i, k)
				}
			}
		})
	}
}

// TestBatchedEqualsSingle checks that batching (left padding, mask,
// positions, shared contexts, several calls) changes nothing.
func TestBatchedEqualsSingle(t *testing.T) {
	prompts := []string{"The cat sat on the mat.", "Hello", "A longer prompt, with more words in it than the others.", "Why?"}
	llReqs := []lm.LLRequest{
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat sat on the", Continuation: " hat, and then it slept"},
		{Context: "The cat sat on the", Continuation: " dog"},
		{Context: "Question: what is two plus two? Answer:", Continuation: " four"},
		{Context: "Question: what is two plus two? Answer:", Continuation: " five, I think"},
		{Context: "", Continuation: "Once upon a time"},
		{Context: "Hello", Continuation: " world"},
	}
	for _, name := range []string{"gpt2", "llama-gqa", "llama-nopos", "nopast", "merged", "keep", "keep-merged", "genai-gqa", "community-gqa", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			dir := fixture(t, name).Dir
			for _, budget := range []int{0, 16} {
				m := open(t, dir, Options{BatchTokens: budget})
				ctx := context.Background()
				var reqs []lm.GenerateRequest
				for _, p := range prompts {
					reqs = append(reqs, lm.GenerateRequest{Prompt: p, MaxNewTokens: 6})
				}
				batched, err := m.Generate(ctx, reqs)
				require.NoError(t, err)
				for i, req := range reqs {
					single, err := m.Generate(ctx, []lm.GenerateRequest{req})
					require.NoError(t, err)
					require.NoError(t, single[0].Err)
					assert.Equal(t, single[0].Text, batched[i].Text, "prompt %d, budget %d", i, budget)
					assert.Equal(t, single[0].OutputTokens, batched[i].OutputTokens)
					assert.Equal(t, single[0].StopReason, batched[i].StopReason)
				}

				all, err := m.LogLikelihood(ctx, llReqs, lm.ScoreOptions{})
				require.NoError(t, err)
				for i, req := range llReqs {
					one, err := m.LogLikelihood(ctx, []lm.LLRequest{req}, lm.ScoreOptions{})
					require.NoError(t, err)
					require.NoError(t, one[0].Err)
					require.NoError(t, all[i].Err)
					assert.InDelta(t, one[0].LogProb, all[i].LogProb, tol, "request %d, budget %d", i, budget)
					assert.Equal(t, one[0].IsGreedy, all[i].IsGreedy)
					assert.Equal(t, one[0].ContextTokens, all[i].ContextTokens)
					assert.Equal(t, one[0].ContinuationTokens, all[i].ContinuationTokens)
				}
			}
		})
	}
}

// TestScoreMatchesReference checks summed log-probabilities against the
// reference forward on a random (not designed) model, with the cached
// plan (stages 0 to 2) and without a cache.
func TestScoreMatchesReference(t *testing.T) {
	for _, name := range []string{"llama-gqa", "nopast", "gpt2", "keep", "keep-merged", "genai-gqa", "community-gqa", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			ref := fixture(t, name)
			m := open(t, ref.Dir, Options{})
			vocab := ref.Config.Vocab
			seq := func(n int, parts ...[]int) local.ScoreSeq {
				s := local.ScoreSeq{Tokens: []int{1}, N: n}
				for _, p := range parts {
					s.Tokens = append(s.Tokens, p...)
				}
				return s
			}
			ctxA, ctxB := ids(9, vocab, 1), ids(4, vocab, 2)
			// Contexts that share a prefix without being equal: stage 0 runs
			// the 12 and 8 tokens (BOS included) once each, for two rows
			// each, which saves more than a call costs; stage 1 puts them
			// under rows of one call beside rows without a prefix.
			long, short := ids(11, vocab, 8), ids(7, vocab, 9)
			ctxC, ctxD := ids(3, vocab, 10), ids(2, vocab, 11)
			seqs := []local.ScoreSeq{
				seq(1, ctxA, ids(1, vocab, 3)),
				seq(4, ctxA, ids(4, vocab, 4)),
				seq(2, ctxA, ids(2, vocab, 5)),
				seq(3, ctxB, ids(3, vocab, 6)),
				// Stage 2 runs this one with the 4-token one above, right-padded
				// where the export allows padding.
				seq(5, ctxA, ids(5, vocab, 7)),
				seq(2, long, ctxC, ids(2, vocab, 12)),
				seq(1, long, ctxC, ids(1, vocab, 13)),
				seq(3, long, ids(6, vocab, 14), ids(3, vocab, 15)), // alone
				seq(1, short, ctxD, ids(1, vocab, 16)),
				seq(3, short, ctxD, ids(3, vocab, 17)),
				seq(2, short, ids(4, vocab, 18), ids(2, vocab, 19)), // alone
			}
			if m.spec.leftPadOK() && m.spec.layers > 0 && !m.noCache {
				assert.Len(t, sharePrefixes(planRows(seqs, true), 1<<20), 2, "the case exercises stage 0")
			}
			got, err := m.scoreSeqs(context.Background(), seqs, nil)
			require.NoError(t, err)
			for i, s := range seqs {
				logits := ref.Logits(s.Tokens[:len(s.Tokens)-1])
				var want float64
				greedy := true
				for p := len(s.Tokens) - 1 - s.N; p < len(s.Tokens)-1; p++ {
					want += testmodel.LogSoftmax(logits[p])[s.Tokens[p+1]]
					greedy = greedy && argmax(logits[p]) == s.Tokens[p+1]
				}
				assert.InDelta(t, want, got[i].LogProb, tol, "sequence %d", i)
				assert.Equal(t, greedy, got[i].Greedy, "sequence %d", i)
			}
		})
	}
}

// wantParams is the count Info reports: the model's parameters plus, for
// Llama, the RoPE frequency table the graph stores as a float constant
// (head_dim/2 values), as real exports do.
func wantParams(fx *testmodel.Model) int64 {
	n := fx.ParamCount()
	if c := fx.Config; c.Arch == testmodel.Llama && !(c.GroupQueryAttention && !c.PositionIDs) { // not when the operator rotates
		n += int64(fx.Config.HeadDim / 2)
	}
	return n
}

func TestParamCount(t *testing.T) {
	for _, name := range []string{"gpt2", "llama-gqa", "tied", "external", "fp16", "merged", "nopast", "genai-gqa", "community-gqa", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			fx := fixture(t, name)
			g, _, err := readGraphSummary(fx.File)
			require.NoError(t, err)
			assert.Equal(t, wantParams(fx), g.paramCount())
		})
	}
	t.Run("quantized", func(t *testing.T) {
		fx := fixture(t, "llama-gqa")
		g, _, err := readGraphSummary(fx.Path("quantized"))
		require.NoError(t, err)
		assert.Equal(t, wantParams(fx), g.paramCount(), "scales and zero points are not parameters")
	})
	for _, v := range []string{"q4", "int8", "uint8", "q4f16", "bnb4"} {
		t.Run(v, func(t *testing.T) {
			fx := fixture(t, "quant")
			g, _, err := readGraphSummary(fx.Path(v))
			require.NoError(t, err)
			assert.Equal(t, wantParams(fx), g.paramCount(), "a quantized file counts the model it encodes")
		})
	}
}

func TestInfo(t *testing.T) {
	fx := fixture(t, "llama-gqa")
	m := open(t, fx.Dir, Options{Key: "tiny"})
	assert.Equal(t, lm.Info{Key: "tiny", Name: "llama-gqa", Backend: "onnx", Path: fx.Dir, Params: wantParams(fx),
		ContextLength: fx.Config.MaxPositions, Chat: false}, m.Info())
	assert.Equal(t, 1, m.prefix, "BOS")
	assert.Equal(t, []int{testmodel.EOSID}, m.eos)

	q := open(t, fx.Dir, Options{Variant: "quantized", Name: "tiny q8"})
	assert.Equal(t, "tiny q8", q.Info().Name)
	assert.Equal(t, fx.Path("quantized"), q.file)
}

// TestParallelSessions spreads small batches over several sessions: the
// results are the same as one session's, in request order.
func TestParallelSessions(t *testing.T) {
	dir := fixture(t, "llama-gqa").Dir
	one := open(t, dir, Options{BatchTokens: 16})
	three := open(t, dir, Options{BatchTokens: 16, Sessions: 3, Threads: 1})
	require.Len(t, three.runners, 3)
	var reqs []lm.LLRequest
	var gens []lm.GenerateRequest
	for i := 0; i < 12; i++ {
		ctx := fmt.Sprintf("Item %d: the answer is", i)
		for _, c := range []string{" yes", " no", " maybe not"} {
			reqs = append(reqs, lm.LLRequest{Context: ctx, Continuation: c})
		}
		gens = append(gens, lm.GenerateRequest{Prompt: ctx, MaxNewTokens: 4})
	}
	ctx := context.Background()
	want, err := one.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	got, err := three.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	for i := range reqs {
		assert.InDelta(t, want[i].LogProb, got[i].LogProb, tol, "request %d", i)
	}
	// Concurrent calls on one session take turns.
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			again, err := one.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
			assert.NoError(t, err)
			for i := range reqs {
				assert.InDelta(t, want[i].LogProb, again[i].LogProb, tol, "request %d", i)
			}
		}()
	}
	wg.Wait()
	wantGen, err := one.Generate(ctx, gens)
	require.NoError(t, err)
	gotGen, err := three.Generate(ctx, gens)
	require.NoError(t, err)
	for i := range gens {
		assert.Equal(t, wantGen[i].Text, gotGen[i].Text, "prompt %d", i)
	}
}

// TestScoreProgress: a scoring call reports its sequences as batches
// finish, one call at a time, never going back, ending at the total.
func TestScoreProgress(t *testing.T) {
	m := open(t, fixture(t, "llama-gqa").Dir, Options{BatchTokens: 32, Sessions: 2})
	var reqs []lm.LLRequest
	for i := range 40 {
		reqs = append(reqs, lm.LLRequest{Context: fmt.Sprintf("Question %d: which is it?", i%10), Continuation: fmt.Sprintf(" choice %d", i)})
	}
	for _, call := range []struct {
		name  string
		run   func(progress func(done, total int)) error
		total int
	}{
		{"LogLikelihood", func(p func(int, int)) error {
			_, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{Progress: p})
			return err
		}, len(reqs)},
		{"RollingLogLikelihood", func(p func(int, int)) error {
			_, err := m.RollingLogLikelihood(context.Background(), []string{strings.Repeat("a long document ", 40), "short"}, lm.ScoreOptions{MaxLength: 32, Progress: p})
			return err
		}, -1},
	} {
		t.Run(call.name, func(t *testing.T) {
			var seen [][2]int
			var inside atomic.Int32
			overlapped := false
			require.NoError(t, call.run(func(done, total int) {
				if inside.Add(1) > 1 {
					overlapped = true
				}
				time.Sleep(time.Millisecond) // room for another batch's report to collide
				seen = append(seen, [2]int{done, total})
				inside.Add(-1)
			}))
			assert.False(t, overlapped, "progress calls overlap")
			require.Greater(t, len(seen), 1, "several batches, several reports")
			last := seen[len(seen)-1]
			assert.Equal(t, last[1], last[0], "the last report says done == total")
			if call.total > 0 {
				assert.Equal(t, call.total, last[1])
			}
			for i := 1; i < len(seen); i++ {
				assert.GreaterOrEqual(t, seen[i][0], seen[i-1][0], "done never decreases")
				assert.Equal(t, last[1], seen[i][1])
			}
		})
	}
}

// TestBatchBudgets: scoring's token budget keeps a call's logits near
// logitsBudget (1024 tokens of a 16k vocabulary); generation goes to
// maxBatchTokens only where logits are computed where read (a split
// head, a logits-to-keep input), and an explicit BatchTokens sets both.
func TestBatchBudgets(t *testing.T) {
	for _, tt := range []struct {
		fixture    string
		opt        Options
		whereRead  bool
		score, gen int
	}{
		{"wide-vocab", Options{}, true, 1024, maxBatchTokens},
		{"wide-vocab-merged", Options{}, false, 1024, 1024}, // runs whole: every position's logits
		{"keep", Options{}, true, maxBatchTokens, maxBatchTokens},
		{"wide-vocab", Options{BatchTokens: 100}, true, 100, 100},
	} {
		m := open(t, fixture(t, tt.fixture).Dir, tt.opt)
		assert.Equal(t, tt.whereRead, m.runners[0].logitsWhereRead(), tt.fixture)
		assert.Equal(t, tt.score, m.batchTokens, "%s %+v: scoring", tt.fixture, tt.opt)
		assert.Equal(t, tt.gen, m.genTokens, "%s %+v: generation", tt.fixture, tt.opt)
	}
}
