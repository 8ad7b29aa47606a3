package onnx

import (
	"context"
	"slices"
	"sort"
	"sync"

	"github.com/feather-eval/feather/harness/backends/local"
)

// This file is the token-level scoring engine: it turns scored sequences
// into as few, as full model calls as it can.
//
// A scored sequence is [context…, continuation…] whose last n tokens are
// scored. Sequences that share their context (the choices of one
// multiple-choice item) form a group. A group with several members runs
// its context once (stage 1), reads the first continuation token of every
// member from the context's last position, and, for members with longer
// continuations, runs only the continuation tokens on top of the context's
// cache, one row per member (stage 2), together with the continuations
// of the stage-1 batches around it (a wave), so that stage 2's calls are
// full. When every continuation is one token long, stage 2 is skipped:
// that is lm-eval's one-token grouping, which falls out of the same plan.
// A group of one runs as a single row.
// Rows whose contexts only begin alike (a task's template) run the
// shared beginning once, in stage 0 (prefix.go), and stage 1 runs only
// their own tokens on its cache. Every stage cuts its rows into calls
// where padding would cost more than another call (cheapestCuts). A graph
// built for a checkpoint takes a tree mask and is scored as prefix trees
// instead (tree.go): no stages, no padding, no copied caches.
//
// Why the cache and not lm-eval's batching of whole sequences: on the perf
// fixture (6 layers, width 256, 32k vocabulary; 4-choice items with a
// ~60-token context and 1–8-token continuations, one intra-op thread, CPU
// time per 32 requests, several runs on a busy machine) one forward per
// request took 475-545 ms, whole sequences batched 510 ms (per-token cost
// hardly falls with batch size on the CPU), and this plan 125-180 ms
// (3-4.2x). Cached generation of 20 tokens beats recomputing every step
// about 9x. Every call asks only for the logits it reads (step.want):
// stage 1 its targets, stage 2 the continuation tokens but not their
// padding. An export with a logits-to-keep input computes each row's
// trailing span that covers them; other models run their LM head split
// off (headsplit.go) on exactly those positions. On the perf fixture,
// whose head is most of a position's cost, that cut BenchmarkScoreCached's
// CPU time 1.4-1.7x, BenchmarkGenerateCached's 1.1-1.3x and
// BenchmarkGenerateRecompute's 2.6-3x, and a whole μBench run
// (BenchmarkMicrobenchBatched) took 1.3-1.6x less wall time (three runs
// of each, before and after, alternating on a busy machine).
// BenchmarkScoreCached, BenchmarkScoreNaive, BenchmarkScoreBatchedFull and
// `make perf` measure it.

// target asks for log p(tok) from the logits at position pos of a row.
type target struct {
	pos, tok, seq int
}

// stageRow is one row of a stage-1 call: a group's context (keepKV) or a
// whole sequence minus its last token.
type stageRow struct {
	tokens []int
	// shared is the prefix (stage 0's) a row continues; the row then
	// holds only the tokens after it.
	shared  *sharedPrefix
	targets []target
	// members are the sequences continuing a kept context in stage 2.
	members []int
	keepKV  bool
}

// planRows groups the sequences and returns the stage-1 rows. With
// useCache false (exports without a cache) every sequence is its own row.
func planRows(seqs []local.ScoreSeq, useCache bool) []stageRow {
	var rows []stageRow
	groups := map[string]int{} // context key -> row index
	for i, s := range seqs {
		ctx := s.Tokens[:len(s.Tokens)-s.N]
		if useCache {
			key := tokensKey(ctx)
			if r, ok := groups[key]; ok {
				rows[r].members = append(rows[r].members, i)
				continue
			}
			groups[key] = len(rows)
		}
		rows = append(rows, stageRow{tokens: ctx, members: []int{i}})
	}
	for r := range rows {
		row := &rows[r]
		if len(row.members) == 1 {
			// Alone: run the sequence whole, no cache needed.
			s := seqs[row.members[0]]
			row.tokens = s.Tokens[:len(s.Tokens)-1]
			for p := len(s.Tokens) - 1 - s.N; p < len(s.Tokens)-1; p++ {
				row.targets = append(row.targets, target{pos: p, tok: s.Tokens[p+1], seq: row.members[0]})
			}
			row.members = nil
			continue
		}
		last := len(row.tokens) - 1
		multi := row.members[:0:0]
		for _, m := range row.members {
			s := seqs[m]
			row.targets = append(row.targets, target{pos: last, tok: s.Tokens[len(s.Tokens)-s.N], seq: m})
			if s.N > 1 {
				multi = append(multi, m)
			}
		}
		row.members = multi
		row.keepKV = len(multi) > 0
	}
	return rows
}

