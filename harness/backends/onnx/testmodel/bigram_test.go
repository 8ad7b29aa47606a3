package testmodel_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

func TestBigramTableMatchesORT(t *testing.T) {
	orttest.Require(t)
	for _, tc := range []struct {
		name string
		cfg  testmodel.BigramConfig
	}{
		{"plain", testmodel.BigramConfig{Config: testmodel.Config{Seed: 11, KVHeads: 2}}},
		{"wide, position_ids, our 2048-token vocabulary", testmodel.BigramConfig{Config: testmodel.Config{Seed: 12, Hidden: 256, Vocab: 2048, PositionIDs: true}}},
		{"chain, merged layout", testmodel.BigramConfig{
			Config: testmodel.Config{Seed: 13, Layout: testmodel.LayoutMerged, EOSIDs: []int{testmodel.EOSID, testmodel.IMEndID}},
			Next:   map[int]int{testmodel.BOSID: 300, 300: 301, 301: 302, 302: testmodel.IMEndID},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bg, err := testmodel.BuildBigram(filepath.Join(t.TempDir(), "bigram"), tc.cfg)
			require.NoError(t, err)
			s := openSession(t, bg.Model, bg.File)
			ids := append([]int{testmodel.BOSID}, tokens(40, bg.Config.Vocab, 5)...)
			got, cache := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(len(ids))}, [][]int64{seqPositions(0, len(ids))}, nil)
			var fromORT float64
			for p, tok := range ids {
				lp := testmodel.LogSoftmax(got[0][p])
				row := bg.Row(tok)
				var worst float64
				for v := range lp {
					worst = math.Max(worst, math.Abs(lp[v]-row[v]))
				}
				// The design makes float32 exact; 1e-6 is the bar users rely on.
				assert.LessOrEqualf(t, worst, 1e-6, "position %d (token %d)", p, tok)
				if p+1 < len(ids) {
					fromORT += lp[ids[p+1]]
				}
			}
			assert.InDelta(t, bg.SequenceLogProb(ids), fromORT, 1e-5)
			// The cache changes nothing: a decoding step sees only its token.
			step, _ := s.step(t, [][]int64{{int64(ids[3])}}, [][]int64{ones(len(ids) + 1)}, [][]int64{{int64(len(ids))}}, cache)
			lp := testmodel.LogSoftmax(step[0][0])
			for v := range lp {
				require.InDelta(t, bg.LogProb(ids[3], v), lp[v], 1e-6)
			}
		})
	}
}

func TestBigramClosedForms(t *testing.T) {
	bg, err := testmodel.BuildBigram(filepath.Join(t.TempDir(), "bigram"), testmodel.BigramConfig{
		Config: testmodel.Config{Seed: 14, EOSIDs: []int{testmodel.IMEndID}},
		Next:   map[int]int{testmodel.BOSID: 300, 300: 301, 301: testmodel.IMEndID, 400: 400},
		Margin: 5,
	})
	require.NoError(t, err)
	assert.Equal(t, []int{300, 301, testmodel.IMEndID}, bg.Greedy(testmodel.BOSID, 10), "greedy stops after EOS")
	assert.Equal(t, []int{400, 400, 400}, bg.Greedy(400, 3), "greedy stops at maxNew")
	for prev, next := range map[int]int{testmodel.BOSID: 300, 300: 301, 301: testmodel.IMEndID} {
		row := bg.Row(prev)
		for v, lp := range row {
			if v != next {
				assert.LessOrEqualf(t, lp, row[next]-5, "Next[%d]=%d clears token %d by the margin", prev, next, v)
			}
		}
	}
	var total float64
	for _, lp := range bg.Row(77) {
		total += math.Exp(lp)
	}
	assert.InDelta(t, 1, total, 1e-12, "rows are distributions")

	seq := []int{testmodel.BOSID, 300, 301, 5, 9}
	want := bg.LogProb(1, 300) + bg.LogProb(300, 301) + bg.LogProb(301, 5) + bg.LogProb(5, 9)
	assert.Equal(t, want, bg.SequenceLogProb(seq))
	lp, greedy := bg.ContinuationLogProb(seq[:2], seq[2:3])
	assert.Equal(t, bg.LogProb(300, 301), lp)
	assert.True(t, greedy)
	lp, greedy = bg.ContinuationLogProb(seq[:3], seq[3:])
	assert.Equal(t, bg.LogProb(301, 5)+bg.LogProb(5, 9), lp)
	assert.False(t, greedy)
}

func TestBigramRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		cfg  testmodel.BigramConfig
		want string
	}{
		{testmodel.BigramConfig{Config: testmodel.Config{Arch: testmodel.GPT2}}, `testmodel: designed bigram models are Llama-style; leave Arch empty or set it to "llama"`},
		{testmodel.BigramConfig{Config: testmodel.Config{TiedEmbeddings: true}}, "testmodel: a designed bigram model's LM head holds its table, so it cannot be tied to the embedding; drop TiedEmbeddings"},
		{testmodel.BigramConfig{Config: testmodel.Config{Hidden: 32}}, "testmodel: a designed bigram model needs Hidden 16, 64, 256 or 1024 (a power of 4, so RMSNorm is exact in float32); got 32"},
		{testmodel.BigramConfig{Config: testmodel.Config{Hidden: 16, Heads: 2}, Next: map[int]int{1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8, 8: 9, 9: 10, 10: 11, 11: 12, 12: 13, 13: 14, 14: 15, 15: 16, 16: 17}}, "testmodel: 16 Next entries need Hidden > 16 (got 16): each takes a class of its own"},
		{testmodel.BigramConfig{Next: map[int]int{1: 512}}, "testmodel: Next entry 1 → 512 is outside the vocabulary [0, 512)"},
	} {
		_, err := testmodel.BuildBigram(filepath.Join(t.TempDir(), "b"), tc.cfg)
		assert.EqualError(t, err, tc.want)
	}
}
