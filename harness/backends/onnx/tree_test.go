package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
)

// Sequences become one trie a row: shared beginnings once, each node at
// its depth, attending to its ancestors and itself; a target reads the
// node of the prefix before the token it scores.
func TestBuildTrees(t *testing.T) {
	seqs := []local.ScoreSeq{
		{Tokens: []int{1, 5, 6, 7}, N: 1},    // context 1 5 6, continuation 7
		{Tokens: []int{1, 5, 6, 8, 9}, N: 2}, // same context, continuation 8 9
		{Tokens: []int{1, 5, 3}, N: 1},       // shares 1 5
	}
	trees := buildTrees(seqs, 100, 100)
	require.Len(t, trees, 1)
	tr := trees[0]
	// Sorted by tokens: 1 5 3 first, then 1 5 6 (7), then 1 5 6 8 (9).
	assert.Equal(t, []int64{1, 5, 6, 8}, tr.ids, "1 and 5 once; each sequence's last token only predicted")
	assert.Equal(t, []int64{0, 1, 2, 3}, tr.pos)
	assert.Equal(t, []int{-1, 0, 1, 2}, tr.parent)
	assert.ElementsMatch(t, []target{
		{pos: 1, tok: 3, seq: 2}, // after 1 5
		{pos: 2, tok: 7, seq: 0}, // after 1 5 6
		{pos: 2, tok: 8, seq: 1},
		{pos: 3, tok: 9, seq: 1}, // after 1 5 6 8
	}, tr.targets)
	assert.Equal(t, []int{1, 2, 3}, tr.wanted())
	assert.Equal(t, 3, tr.seqs)

	branch := buildTrees([]local.ScoreSeq{{Tokens: []int{1, 2, 3}, N: 1}, {Tokens: []int{1, 4, 5}, N: 1}}, 100, 100)[0]
	assert.Equal(t, []int64{1, 2, 4}, branch.ids)
	assert.Equal(t, []int64{0, 1, 1}, branch.pos, "siblings share a depth")
	assert.Equal(t, []bool{
		true, false, false,
		true, true, false,
		true, false, true, // 4 sees 1 and itself, not its sibling 2
	}, branch.mask())
}

// A tree closes before it would pass either limit; a sequence longer than
// the node limit is a tree of its own.
func TestBuildTreesLimits(t *testing.T) {
	seq := func(n int, toks ...int) local.ScoreSeq { return local.ScoreSeq{Tokens: toks, N: n} }
	seqs := []local.ScoreSeq{seq(1, 1, 2, 3), seq(1, 1, 4, 5), seq(1, 1, 6, 7), seq(1, 9, 9, 9, 9, 9, 9)}
	sizes := func(trees []*scoreTree) (out []int) {
		for _, tr := range trees {
			out = append(out, len(tr.ids))
		}
		return out
	}
	assert.Equal(t, []int{4, 5}, sizes(buildTrees(seqs, 4, 100)), "nodes: 1 2 4 6 fill a tree of 4; the long one alone")
	assert.Equal(t, []int{3, 7}, sizes(buildTrees(seqs, 100, 2)), "two scored positions a tree")
	all := 0
	for _, tr := range buildTrees(seqs, 3, 1) {
		all += tr.seqs
	}
	assert.Equal(t, len(seqs), all, "every sequence in exactly one tree")
}

// A sliding-window layer's tree keeps, of a node's ancestors, those
// fewer than the window's positions back, by depth rather than by slot.
func TestTreeSlidingMask(t *testing.T) {
	tr := buildTrees([]local.ScoreSeq{{Tokens: []int{1, 2, 3, 4}, N: 1}, {Tokens: []int{1, 5, 6}, N: 1}}, 100, 100)[0]
	require.Equal(t, []int64{1, 2, 3, 5}, tr.ids)
	require.Equal(t, []int64{0, 1, 2, 1}, tr.pos)
	assert.Equal(t, []bool{
		true, false, false, false,
		true, true, false, false,
		false, true, true, false, // 3 at depth 2: 1 is two positions back
		true, false, false, true, // 5 at depth 1, slot 3: 1 is one position back
	}, tr.slidingMask(tr.mask(), 2))
	assert.Equal(t, causalTree(nil, 1, 2, 1, 2), []bool{
		true, true, false, // slot 1 sees the past slot and itself
		false, true, true, // slot 2: slot 0 is two back
	}, "without a tree, slots are positions")
}