func tokensKey(ids []int) string {
	b := make([]byte, 0, 4*len(ids))
	for _, id := range ids {
		b = append(b, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
	}
	return string(b)
}

// batchRows cuts rows, longest first, into batches of at most budget
// tokens (rows × longest row) and maxRows rows, as cheaply as callCost
// prices them. Without left padding only rows of equal length share a
// batch.
func batchRows(rows []stageRow, budget, maxRows int, leftPad bool) [][]stageRow {
	return longestFirst(rows, func(r stageRow) int { return len(r.tokens) }, batchLimits{budget: budget, maxRows: maxRows, overhead: callCost, leftPad: leftPad})
}

// batchLimits bound and price longestFirst's batches.
type batchLimits struct {
	// budget bounds rows × (longest + grow) tokens, maxRows the rows.
	budget, maxRows int
	// grow is what each row gains after the call (generation's new
	// tokens: the cache grows to that length).
	grow int
	// overhead is a batch's cost beyond its tokens (cheapestCuts).
	overhead int
	// leftPad allows rows of different lengths in one batch.
	leftPad bool
}

// longestFirst sorts items by length, longest first, and cuts them into
// the cheapest batches within lim.
func longestFirst[T any](items []T, length func(T) int, lim batchLimits) [][]T {
	sort.SliceStable(items, func(i, j int) bool { return length(items[i]) > length(items[j]) })
	lens := make([]int, len(items))
	for i, it := range items {
		lens[i] = length(it)
	}
	var out [][]T
	for _, c := range cheapestCuts(lens, lim.overhead, func(start, end int) bool {
		return end-start <= lim.maxRows && (end-start)*(lens[start]+lim.grow) <= lim.budget &&
			(lim.leftPad || lens[end-1] == lens[start])
	}) {
		out = append(out, items[c[0]:c[1]])
	}
	return out
}

// callCost is what a model call costs beyond its tokens, in tokens. Every
// call reads every weight once, while each token it computes does one
// multiply-add per weight: reading a float32 weight (4 bytes at about
// 15 GB/s from memory, one thread, here) takes as long as about 18
// multiply-adds (at about 70 G a second), so a call's reading is worth
// some 16 to 19 of its tokens, whatever the model's size (4-bit weights
// would make it a few). Cutting a batch where fewer than that many
// padded positions would be saved costs more than it saves: on the
// SmolLM2-135M shape, stage 2 ran one stage-1 batch's continuations in 4
// calls of 45, 16, 10 and 3 positions, each about 50 ms, most of it the
// 536 MB of weights.
const callCost = 16

// cheapestCuts cuts lens (sorted longest first) into consecutive batches
// [start, end) that fit, for the least total cost: per batch, overhead
// (callCost for one call) plus its rows × its longest row. A single item
// always fits (it must run). fits must stay false once it is false for a
// longer batch.
func cheapestCuts(lens []int, overhead int, fits func(start, end int) bool) [][2]int {
	n := len(lens)
	cost := make([]int, n+1) // cost[i]: the cheapest way to run lens[i:]
	next := make([]int, n+1)
	for i := n - 1; i >= 0; i-- {
		cost[i], next[i] = -1, i+1
		for j := i + 1; j <= n; j++ {
			if j > i+1 && !fits(i, j) {
				break
			}
			if c := overhead + (j-i)*lens[i] + cost[j]; cost[i] < 0 || c <= cost[i] {
				cost[i], next[i] = c, j
			}
		}
	}
	var out [][2]int
	for i := 0; i < n; i = next[i] {
		out = append(out, [2]int{i, next[i]})
	}
	return out
}

// scoreSeqs returns one result per sequence. progress, when set, hears of
// the sequences done as each wave finishes (lm.ScoreOptions.Progress).
func (m *Model) scoreSeqs(ctx context.Context, seqs []local.ScoreSeq, progress func(done, total int)) ([]local.SeqScore, error) {
	if m.spec.hasTree && !m.noCache {
		return m.scoreTrees(ctx, seqs, progress)
	}
	out := make([]local.SeqScore, len(seqs))
	for i := range out {
		out[i].Greedy = true
	}
	stage0, waves := m.scorePlan(seqs)
	if err := m.parallel(ctx, len(stage0), func(r *runner, i int) error { return m.runPrefixes(r, stage0[i]) }); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	done := 0
	err := m.parallel(ctx, len(waves), func(r *runner, i int) error {
		if err := m.scoreWave(r, waves[i], seqs, out); err != nil {
			return err
		}
		if progress != nil {
			mu.Lock()
			defer mu.Unlock()
			for _, batch := range waves[i] {
				done += batchSeqs(batch)
			}
			progress(done, len(seqs))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// scorePlan is how scoreSeqs runs seqs: stage 0's calls (none without a
// cache), then the waves of stage-1 batches and their stage 2.
func (m *Model) scorePlan(seqs []local.ScoreSeq) (stage0 [][]*sharedPrefix, waves [][][]stageRow) {
	useCache := m.spec.layers > 0 && !m.noCache
	rows := planRows(seqs, useCache)
	if useCache {
		stage0 = m.prefixBatches(m.sharePrefixes(rows)) // cuts the prefixes off rows
	}
	return stage0, m.waves(batchRows(rows, m.batchTokens, maxBatchRows, m.spec.leftPadOK()))
}

// batchSeqs is how many sequences a stage-1 batch scores: each row's
// targets name them, a group's several times.
func batchSeqs(rows []stageRow) int {
	seen := map[int]bool{}
	for _, r := range rows {
		for _, t := range r.targets {
			seen[t.seq] = true
		}
	}
	return len(seen)
}

// waveCaches is a wave's budget of kept context caches, in stage-2 calls'
// worth (contTokens).
const waveCaches = 2

// waves groups stage-1 batches into waves: a wave runs its batches'
// stage 1, keeping each context's cache, then the continuations of all of
// them together in stage 2. Continuations from one batch alone filled few
// calls: on a full μBench run over the SmolLM2-135M shape, 77 stage-1
// batches left 206 stage-2 calls of 70 positions on average, each reading
// every weight. Consecutive batches (of similar widths, longest first)
// share a wave while their kept caches stay within waveCaches ×
// contTokens cached tokens, and within an even share of all of them per
// runner, so every runner gets work. A batch that keeps no cache (no
// continuation longer than a token) is a wave of its own. So is every
// batch of an export that cannot mask a row's past slot by slot
// (leftPadOK): the rows of its stage-2 calls must share their past's
// length.
func (m *Model) waves(batches [][]stageRow) [][][]stageRow {
	total := 0
	for _, b := range batches {
		total += keptTokens(b)
	}
	budget := 0
	if total > 0 && m.spec.leftPadOK() {
		budget = min(waveCaches*m.contTokens(), (total+len(m.runners)-1)/len(m.runners))
	}
	var out [][][]stageRow
	open, used := -1, 0 // the wave taking kept caches, and what it holds
	for _, b := range batches {
		n := keptTokens(b)
		if n == 0 || budget == 0 {
			out = append(out, [][]stageRow{b})
			continue
		}
		if open < 0 || used+n > budget {
			out, open, used = append(out, nil), len(out), 0
		}
		out[open] = append(out[open], b)
		used += n
	}
	return out
}

// keptTokens is the cache a stage-1 batch keeps for stage 2, in cached
// tokens (rows × its shared prefixes and width): none when no row has
// continuations to run.
func keptTokens(rows []stageRow) int {
	if !keepsKV(rows) {
		return 0
	}
	past := 0
	for _, r := range rows {
		past = max(past, r.start())
	}
	return len(rows) * (past + len(rows[0].tokens))
}

func keepsKV(rows []stageRow) bool {
	for _, r := range rows {
		if r.keepKV {
			return true
		}
	}
	return false
}

const (
	// maxBatchRows caps rows per call; beyond it larger batches stop paying.
	maxBatchRows = 64
	// maxContRows caps rows per stage-2 call: an item's choices share one
	// stage-1 row.
	maxContRows = 4 * maxBatchRows
)

// contCacheBytes bounds the cache a stage-2 call carries, for a model
// whose files hold weightBytes. Each row holds a copy of its context's
// cache, which ONNX Runtime copies again into present.*, while every call
// reads every weight once: so the bound is an eighth of the weights, from
// 8 MB to 128 MB. On the perf fixture (52 MB of weights) the copies set
// the pace beyond a few megabytes: μBench's requests ran 1.7 times slower
// with 50 MB per call than with 6 MB. On the SmolLM2-135M shape (536 MB of
// weights, 46 KB of cache a token) 8 MB let a call carry two 68-token
// contexts, so stage 2 took 13 calls of one to eight rows, each reading
// every weight; 64 MB scored the transformers.js comparison's 64 requests
// 1.07-1.38 times faster (four alternating runs).
func contCacheBytes(weightBytes int64) int {
	return int(min(128<<20, max(8<<20, weightBytes/8)))
}

// parallel runs n jobs on the model's runners, each job on a runner it
// holds alone, stopping at the first error or when ctx ends. Concurrent
// calls share the runners through the pool.
func (m *Model) parallel(ctx context.Context, n int, job func(r *runner, i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	for w := min(len(m.runners), n); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r *runner
			select {
			case r = <-m.pool:
			case <-ctx.Done():
				fail(ctx.Err())
				return
			}
			defer func() { m.pool <- r }()
			for {
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				i, ok := take()
				if !ok {
					return
				}
				if err := job(r, i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// addScore folds one token's log-probability, from the logits at (b, s),
// into its sequence's result.
func addScore(out []local.SeqScore, t target, view *logitsView, b, s int) {
	lp, greedy := view.logProb(b, s, t.tok)
	out[t.seq].LogProb += lp
	out[t.seq].Greedy = out[t.seq].Greedy && greedy
}

// scoreWave runs a wave: each batch's stage 1, keeping the caches its
// continuations need, then stage 2 over all of them.
func (m *Model) scoreWave(r *runner, wave [][]stageRow, seqs []local.ScoreSeq, out []local.SeqScore) error {
	var conts []contRow
	kept := 0
	for _, rows := range wave {
		var kv *kvCache
		if keepsKV(rows) {
			kv = r.keptCache(kept)
			kept++
		}
		st, err := m.runStage1(r, rows, kv, out)
		if err != nil {
			return err
		}
		if kv == nil {
			continue
		}
		for b, row := range rows {
			mask := st.mask[b*kv.length : (b+1)*kv.length]
			for _, s := range row.members {
				conts = append(conts, contRow{kv: kv, row: b, mask: mask, seq: s})
			}
		}
	}
	return m.continueRows(r, conts, seqs, out)
}

// runStage1 runs one stage-1 batch, scores its targets, and leaves the
// batch's cache in kv when kv is set.
func (m *Model) runStage1(r *runner, rows []stageRow, kv *kvCache, out []local.SeqScore) (*step, error) {
	width := len(rows[0].tokens)
	st := m.leftPadded(rows, width)
	st.want = wantedPositions(rows, width)
	st.logProbs = true
	underPrefixes(st, rows, r.kvB)
	view, err := r.run(st, kv)
	if err != nil {
		return nil, err
	}
	for b, row := range rows {
		pad := width - len(row.tokens)
		for _, t := range row.targets {
			addScore(out, t, view, b, pad+t.pos)
		}
	}
	return st, nil
}

// wantedPositions lists, ascending and once each, the positions (b·width
// + s) of a width-wide call whose logits some target reads.
func wantedPositions(rows []stageRow, width int) []int {
	var want []int
	for b, row := range rows {
		pad := width - len(row.tokens)
		start := len(want)
		for _, t := range row.targets {
			want = append(want, b*width+pad+t.pos)
		}
		slices.Sort(want[start:])
		want = append(want[:start], slices.Compact(want[start:])...)
	}
	return want
}

// leftPadded builds a stage-1 call: rows padded on the left to width,
// masked out, with positions counted from each row's first real token
// (from its start, after a shared prefix).
func (m *Model) leftPadded(rows []stageRow, width int) *step {
	st := &step{rows: len(rows), seq: width}
	st.ids = make([]int64, len(rows)*width)
	st.mask = make([]int64, len(rows)*width)
	st.pos = make([]int64, len(rows)*width)
	for b, row := range rows {
		pad := width - len(row.tokens)
		for j := 0; j < width; j++ {
			k := b*width + j
			if j < pad {
				st.ids[k] = int64(m.pad)
				st.pos[k] = 1 // as Hugging Face fills masked positions
				continue
			}
			st.ids[k] = int64(row.tokens[j-pad])
			st.mask[k] = 1
			st.pos[k] = int64(row.start() + j - pad)
		}
	}
	return st
}

// contRow is one stage-2 row: a member's continuation after its context,
// whose cache is row row of kv, masked by mask (kv.length slots).
type contRow struct {
	kv   *kvCache
	row  int
	mask []int64
	seq  int
}

// continueRows runs stage 2: each member's continuation (minus its last
// token) on top of its context's cache, right-padded (or, for exports
// that allow no padding, only continuations of one length together).
// A call's past is its longest context cache; a shorter one fills its
// row's first slots, the rest zeroed and masked, as stage 0's prefixes
// are under stage 1.
func (m *Model) continueRows(r *runner, all []contRow, seqs []local.ScoreSeq, out []local.SeqScore) error {
	// Longest first, cut by the cache each call carries (contTokens) and
	// where padding costs less than another call would (cheapestCuts).
	// GroupQueryAttention allows no padding, and on a past it takes
	// several tokens only in a call of one row ("batch_size must be 1
	// when sequence_length > 1 and past context is given").
	sort.SliceStable(all, func(i, j int) bool { return seqs[all[i].seq].N > seqs[all[j].seq].N })
	lens := make([]int, len(all))
	for i, c := range all {
		lens[i] = seqs[c.seq].N - 1
	}
	longest := longestPast(all)
	for _, cut := range cheapestCuts(lens, callCost, func(start, end int) bool {
		return end-start <= maxContRows && (end-start)*(longest(start, end)+lens[start]) <= m.contTokens() &&
			(!m.spec.unpadded || lens[end-1] == lens[start] && lens[start] == 1)
	}) {
		chunk := all[cut[0]:cut[1]]
		past, seq := longest(cut[0], cut[1]), lens[cut[0]]
		sub := r.kvB
		sub.resize(len(chunk), past)
		st := &step{rows: len(chunk), seq: seq, past: sub, logProbs: true}
		st.ids = make([]int64, len(chunk)*seq)
		st.mask = make([]int64, len(chunk)*(past+seq))
		st.pos = make([]int64, len(chunk)*seq)
		for i, c := range chunk {
			sub.placeRow(i, c.kv, c.row)
			copy(st.mask[i*(past+seq):], c.mask)
			s := seqs[c.seq]
			cont := s.Tokens[len(s.Tokens)-s.N:]
			ctxLen := len(s.Tokens) - s.N
			for k := 0; k < seq; k++ {
				j := i*seq + k
				st.ids[j], st.pos[j] = int64(m.pad), int64(ctxLen+k)
				if k < len(cont)-1 {
					st.ids[j] = int64(cont[k])
					st.mask[i*(past+seq)+past+k] = 1
					st.want = append(st.want, j) // padding is never read
				}
			}
		}
		view, err := r.run(st, nil)
		if err != nil {
			return err
		}
		for i, c := range chunk {
			s := seqs[c.seq]
			cont := s.Tokens[len(s.Tokens)-s.N:]
			for k := 0; k < len(cont)-1; k++ {
				addScore(out, target{tok: cont[k+1], seq: c.seq}, view, i, k)
			}
		}
	}
	return nil
}

// longestPast returns the longest context cache among rows[start:end], for
// cheapestCuts, which asks for one start at a time with end growing by
// one: the answer is kept and extended.
func longestPast(rows []contRow) func(start, end int) int {
	lastStart, lastEnd, longest := -1, -1, 0
	return func(start, end int) int {
		if start != lastStart || end < lastEnd {
			lastStart, lastEnd, longest = start, start, 0
		}
		for ; lastEnd < end; lastEnd++ {
			longest = max(longest, rows[lastEnd].kv.length)
		}
		return longest
	}
}

// contTokens is the stage-2 budget in cached tokens (rows × cache length).
func (m *Model) contTokens() int {
	perToken := 2 * m.spec.layers * m.spec.kvHeads * m.spec.headDim * m.spec.kvElem()
	return max(64, m.contBytes/perToken)
}
