package e2e_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// BenchmarkMicrobenchBound measures how far a full μBench run on the
// performance fixture is from the least work it needs: computing each
// distinct prefix token once. Every sequence the run scores (BOS, context,
// continuation; bits-per-byte documents in their rolling windows) goes
// into a prefix trie; each sequence adds the tokens past the longest prefix
// already there, so the trie holds every distinct prefix exactly once, and
// marks the prefixes whose next-token log-probabilities it reads. The bound
// runs those tokens through the same fixture (built again with a
// num_logits_to_keep input, so the LM head runs only on the trailing
// positions that cover a row's marked prefixes, as the backend's own split
// head runs only on the rows it reads) on the same ONNX Runtime, one
// intra-op thread on both sides: rows of equal length and kept positions
// together (no padding), no cache (a row does not attend to the prefix it
// hangs from, which only makes the bound cheaper), calls cut at the
// backend's default logits budget. It computes logits only; the run also
// turns the ones it reads into log-probabilities. x-bound is the run's CPU
// time ÷ the bound's (x-bound-wall the same on wall time); distinct-tokens
// is the trie's size, head-tokens the positions the bound's head runs on,
// scored-tokens the tokens of every sequence counted whole.
func BenchmarkMicrobenchBound(b *testing.B) {
	orttest.Require(b)
	dir := perfFixture(b)
	m, tok := openWithTokenizer(b, dir, 1)
	seqs := scoredSequences(tok, microbenchRequests(b))
	rows := distinctRows(seqs)
	cfg := testmodel.PerfFixture()
	cfg.LogitsToKeep = "num_logits_to_keep"
	keepDir := filepath.Join(b.TempDir(), "keep")
	if _, err := testmodel.Build(keepDir, cfg); err != nil {
		b.Fatal(err)
	}
	f := newForward(b, keepDir, cfg.Defaults())
	defer f.close()
	calls := f.calls(rows)
	tasks := suiteTasks(b)
	evaluate := func() {
		if _, err := microbench.Evaluate(context.Background(), m, m.Info(), tasks, microbench.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	bound := func() {
		for _, c := range calls {
			f.run(b, c)
		}
	}
	evaluate() // warm-up, as ONNX Runtime's first runs allocate and tune
	bound()
	var run, least cost
	for b.Loop() {
		run = run.least(measure(b, evaluate))
		least = least.least(measure(b, bound))
	}
	b.ReportMetric(ratio(run.cpu, least.cpu), "x-bound")
	b.ReportMetric(ratio(run.wall, least.wall), "x-bound-wall")
	var distinct, head, scored int
	for _, r := range rows {
		distinct, head = distinct+len(r.tokens), head+r.keep
	}
	for _, s := range seqs {
		scored += len(s.IDs)
	}
	b.ReportMetric(float64(distinct), "distinct-tokens")
	b.ReportMetric(float64(head), "head-tokens")
	b.ReportMetric(float64(scored), "scored-tokens")
}

// scoredSequences are the token sequences the onnx backend scores for a
// μBench run, with how many trailing tokens each scores: each request as
// BOS, context and continuation (left-truncated to μBench's 512 tokens),
// each document in lm-eval's rolling windows.
func scoredSequences(tok *tokenizer.Tokenizer, r *recorder) []scoreIDs {
	var out []scoreIDs
	for _, s := range tokenizeRequests(tok, r.reqs) {
		out = append(out, scoreIDs{IDs: s.IDs[max(0, len(s.IDs)-microbench.MaxLength):], N: s.N})
	}
	for _, text := range r.texts {
		for _, w := range lm.RollingWindows(tok.Encode(text, false), testmodel.BOSID, microbench.MaxLength) {
			out = append(out, scoreIDs{IDs: w.Tokens, N: w.Scored})
		}
	}
	return out
}

// trieRow is what one sequence added to the prefix trie: its new tokens,
// and how many trailing positions of them cover every position whose
// next-token log-probability some sequence reads (at least 1, since a
// call keeps at least one).
type trieRow struct {
	tokens []int
	keep   int
}

// distinctRows inserts seqs into a prefix trie and returns, per sequence
// that added tokens, the row it added. A sequence scoring its last n
// tokens reads the log-probabilities after each of the n prefixes before
// its end; a prefix read by any sequence counts in its own row's keep.
func distinctRows(seqs []scoreIDs) []trieRow {
	type edge struct{ node, token int }
	trie := map[edge]int{}
	var rows []trieRow
	var nodes [][]int // per row, the trie node of each token
	read := map[int]bool{}
	for _, s := range seqs {
		node := 0
		path := make([]int, len(s.IDs))
		added := -1
		for i, t := range s.IDs {
			next, ok := trie[edge{node, t}]
			if !ok {
				if added < 0 {
					added = i
				}
				next = len(trie) + 1
				trie[edge{node, t}] = next
			}
			node, path[i] = next, next
		}
		for p := len(s.IDs) - 1 - s.N; p < len(s.IDs)-1; p++ {
			read[path[p]] = true
		}
		if added >= 0 {
			rows = append(rows, trieRow{tokens: s.IDs[added:]})
			nodes = append(nodes, path[added:])
		}
	}
	for i, r := range rows {
		rows[i].keep = 1
		for j, n := range nodes[i] {
			if read[n] {
				rows[i].keep = len(r.tokens) - j
				break
			}
		}
	}
	return rows
}

// forward is a bare ONNX Runtime session on a fixture's file, set up as the
// backend sets up its own (threads, full graph optimisation), that asks
// only for logits, of the positions num_logits_to_keep keeps.
type forward struct {
	sess            *ort.DynamicAdvancedSession
	cfg             testmodel.Config
	logits, emptyKV []float32
}

func newForward(b *testing.B, dir string, cfg testmodel.Config) *forward {
	b.Helper()
	so, err := ort.NewSessionOptions()
	if err != nil {
		b.Fatal(err)
	}
	defer so.Destroy()
	for _, err := range []error{so.SetIntraOpNumThreads(1), so.SetInterOpNumThreads(1), so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll)} {
		if err != nil {
			b.Fatal(err)
		}
	}
	inputs := []string{"input_ids", "attention_mask", "position_ids"}
	for i := 0; i < cfg.Layers; i++ {
		inputs = append(inputs, fmt.Sprintf("past_key_values.%d.key", i), fmt.Sprintf("past_key_values.%d.value", i))
	}
	inputs = append(inputs, cfg.LogitsToKeep)
	sess, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, cfg.Layout), inputs, []string{"logits"}, so)
	if err != nil {
		b.Fatal(err)
	}
	return &forward{sess: sess, cfg: cfg, emptyKV: make([]float32, 1)}
}

