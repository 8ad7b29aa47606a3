package onnx

import (
	"context"
	"slices"
	"sync"

	"github.com/feather-eval/feather/harness/backends/local"
)

// This file scores sequences as prefix trees, for models whose graph
// takes a tree mask (decoder.Export.TreeMask: graphs built for a
// checkpoint). Sequences sorted by their tokens go into a trie whose
// every distinct prefix is one node; the nodes, parents first, form one
// row, each at the position of its depth and attending to its ancestors
// alone, so a token shared by several sequences is computed once and no
// row is padded or carries a copied cache. One call then does what the
// staged plan (engine.go) spreads over several calls of padded rows and
// copied caches: on μBench's requests the way llama.cpp decodes a wave
// with its tokens shared between sequence ids. A tree closes at treeTokens
// nodes, or when its scored positions would pass the model's logits
// budget (batchTokens); a sequence longer than that is a tree of its own.

// treeTokens caps a tree's nodes: attention within a row costs the square
// of its length, so rows stay about as long as the staged plan's calls.
const treeTokens = 512

// scoreTree is one row: its nodes' tokens, depths and parents, and the
// log-probabilities read from it (target.pos is a node).
type scoreTree struct {
	ids, pos []int64
	parent   []int
	targets  []target
	seqs     int
	// children finds a node's child by token while the tree grows.
	children map[[2]int]int
}

func newScoreTree() *scoreTree { return &scoreTree{children: map[[2]int]int{}} }

// missing is how many nodes tokens would add.
func (t *scoreTree) missing(tokens []int) int {
	node := -1
	for i, tok := range tokens {
		next, ok := t.children[[2]int{node, tok}]
		if !ok {
			return len(tokens) - i
		}
		node = next
	}
	return 0
}

// add puts sequence seq (tokens, the last n scored) into the tree.
func (t *scoreTree) add(seq int, s local.ScoreSeq) {
	in := s.Tokens[:len(s.Tokens)-1] // the last token is only predicted
	node := -1
	for p, tok := range in {
		key := [2]int{node, tok}
		next, ok := t.children[key]
		if !ok {
			next = len(t.ids)
			t.children[key] = next
			t.ids = append(t.ids, int64(tok))
			t.pos = append(t.pos, int64(p))
			t.parent = append(t.parent, node)
		}
		node = next
		if p >= len(in)-s.N {
			t.targets = append(t.targets, target{pos: node, tok: s.Tokens[p+1], seq: seq})
		}
	}
	t.seqs++
}

// wanted is the sorted distinct nodes whose logits the targets read.
func (t *scoreTree) wanted() []int {
	var want []int
	for _, tg := range t.targets {
		want = append(want, tg.pos)
	}
	slices.Sort(want)
	return slices.Compact(want)
}

// mask is the tree as a [nodes, nodes] attention mask: a node sees its
// ancestors and itself.
func (t *scoreTree) mask() []bool {
	n := len(t.ids)
	m := make([]bool, n*n)
	for i, p := range t.parent {
		if p >= 0 {
			copy(m[i*n:i*n+p+1], m[p*n:p*n+p+1])
		}
		m[i*n+i] = true
	}
	return m
}

// slidingMask is mask for a sliding-window layer: of a node's ancestors,
// those fewer than window positions back.
func (t *scoreTree) slidingMask(mask []bool, window int) []bool {
	n := len(t.ids)
	m := slices.Clone(mask)
	for i := range n {
		for j := range i {
			if m[i*n+j] && t.pos[i]-t.pos[j] >= int64(window) {
				m[i*n+j] = false
			}
		}
	}
	return m
}

// buildTrees puts seqs into trees of at most limit nodes and wants
// scored positions, sequences sharing a beginning side by side.
func buildTrees(seqs []local.ScoreSeq, limit, wants int) []*scoreTree {
	order := make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return slices.Compare(seqs[a].Tokens, seqs[b].Tokens) })
	var trees []*scoreTree
	cur := newScoreTree()
	for _, i := range order {
		s := seqs[i]
		if cur.seqs > 0 && (len(cur.ids)+cur.missing(s.Tokens[:len(s.Tokens)-1]) > limit || len(cur.targets)+s.N > wants) {
			trees = append(trees, cur)
			cur = newScoreTree()
		}
		cur.add(i, s)
	}
	if cur.seqs > 0 {
		trees = append(trees, cur)
	}
	return trees
}

// scoreTrees is scoreSeqs for a model with a tree mask.
func (m *Model) scoreTrees(ctx context.Context, seqs []local.ScoreSeq, progress func(done, total int)) ([]local.SeqScore, error) {
	out := make([]local.SeqScore, len(seqs))
	for i := range out {
		out[i].Greedy = true
	}
	trees := buildTrees(seqs, treeTokens, m.batchTokens)
	var mu sync.Mutex
	done := 0
	err := m.parallel(ctx, len(trees), func(r *runner, i int) error {
		t := trees[i]
		n := len(t.ids)
		mask := make([]int64, n)
		for j := range mask {
			mask[j] = 1
		}
		st := &step{rows: 1, seq: n, ids: t.ids, mask: mask, pos: t.pos, tree: t.mask(), want: t.wanted(), logProbs: true}
		if m.spec.hasTreeSliding {
			st.treeSliding = t.slidingMask(st.tree, m.spec.window)
		}
		view, err := r.run(st, nil)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, tg := range t.targets {
			addScore(out, tg, view, 0, tg.pos)
		}
		if progress != nil {
			done += t.seqs
			progress(done, len(seqs))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
