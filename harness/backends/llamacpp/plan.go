package llamacpp

import "github.com/feather-eval/feather/harness/backends/local"

// Scoring runs in waves, each from an empty KV cache. A wave's sequences
// form a prefix tree: a token that several of them hold at the same
// position (the BOS, the context a question's choices share, a few-shot
// preamble) is decoded once, into one cache cell that belongs to all of
// them (a batch token carries every sequence id through it), and its row
// of logits, read only where it predicts a scored token, serves every
// token it predicts. The tree's tokens, parents before children, fill
// batches in order: a wave that fits one batch is one decode, and a
// longer one continues in the next.
//
// Waves take the sequences sorted by the tokens they decode, so that
// those beginning alike are neighbours, and cut the sorted order into
// runs. A wave holds at most one sequence per id the context has and at
// most a batch of cells: every row attends to all the cells in use, so a
// wave no larger than a batch keeps attention short. A sequence that
// shares at least as many tokens with the one before it as it adds may
// take a wave past that, up to the cache (a new wave would decode the
// shared tokens again): a long context's choices stay together. Within
// those limits the cuts fall where the fewest tokens are decoded twice.

// node is a token of a wave's prefix tree at its position, with the
// wave's sequence ids through it and the scored tokens its row of logits
// predicts (none: its logits are not asked for).
type node struct {
	token, pos int
	seqs       []int
	reads      []target
}

// target is a scored token: sequence seq's (an index into the scored
// sequences) token tok.
type target struct{ seq, tok int }

// wave is sequences decoded together: members[k], an index into the
// scored sequences, has sequence id k; nodes are its prefix tree, each
// node's parent before it.
type wave struct {
	members []int
	nodes   []node
}

// decoded is the part of a sequence that is decoded: all but its last
// token, whose logits nothing reads.
func decoded(s local.ScoreSeq) []int { return s.Tokens[:len(s.Tokens)-1] }

// plan cuts seqs into waves of at most maxSeqs sequences and maxCells
// cache cells, a wave growing past fill cells only for a sequence that
// shares at least as many tokens with the one before it as it adds.
// Every sequence has at least two tokens, at most maxCells.
func plan(seqs []local.ScoreSeq, maxSeqs, maxCells, fill int) []wave {
	order, common := local.SortByTokens(len(seqs), func(i int) []int { return decoded(seqs[i]) })
	starts := cuts(seqs, order, common, maxSeqs, maxCells, fill)
	var out []wave
	var path []int // the previous member's node at each position
	for k, i := range order {
		s := seqs[i]
		d := decoded(s)
		shared := common[k]
		if len(starts) > 0 && starts[0] == k {
			starts = starts[1:]
			out = append(out, wave{})
			shared = 0
		}
		w := &out[len(out)-1]
		id := len(w.members)
		w.members = append(w.members, i)
		for p := range shared {
			n := &w.nodes[path[p]]
			n.seqs = append(n.seqs, id)
		}
		path = path[:shared]
		for p := shared; p < len(d); p++ {
			path = append(path, len(w.nodes))
			w.nodes = append(w.nodes, node{token: d[p], pos: p, seqs: []int{id}})
		}
		// The row at position p predicts token p+1; the last N are scored.
		for p := len(s.Tokens) - 1 - s.N; p < len(d); p++ {
			n := &w.nodes[path[p]]
			n.reads = append(n.reads, target{i, s.Tokens[p+1]})
		}
	}
	return out
}

// cuts returns where in order each wave starts, chosen so that the fewest
// tokens are decoded again (a wave starting at k decodes again the
// common[k] tokens order[k] shares with order[k-1]), with the fewest
// waves among equals: the choices after one context stay in one wave
// where the limits allow, though the wave before them takes fewer
// sequences.
func cuts(seqs []local.ScoreSeq, order, common []int, maxSeqs, maxCells, fill int) []int {
	n := len(order)
	// A wave starting at j can hold order[j:end[j]].
	end := make([]int, n)
	for j := range n {
		k, cells := j+1, len(decoded(seqs[order[j]]))
		for ; k < n && k-j < maxSeqs; k++ {
			add := len(decoded(seqs[order[k]])) - common[k]
			if cells+add > maxCells || (cells+add > fill && common[k] < add) {
				break
			}
			cells += add
		}
		end[j] = k
	}
	// cost[k] and waves[k] are the least for order[:k], its last wave
	// starting at from[k].
	cost, waves, from := make([]int, n+1), make([]int, n+1), make([]int, n+1)
	for k := 1; k <= n; k++ {
		from[k] = -1
	}
	for j := range n {
		c, w := cost[j]+common[j], waves[j]+1
		for k := j + 1; k <= end[j]; k++ {
			if from[k] < 0 || c < cost[k] || (c == cost[k] && w < waves[k]) {
				cost[k], waves[k], from[k] = c, w, j
			}
		}
	}
	out := make([]int, waves[n])
	for k, i := n, len(out)-1; k > 0; k, i = from[k], i-1 {
		out[i] = from[k]
	}
	return out
}
