package onnx

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
)

func TestSharePrefixes(t *testing.T) {
	seq := func(from, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = from + i
		}
		return out
	}
	cat := func(parts ...[]int) []int {
		var out []int
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// row is a group's context, whose one target reads its last position.
	row := func(tokens []int) stageRow {
		return stageRow{tokens: tokens, targets: []target{{pos: len(tokens) - 1}}}
	}
	shared := seq(100, 10)
	tests := []struct {
		name   string
		rows   []stageRow
		budget int
		want   []int // prefix lengths, in the rows' sorted order
		starts []int // each row's start afterwards
	}{
		{"three rows share 10 tokens, one shares nothing",
			[]stageRow{row(cat(shared, seq(1, 3))), row(seq(500, 20)), row(cat(shared, seq(7, 5))), row(cat(shared, seq(3, 2)))},
			1000, []int{10}, []int{10, 0, 10, 10}},
		{"two rows save 10 tokens, less than a call costs",
			[]stageRow{row(cat(shared, seq(1, 3))), row(cat(shared, seq(7, 5)))},
			1000, nil, []int{0, 0}},
		{"a run grows only while it saves more: 2×20 shared, then 5 with a third row",
			[]stageRow{row(cat(seq(100, 20), seq(1, 4))), row(cat(seq(100, 20), seq(9, 4))), row(cat(seq(100, 5), seq(50, 30)))},
			1000, []int{20}, []int{20, 20, 0}},
		{"a prefix stops before a row's first target",
			[]stageRow{
				row(cat(shared, seq(1, 3))), row(cat(shared, seq(7, 5))),
				{tokens: cat(shared, seq(30, 4)), targets: []target{{pos: 8}, {pos: 13}}}, // a sequence alone, scored from position 8
			},
			1000, []int{8}, []int{8, 8, 8}},
		{"prefixes shorter than the minimum are not shared",
			[]stageRow{row(cat(seq(100, 3), seq(1, 9))), row(cat(seq(100, 3), seq(20, 9))), row(cat(seq(100, 3), seq(40, 9))),
				row(cat(seq(100, 3), seq(60, 9))), row(cat(seq(100, 3), seq(80, 9))), row(cat(seq(100, 3), seq(90, 9))),
				row(cat(seq(100, 3), seq(200, 9))), row(cat(seq(100, 3), seq(300, 9))), row(cat(seq(100, 3), seq(400, 9)))},
			1000, nil, []int{0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"within the budget, the runs that save most: 3×12 before 2×20",
			[]stageRow{row(cat(seq(100, 20), seq(1, 4))), row(cat(seq(100, 20), seq(9, 4))),
				row(cat(seq(300, 12), seq(1, 4))), row(cat(seq(300, 12), seq(9, 4))), row(cat(seq(300, 12), seq(20, 4)))},
			25, []int{12}, []int{0, 0, 12, 12, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]stageRow, len(tt.rows))
			for i, r := range tt.rows {
				before[i] = r
				before[i].targets = append([]target(nil), r.targets...)
			}
			got := sharePrefixes(tt.rows, tt.budget)
			var lens []int
			for _, p := range got {
				lens = append(lens, len(p.tokens))
			}
			assert.Equal(t, tt.want, lens)
			for i, r := range tt.rows {
				assert.Equal(t, tt.starts[i], r.start(), "row %d", i)
				// The row and its prefix are the tokens it had; targets move
				// with the tokens.
				full := r.tokens
				if r.shared != nil {
					full = cat(r.shared.tokens, r.tokens)
				}
				assert.Equal(t, before[i].tokens, full, "row %d", i)
				for k, tg := range r.targets {
					assert.Equal(t, before[i].targets[k].pos-r.start(), tg.pos, "row %d target %d", i, k)
				}
			}
		})
	}
}