func (f *forward) close() { f.sess.Destroy() }

// call is rows of one length that keep as many positions, run together.
type call struct {
	rows, seq, keep int
	ids             []int64
}

// calls groups rows by length and kept positions and cuts each group at
// the backend's default budget: rows × length at most the tokens whose
// float32 logits take 64 MiB.
func (f *forward) calls(rows []trieRow) []call {
	budget := max(64, (64<<20)/(4*f.cfg.Vocab))
	type shape struct{ seq, keep int }
	groups := map[shape][]trieRow{}
	var order []shape
	for _, r := range rows {
		k := shape{len(r.tokens), r.keep}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []call
	for _, k := range order {
		group := groups[k]
		per := max(1, budget/k.seq)
		for i := 0; i < len(group); i += per {
			c := call{seq: k.seq, keep: k.keep}
			for _, r := range group[i:min(i+per, len(group))] {
				for _, t := range r.tokens {
					c.ids = append(c.ids, int64(t))
				}
				c.rows++
			}
			out = append(out, c)
		}
	}
	return out
}

// run computes one call's kept logits into a reused buffer.
func (f *forward) run(b *testing.B, c call) {
	rows, seq := int64(c.rows), int64(c.seq)
	mask := make([]int64, c.rows*c.seq)
	pos := make([]int64, c.rows*c.seq)
	for i := range mask {
		mask[i], pos[i] = 1, int64(i%c.seq)
	}
	var values []ort.Value
	defer func() {
		for _, v := range values {
			v.Destroy()
		}
	}()
	add := func(v ort.Value, err error) {
		if err != nil {
			b.Fatal(err)
		}
		values = append(values, v)
	}
	add(ort.NewTensor(ort.NewShape(rows, seq), c.ids))
	add(ort.NewTensor(ort.NewShape(rows, seq), mask))
	add(ort.NewTensor(ort.NewShape(rows, seq), pos))
	for i := 0; i < 2*f.cfg.Layers; i++ {
		add(ort.NewTensor(ort.NewShape(rows, int64(f.cfg.KVHeads), 0, int64(f.cfg.HeadDim)), f.emptyKV))
	}
	add(ort.NewScalar(int64(c.keep)))
	n := c.rows * c.keep * f.cfg.Vocab
	if len(f.logits) < n {
		f.logits = make([]float32, n)
	}
	add(ort.NewTensor(ort.NewShape(rows, int64(c.keep), int64(f.cfg.Vocab)), f.logits[:n]))
	if err := f.sess.Run(values[:len(values)-1], values[len(values)-1:]); err != nil {
		b.Fatal(err)
	}
}
