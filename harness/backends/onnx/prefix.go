package onnx

import (
	"slices"

	"github.com/feather-eval/feather/harness/backends/local"
)

// This file is the scoring engine's stage 0. Stage-1 rows often share a
// prefix without sharing their whole context: a task's instructions, a
// question template, a few-shot preamble, a chat template's system
// prompt. Stage 0 runs each such prefix once and keeps its cache; each
// row then runs only its own tokens, with the prefix's cache as its past.
// Greedy generation does the same for the prompts of a batch. On a full
// μBench run over the perf fixture, 130 prefixes (1,148 tokens) take
// 5,986 tokens off stage 1's 26,359.
//
// Prefixes of different lengths share a stage-1 call: each row's prefix
// sits at the start of the call's past, and the slots after it are
// zeroed and masked, as stage 1's left padding is. That needs what left
// padding needs (leftPadOK): a mask honoured position by position and
// explicit positions.

// minSharedPrefix is the shortest prefix stage 0 runs: below it the
// tokens saved do not pay for the cache each row copies and attends to.
const minSharedPrefix = 4

// maxShareRun bounds the rows one prefix serves, so finding the prefixes
// stays linear in the rows: 10,000 rows behind one template become ten
// prefixes, which costs nine prefix runs of stage 0.
const maxShareRun = 1024

// sharedPrefix is a prefix several stage-1 rows continue, and where stage
// 0 left its cache: row row of kv, whose mask row is mask (the prefix
// left-padded to kv's length).
type sharedPrefix struct {
	tokens []int
	kv     *kvCache
	row    int
	mask   []int64
}

// sharePrefixes finds the prefixes that at least two rows share, at least
// minSharedPrefix tokens and ending before each row's first target, and
// cuts them off the rows (whose targets then count from the prefix's
// end). Rows sorted by their tokens share a prefix with their
// neighbours, so the prefixes are runs of neighbours, chosen to save the
// most tokens: a run saves its rows but one, times the prefix they all
// share. The prefixes hold at most budget tokens (the cache stage 0
// keeps; the runs that save most come first) and save at least callCost
// tokens in all, or there are none.
func sharePrefixes(rows []stageRow, budget int) []*sharedPrefix {
	m := len(rows)
	// common[k] is how many leading tokens row order[k] shares with row
	// order[k-1]; limit[k] how many leading tokens of row order[k] a
	// prefix may take (stage 1 must still compute the logits its targets
	// read).
	order, common := local.SortByTokens(m, func(i int) []int { return rows[i].tokens })
	limit := make([]int, m)
	for k, i := range order {
		limit[k] = len(rows[i].tokens)
		for _, t := range rows[i].targets {
			limit[k] = min(limit[k], t.pos)
		}
	}
	// best[k] is the most the rows order[k:] can save, with a run of
	// size[k] rows sharing share[k] tokens first (size 1: row order[k]
	// shares nothing).
	best, size, share := make([]int, m+1), make([]int, m+1), make([]int, m+1)
	for k := m - 1; k >= 0; k-- {
		best[k], size[k] = best[k+1], 1
		n := limit[k]
		for j := k + 1; j < min(m, k+maxShareRun); j++ {
			if n = min(n, common[j], limit[j]); n < minSharedPrefix {
				break
			}
			if s := (j-k)*n + best[j+1]; s > best[k] {
				best[k], size[k], share[k] = s, j-k+1, n
			}
		}
	}
	type run struct {
		rows     []int
		n, saved int
	}
	var runs []run
	for k := 0; k < m; k += size[k] {
		if size[k] > 1 {
			runs = append(runs, run{order[k : k+size[k]], share[k], (size[k] - 1) * share[k]})
		}
	}
	slices.SortStableFunc(runs, func(a, b run) int { return b.saved - a.saved })
	var kept []run
	saved := 0
	for _, r := range runs {
		if r.n <= budget {
			budget -= r.n
			saved += r.saved
			kept = append(kept, r)
		}
	}
	if saved < callCost { // stage 0 is another call
		return nil
	}
	out := make([]*sharedPrefix, len(kept))
	for k, r := range kept {
		sp := &sharedPrefix{tokens: rows[r.rows[0]].tokens[:r.n:r.n]}
		for _, i := range r.rows {
			row := &rows[i]
			row.tokens, row.shared = row.tokens[r.n:], sp
			for t := range row.targets {
				row.targets[t].pos -= r.n
			}
		}
		out[k] = sp
	}
	return out
}

// sharePrefixes is sharePrefixes for the model's rows of one job: none
// where the export allows no left padding, within the cache budget
// (contTokens) elsewhere.
func (m *Model) sharePrefixes(rows []stageRow) []*sharedPrefix {
	if !m.spec.leftPadOK() {
		return nil
	}
	return sharePrefixes(rows, m.contTokens())
}

// start is the position of a row's first token: its shared prefix's
// length, or 0.
func (r stageRow) start() int {
	if r.shared == nil {
		return 0
	}
	return len(r.shared.tokens)
}

// prefixBatches cuts stage 0's prefixes into calls: longest first,
// left-padded.
func (m *Model) prefixBatches(prefixes []*sharedPrefix) [][]*sharedPrefix {
	return longestFirst(prefixes, func(p *sharedPrefix) int { return len(p.tokens) }, batchLimits{budget: m.batchTokens, maxRows: maxBatchRows, overhead: callCost, leftPad: true})
}

// runPrefixes is one call of stage 0: it runs the prefixes and keeps
// their cache for the rows that continue them.
func (m *Model) runPrefixes(r *runner, batch []*sharedPrefix) error {
	rows := make([]stageRow, len(batch))
	for b, p := range batch {
		rows[b].tokens = p.tokens
	}
	width := len(rows[0].tokens)
	st := m.leftPadded(rows, width)
	st.cacheOnly = true // no logits are read
	kv := newKVCache(m.spec)
	if _, err := r.run(st, kv); err != nil {
		return err
	}
	for b, p := range batch {
		p.kv, p.row, p.mask = kv, b, st.mask[b*width:(b+1)*width]
	}
	return nil
}

// underPrefixes gives a stage-1 call whose rows continue shared prefixes
// their caches as its past, in into: each row's prefix from slot 0, the
// slots after it (all of them for a row without one) zeroed and masked.
// A call without shared prefixes is left as it is.
func underPrefixes(st *step, rows []stageRow, into *kvCache) {
	past := 0
	for _, row := range rows {
		if row.shared != nil {
			past = max(past, row.shared.kv.length)
		}
	}
	if past == 0 {
		return
	}
	into.resize(len(rows), past)
	mask := make([]int64, st.rows*(past+st.seq))
	for b, row := range rows {
		m := mask[b*(past+st.seq) : (b+1)*(past+st.seq)]
		copy(m[past:], st.mask[b*st.seq:(b+1)*st.seq])
		if row.shared == nil {
			into.placeRow(b, nil, 0)
			continue
		}
		into.placeRow(b, row.shared.kv, row.shared.row)
		copy(m, row.shared.mask)
	}
	st.mask, st.past = mask, into
}