// TestUnderPrefixes: a stage-1 call's past holds each row's prefix cache
// from slot 0 of every head, zeros after it, and the mask says which
// slots are real: the prefix's own mask (its stage-0 left padding
// masked), then zeros, then the row's own mask.
func TestUnderPrefixes(t *testing.T) {
	// Stage 0 ran two prefixes in one call of width 3: [p p p] and [pad q q].
	kv := &kvCache{heads: 2, dim: 1, elem: 4, bufs: make([][]byte, 2)}
	kv.resize(2, 3)
	for i := range kv.bufs {
		f := asFloat32(kv.bufs[i])
		for k := range f {
			f[k] = float32(100*i + k + 1) // row-major [row, head, slot]
		}
	}
	long := &sharedPrefix{tokens: []int{7, 8, 9}, kv: kv, row: 0, mask: []int64{1, 1, 1}}
	short := &sharedPrefix{tokens: []int{5, 6}, kv: kv, row: 1, mask: []int64{0, 1, 1}}
	// A shorter cache from another stage-0 call: [r].
	one := &kvCache{heads: 2, dim: 1, elem: 4, bufs: make([][]byte, 2)}
	one.resize(1, 1)
	for i := range one.bufs {
		copy(asFloat32(one.bufs[i]), []float32{float32(-10*i - 1), float32(-10*i - 2)})
	}
	single := &sharedPrefix{tokens: []int{4}, kv: one, row: 0, mask: []int64{1}}

	rows := []stageRow{
		{tokens: []int{1, 2}, shared: long},
		{tokens: []int{3}, shared: short},
		{tokens: []int{1, 1}},
		{tokens: []int{2}, shared: single},
	}
	st := &step{rows: len(rows), seq: 2, mask: []int64{1, 1, 0, 1, 1, 1, 0, 1}}
	into := &kvCache{heads: 2, dim: 1, elem: 4, bufs: make([][]byte, 2)}
	into.resize(4, 5)
	for i := range into.bufs {
		for k := range asFloat32(into.bufs[i]) {
			asFloat32(into.bufs[i])[k] = 999 // a former call's values
		}
	}
	underPrefixes(st, rows, into)

	assert.Same(t, into, st.past)
	assert.Equal(t, 3, into.length, "the longest prefix cache")
	assert.Equal(t, []int64{
		1, 1, 1, 1, 1,
		0, 1, 1, 0, 1,
		0, 0, 0, 1, 1,
		1, 0, 0, 0, 1,
	}, st.mask)
	// Per row, per head, 3 slots.
	assert.Equal(t, []float32{
		1, 2, 3, 4, 5, 6, // the long prefix: row 0 of kv
		7, 8, 9, 10, 11, 12, // the short one: row 1
		0, 0, 0, 0, 0, 0, // no prefix
		-1, 0, 0, -2, 0, 0, // a one-slot cache, zeros after it in each head
	}, asFloat32(into.bufs[0]))
	assert.Equal(t, []float32{-11, 0, 0, -12, 0, 0}, asFloat32(into.bufs[1])[18:])

	// A call without prefixes keeps its own mask and no past.
	plain := &step{rows: 1, seq: 2, mask: []int64{1, 1}}
	underPrefixes(plain, []stageRow{{tokens: []int{1, 2}}}, into)
	assert.Nil(t, plain.past)
	assert.Equal(t, []int64{1, 1}, plain.mask)
}

// TestPlansAgreeOnRandomWork scores many sequences built to share
// prefixes of every length, contexts, and continuations of every length,
// under small budgets that force many calls of stages 0, 1 and 2, and
// holds every score to the same sequences scored one at a time without
// a cache. It found that GroupQueryAttention refuses a stage-2 call of
// several rows of several tokens.
func TestPlansAgreeOnRandomWork(t *testing.T) {
	for _, name := range []string{"llama-gqa", "keep", "gpt2", "gemma3", "community-gqa", "genai-gqa"} {
		t.Run(name, func(t *testing.T) {
			ref := fixture(t, name)
			vocab := ref.Config.Vocab
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			var seqs []local.ScoreSeq
			for p := 0; p < 6; p++ { // templates
				prefix := append([]int{1}, ids(rng.IntN(14), vocab, 100+p)...)
				for q := 0; q < 1+rng.IntN(5); q++ { // questions
					ctx := append(slices.Clone(prefix), ids(1+rng.IntN(9), vocab, 200+10*p+q)...)
					for c := 0; c < 1+rng.IntN(4); c++ { // choices
						n := 1 + rng.IntN(5)
						seqs = append(seqs, local.ScoreSeq{Tokens: append(slices.Clone(ctx), ids(n, vocab, 1000+100*p+10*q+c)...), N: n})
					}
				}
			}
			for _, budget := range []int{24, 0} {
				m := open(t, ref.Dir, Options{BatchTokens: budget})
				if budget == 0 && m.spec.leftPadOK() {
					assert.NotEmpty(t, sharePrefixes(planRows(seqs, true), m.contTokens()), "the work exercises stage 0")
				}
				if budget > 0 {
					m.contBytes = 1 // stage 2 at its floor of 64 cached tokens a call
					if m.spec.leftPadOK() {
						_, waves := m.scorePlan(seqs)
						assert.True(t, mixesPasts(waves), "the work runs contexts of different lengths in one stage-2 call")
					}
				}
				got, err := m.scoreSeqs(context.Background(), seqs, nil)
				require.NoError(t, err)
				m.noCache = true
				for i, s := range seqs {
					one, err := m.scoreSeqs(context.Background(), []local.ScoreSeq{s}, nil)
					require.NoError(t, err)
					assert.InDelta(t, one[0].LogProb, got[i].LogProb, tol, "budget %d, sequence %d", budget, i)
					assert.Equal(t, one[0].Greedy, got[i].Greedy, "budget %d, sequence %d", budget, i)
				}
			}
		})
	}
}

