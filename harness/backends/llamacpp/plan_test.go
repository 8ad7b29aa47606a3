package llamacpp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backends/local"
)

// planSeqs begin alike in several ways: three share a context and score
// its next token (one of them twice over), one goes on past it, one
// parts from them earlier, one shares only the first token.
var planSeqs = []local.ScoreSeq{
	{Tokens: []int{0, 8, 8, 8, 1}, N: 1},    // 0: shares the first token
	{Tokens: []int{0, 1, 2, 3, 5, 6}, N: 2}, // 1: goes on past 3's context
	{Tokens: []int{0, 1, 2, 9, 7}, N: 1},    // 2: parts after three tokens
	{Tokens: []int{0, 1, 2, 3, 4}, N: 1},    // 3
	{Tokens: []int{0, 1, 2, 3, 4}, N: 1},    // 4: 3 again
	{Tokens: []int{0, 1, 2, 3, 7}, N: 1},    // 5: another choice after 3's context
}

// TestPlanTree: one wave decodes each distinct prefix once, in one cell
// that carries the id of every sequence through it, parents first; a
// row's logits are read where it predicts scored tokens, for all of them.
func TestPlanTree(t *testing.T) {
	got := plan(planSeqs, 64, 100, 100)
	assert.Equal(t, []wave{{
		members: []int{3, 4, 5, 1, 2, 0},
		nodes: []node{
			{token: 0, pos: 0, seqs: []int{0, 1, 2, 3, 4, 5}},
			{token: 1, pos: 1, seqs: []int{0, 1, 2, 3, 4}},
			{token: 2, pos: 2, seqs: []int{0, 1, 2, 3, 4}},
			{token: 3, pos: 3, seqs: []int{0, 1, 2, 3}, reads: []target{{3, 4}, {4, 4}, {5, 7}, {1, 5}}},
			{token: 5, pos: 4, seqs: []int{3}, reads: []target{{1, 6}}},
			{token: 9, pos: 3, seqs: []int{4}, reads: []target{{2, 7}}},
			{token: 8, pos: 1, seqs: []int{5}},
			{token: 8, pos: 2, seqs: []int{5}},
			{token: 8, pos: 3, seqs: []int{5}, reads: []target{{0, 1}}},
		},
	}}, got)

	// A wave after a cut starts its tree and its ids afresh.
	got = plan(planSeqs, 3, 100, 100)
	assert.Len(t, got, 2)
	assert.Equal(t, wave{
		members: []int{1, 2, 0},
		nodes: []node{
			{token: 0, pos: 0, seqs: []int{0, 1, 2}},
			{token: 1, pos: 1, seqs: []int{0, 1}},
			{token: 2, pos: 2, seqs: []int{0, 1}},
			{token: 3, pos: 3, seqs: []int{0}, reads: []target{{1, 5}}},
			{token: 5, pos: 4, seqs: []int{0}, reads: []target{{1, 6}}},
			{token: 9, pos: 3, seqs: []int{1}, reads: []target{{2, 7}}},
			{token: 8, pos: 1, seqs: []int{2}},
			{token: 8, pos: 2, seqs: []int{2}},
			{token: 8, pos: 3, seqs: []int{2}, reads: []target{{0, 1}}},
		},
	}, got[1])
}

// TestPlanWaves: waves hold at most the context's sequence ids and its
// cache's cells, and grow past a batch of cells only for a sequence that
// shares at least as many tokens as it adds; within those limits the cuts
// decode the fewest tokens twice, fewer waves first.
func TestPlanWaves(t *testing.T) {
	choices := []local.ScoreSeq{
		{Tokens: []int{0, 1, 5}, N: 1},       // 0: shares the BOS with the rest
		{Tokens: []int{0, 2, 2, 2, 7}, N: 1}, // 1-3: a context's choices
		{Tokens: []int{0, 2, 2, 2, 8}, N: 1},
		{Tokens: []int{0, 2, 2, 2, 9}, N: 1},
	}
	for _, tc := range []struct {
		name                    string
		seqs                    []local.ScoreSeq
		maxSeqs, maxCells, fill int
		want                    [][]int // members
	}{
		{"one wave", planSeqs, 64, 100, 100, [][]int{{3, 4, 5, 1, 2, 0}}},
		{"three ids", planSeqs, 3, 100, 100, [][]int{{3, 4, 5}, {1, 2, 0}}},
		// 0 would add 3 cells to 6, sharing 1.
		{"a batch of eight cells", planSeqs, 64, 100, 8, [][]int{{3, 4, 5, 1, 2}, {0}}},
		// 1 and 2 each add a cell past 4 and share more.
		{"sharing past the batch", planSeqs, 64, 100, 4, [][]int{{3, 4, 5, 1, 2}, {0}}},
		// Never past the cache, however much a sequence shares.
		{"five cells of cache", planSeqs, 64, 5, 100, [][]int{{3, 4, 5, 1}, {2}, {0}}},
		// {0, 1, 2} and {3} would decode the context twice; the BOS is
		// all a cut before 1 decodes again.
		{"choices together", choices, 3, 100, 100, [][]int{{0}, {1, 2, 3}}},
		// With two ids the context is decoded twice however the cuts
		// fall; a cut before 1 would decode the BOS again as well.
		{"choices apart, two ids", choices, 2, 100, 100, [][]int{{0, 1}, {2, 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var members [][]int
			for _, w := range plan(tc.seqs, tc.maxSeqs, tc.maxCells, tc.fill) {
				members = append(members, w.members)
				assert.LessOrEqual(t, len(w.nodes), tc.maxCells)
			}
			assert.Equal(t, tc.want, members)
		})
	}
	assert.Empty(t, plan(nil, 64, 100, 100))
}
