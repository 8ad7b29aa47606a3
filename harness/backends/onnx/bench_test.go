package onnx

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/internal/testenv"
)

// Benchmarks on the perf fixture (6 layers, width 256, GQA, 32k
// vocabulary). scripts/perf.sh runs each optimized/naive pair in one
// process and prints the speedups.

// perfModel opens the perf fixture, building it once per test binary. One
// intra-op thread keeps the comparison about the work each side does: on a
// busy machine, ONNX Runtime's threads wait on each other at every
// operator, which punishes many small calls more than few large ones.
func perfModel(b *testing.B) *Model {
	b.Helper()
	orttest.Require(b)
	f := fixtureEntry("perf")
	f.once.Do(func() { f.m, f.err = testmodel.Build(filepath.Join(fixtureRoot, "perf"), testmodel.PerfFixture()) })
	if f.err != nil {
		b.Fatal(f.err)
	}
	m, err := Open(context.Background(), f.m.Dir, Options{Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	m.eos = nil // decode the full length every time
	return m
}

// choiceItems is the μBench shape: items of 4 choices sharing a ~60-token
// context, with continuations of 1 to 8 tokens.
func choiceItems(items, vocab int) []local.ScoreSeq {
	var seqs []local.ScoreSeq
	for i := 0; i < items; i++ {
		ctx := append([]int{testmodel.BOSID}, ids(56+i%9, vocab, 100+i)...)
		for c, n := range [][4]int{{1, 2, 4, 8}, {1, 1, 1, 1}, {3, 5, 2, 7}, {6, 8, 4, 1}}[i%4] {
			seqs = append(seqs, local.ScoreSeq{Tokens: append(append([]int(nil), ctx...), ids(n, vocab, 1000*i+c)...), N: n})
		}
	}
	return seqs
}

const benchItems = 8

// cpuMetric reports cpu-ns/op, the process's CPU time per operation, which
// a busy machine disturbs far less than wall time; scripts/perf.sh prefers
// it when both sides of a pair report it.
func cpuMetric(b *testing.B) func() {
	start, ok := testenv.CPUTime()
	return func() {
		if end, ok2 := testenv.CPUTime(); ok && ok2 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func BenchmarkScoreCached(b *testing.B) {
	m := perfModel(b)
	seqs := choiceItems(benchItems, m.spec.vocab)
	checkSameScores(b, m, seqs)
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		if _, err := m.scoreSeqs(context.Background(), seqs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(seqs))*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

func BenchmarkScoreNaive(b *testing.B) {
	m := perfModel(b)
	seqs := choiceItems(benchItems, m.spec.vocab)
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		if _, err := scoreNaive(m, seqs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(seqs))*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// scoreNaive is the baseline: one full forward per request, no batching,
// no shared context.
func scoreNaive(m *Model, seqs []local.ScoreSeq) ([]local.SeqScore, error) {
	r := m.runners[0]
	out := make([]local.SeqScore, len(seqs))
	for i, s := range seqs {
		in := s.Tokens[:len(s.Tokens)-1]
		st := m.leftPadded([]stageRow{{tokens: in}}, len(in))
		st.logProbs = true
		view, err := r.run(st, nil)
		if err != nil {
			return nil, err
		}
		out[i].Greedy = true
		for p := len(s.Tokens) - 1 - s.N; p < len(in); p++ {
			lp, g := view.logProb(0, p, s.Tokens[p+1])
			out[i].LogProb += lp
			out[i].Greedy = out[i].Greedy && g
		}
	}
	return out, nil
}

// checkSameScores makes sure both sides of the pair compute the same thing.
func checkSameScores(b *testing.B, m *Model, seqs []local.ScoreSeq) {
	got, err := m.scoreSeqs(context.Background(), seqs, nil)
	if err != nil {
		b.Fatal(err)
	}
	want, err := scoreNaive(m, seqs)
	if err != nil {
		b.Fatal(err)
	}
	for i := range want {
		if math.Abs(got[i].LogProb-want[i].LogProb) > 1e-3 || got[i].Greedy != want[i].Greedy {
			b.Fatalf("request %d: optimized %v, naive %v", i, got[i], want[i])
		}
	}
}

// genPrompts are Featherweight-sized: 4 prompts of about 64 tokens.
func genPrompts(vocab int) []local.GenSeq {
	var seqs []local.GenSeq
	for i := 0; i < 4; i++ {
		seqs = append(seqs, local.GenSeq{Prompt: append([]int{testmodel.BOSID}, ids(60+i, vocab, 7+i)...), MaxNew: 20})
	}
	return seqs
}

func benchDecode(b *testing.B, noCache bool) {
	m := perfModel(b)
	m.noCache = noCache
	seqs := genPrompts(m.spec.vocab)
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		out, err := m.decodeSeqs(context.Background(), seqs, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(out[0].Tokens) != 20 {
			b.Fatalf("decoded %d tokens, want 20", len(out[0].Tokens))
		}
	}
	b.ReportMetric(float64(20*len(seqs))*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

func BenchmarkGenerateCached(b *testing.B)    { benchDecode(b, false) }
func BenchmarkGenerateRecompute(b *testing.B) { benchDecode(b, true) }

// BenchmarkTokenLogProb is the log-softmax of one 32k-vocabulary row.
func BenchmarkTokenLogProb(b *testing.B) {
	logits := make([]float32, 32000)
	for i := range logits {
		logits[i] = float32(math.Sin(float64(i)))
	}
	for b.Loop() {
		tokenLogProb(logits, 123)
	}
}

// BenchmarkScoreBatchedFull batches whole sequences without reusing the
// shared context's cache (lm-eval's approach), for comparison with
// BenchmarkScoreCached.
func BenchmarkScoreBatchedFull(b *testing.B) {
	m := perfModel(b)
	m.noCache = true
	seqs := choiceItems(benchItems, m.spec.vocab)
	b.ResetTimer()
	defer cpuMetric(b)()
	for b.Loop() {
		if _, err := m.scoreSeqs(context.Background(), seqs, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(seqs))*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}