// mixesPasts says whether a wave holds kept caches of different lengths
// (a batch's shared prefixes and width), whose continuations then share
// stage-2 calls.
func mixesPasts(waves [][][]stageRow) bool {
	for _, w := range waves {
		lengths := map[int]bool{}
		for _, b := range w {
			if n := keptTokens(b); n > 0 {
				lengths[n/len(b)] = true
			}
		}
		if len(lengths) > 1 {
			return true
		}
	}
	return false
}

// TestDecodeAgreesOnRandomWork generates greedily for prompts built to
// share prefixes of every length, with different lengths to generate, in
// one call and each alone, and holds every step's logits together
// (batching, stage 0's prefixes, rows leaving the batch as they finish).
func TestDecodeAgreesOnRandomWork(t *testing.T) {
	for _, name := range []string{"llama-gqa", "keep", "gemma3", "community-gqa"} {
		t.Run(name, func(t *testing.T) {
			ref, tolerance := reference(t, name)
			m := open(t, fixture(t, name).Dir, Options{})
			vocab := ref.Config.Vocab
			rng := rand.New(rand.NewPCG(11, uint64(len(name))))
			var seqs []local.GenSeq
			for p := 0; p < 4; p++ {
				prefix := ids(rng.IntN(16), vocab, 300+p)
				for q := 0; q < 1+rng.IntN(4); q++ {
					prompt := append(slices.Clone(prefix), ids(1+rng.IntN(6), vocab, 400+10*p+q)...)
					seqs = append(seqs, local.GenSeq{Prompt: prompt, MaxNew: 1 + rng.IntN(6)})
				}
			}
			if m.spec.leftPadOK() {
				var rows []stageRow
				for _, s := range seqs {
					rows = append(rows, stageRow{tokens: s.Prompt, targets: []target{{pos: len(s.Prompt) - 1}}})
				}
				assert.NotEmpty(t, sharePrefixes(rows, m.contTokens()), "the prompts exercise stage 0")
			}
			logits := func(seqs []local.GenSeq) [][][]float32 {
				out := make([][][]float32, len(seqs))
				var mu sync.Mutex
				_, err := m.decodeSeqs(context.Background(), seqs, func(seq int, l []float32) {
					mu.Lock()
					out[seq] = append(out[seq], slices.Clone(l))
					mu.Unlock()
				})
				require.NoError(t, err)
				return out
			}
			all := logits(seqs)
			for i, s := range seqs {
				one := logits([]local.GenSeq{s})[0]
				require.Len(t, all[i], len(one), "prompt %d", i)
				for k := range one {
					assert.LessOrEqualf(t, maxDiff(one[k], all[i][k]), tolerance, "prompt %d step %d", i, k)
				}
			}
		})
	}
}

// TestSharePrefixesScales: one template behind many rows is found in time
// linear in the rows, as runs of at most maxShareRun rows.
func TestSharePrefixesScales(t *testing.T) {
	var rows []stageRow
	for i := 0; i < 3*maxShareRun; i++ {
		tokens := []int{1, 2, 3, 4, 5, 6, 1000 + i, 7}
		rows = append(rows, stageRow{tokens: tokens, targets: []target{{pos: len(tokens) - 1}}})
	}
	got := sharePrefixes(rows, 1<<20)
	assert.Len(t, got, 3)
	for _, p := range got {
		assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, p.tokens)
	}
}

// TestStageZeroComputesNoLogits: a stage-0 call fills its prefixes'
// cache and computes no logits it can skip: on a split model the head
// never runs (the runner's logits buffer is never allocated), on a
// logits-to-keep export one position a row is kept. Scoring over shared
// prefixes still agrees with scoring without them
// (TestPlansAgreeOnRandomWork).
func TestStageZeroComputesNoLogits(t *testing.T) {
	for _, tt := range []struct {
		fixture   string
		logitRows int // rows of logits the call computed
	}{{"llama-gqa", 0}, {"keep", 2}} {
		t.Run(tt.fixture, func(t *testing.T) {
			fx := fixture(t, tt.fixture)
			m := open(t, fx.Dir, Options{})
			r, err := newRunner(m.file, m.spec, m.runners[0].split, nil, "", 0, 0)
			require.NoError(t, err)
			t.Cleanup(func() { r.close() })
			require.True(t, r.logitsWhereRead(), "the runner computes logits only where asked")

			batch := []*sharedPrefix{{tokens: ids(9, fx.Config.Vocab, 5)}, {tokens: ids(6, fx.Config.Vocab, 6)}}
			require.NoError(t, m.runPrefixes(r, batch))
			assert.Equal(t, tt.logitRows*fx.Config.Vocab*elemSize(m.spec.logitsType), len(r.logits), "logits computed")
			for b, p := range batch {
				require.NotNil(t, p.kv, "prefix %d", b)
				assert.Equal(t, 9, p.kv.length, "prefix %d: the cache of the call's width", b)
				assert.Equal(t, b, p.row)
			}
		})
	}
}
