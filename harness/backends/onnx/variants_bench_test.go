package onnx

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/internal/testenv"
)

// benchVariants are the files BenchmarkVariants times beside float32.
var benchVariants = []string{"fp16", "q4", "int8", "uint8"}

// perfVariantModels opens the perf fixture's float32 file and each of
// benchVariants (built once per test binary), as perfModel opens it.
func perfVariantModels(b *testing.B) map[string]*Model {
	b.Helper()
	orttest.Require(b)
	f := fixtureEntry("perf-variants")
	f.once.Do(func() {
		cfg := testmodel.PerfFixture()
		cfg.Variants = benchVariants
		f.m, f.err = testmodel.Build(filepath.Join(fixtureRoot, "perf-variants"), cfg)
	})
	if f.err != nil {
		b.Fatal(f.err)
	}
	out := map[string]*Model{}
	for _, v := range append([]string{""}, benchVariants...) {
		m, err := Open(context.Background(), f.m.Dir, Options{Threads: 1, Variant: v})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { m.Close() })
		m.eos = nil // decode the full length every time
		out[v] = m
	}
	return out
}

// variantCost is one variant's fastest time scoring the μBench-shaped
// items and decoding the Featherweight-shaped prompts; zero is none yet.
type variantCost struct{ score, gen time.Duration }

// variantRounds is how many times each b.N iteration runs every file, in
// the map's (random) order, so BENCHTIME=3x takes each file's fastest of
// nine runs interleaved with the others'.
const variantRounds = 3

// BenchmarkVariants times scoring (BenchmarkScoreCached's items) and
// greedy generation (BenchmarkGenerateCached's prompts) on the perf
// fixture's float32 file and each variant, interleaved in the same loop,
// and reports each variant's speed as a multiple of float32's
// (<variant>-score-x, <variant>-gen-x: above 1 is faster), from each
// file's fastest run, as make perf's other comparisons take theirs (other
// work on the shared machine only ever adds time), in CPU time where the
// platform reports it.
func BenchmarkVariants(b *testing.B) {
	models := perfVariantModels(b)
	vocab := models[""].spec.vocab
	seqs, prompts := choiceItems(benchItems, vocab), genPrompts(vocab)
	costs := map[string]*variantCost{}
	for v := range models {
		costs[v] = &variantCost{}
		runVariant(b, models[v], seqs, prompts, &variantCost{}) // warm up
	}
	b.ResetTimer()
	for b.Loop() {
		for range variantRounds {
			for v, m := range models {
				runVariant(b, m, seqs, prompts, costs[v])
			}
		}
	}
	base := costs[""]
	for _, v := range benchVariants {
		b.ReportMetric(base.score.Seconds()/costs[v].score.Seconds(), v+"-score-x")
		b.ReportMetric(base.gen.Seconds()/costs[v].gen.Seconds(), v+"-gen-x")
	}
	b.ReportMetric(float64(len(seqs))/base.score.Seconds(), "fp32-requests/s")
	b.ReportMetric(float64(20*len(prompts))/base.gen.Seconds(), "fp32-tokens/s")
}

// runVariant scores and decodes once on m and keeps each phase's time in
// c where it is the fastest yet.
func runVariant(b *testing.B, m *Model, seqs []local.ScoreSeq, prompts []local.GenSeq, c *variantCost) {
	elapsed := timer()
	if _, err := m.scoreSeqs(context.Background(), seqs, nil); err != nil {
		b.Fatal(err)
	}
	c.score = fastest(c.score, elapsed())
	elapsed = timer()
	if _, err := m.decodeSeqs(context.Background(), prompts, nil); err != nil {
		b.Fatal(err)
	}
	c.gen = fastest(c.gen, elapsed())
}

// fastest is the smaller of two times, zero counting as none yet.
func fastest(best, d time.Duration) time.Duration {
	if best == 0 {
		return d
	}
	return min(best, d)
}

// timer returns the CPU time (wall time where there is none) since it
// was called.
func timer() func() time.Duration {
	start, ok := testenv.CPUTime()
	wall := time.Now()
	return func() time.Duration {
		if end, ok2 := testenv.CPUTime(); ok && ok2 {
			return end - start
		}
		return time.Since(wall)
	}
}
