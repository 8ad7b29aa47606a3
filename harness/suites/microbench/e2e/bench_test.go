package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// A full μBench run (every item: 3866 log-likelihood requests and 6
// documents) on the performance fixture, a model about the shape of a
// small real one. BenchmarkMicrobenchBatched hands the backend each batch
// whole, as the suite does; BenchmarkMicrobenchNaive sends one request per
// call, so nothing is batched and no context is shared between a
// question's choices. `make perf` prints their ratio.

func BenchmarkMicrobenchBatched(b *testing.B) {
	benchmarkRun(b, func(s lm.Scorer) lm.Scorer { return s })
}

func BenchmarkMicrobenchNaive(b *testing.B) {
	benchmarkRun(b, func(s lm.Scorer) lm.Scorer { return oneAtATime{s} })
}

func benchmarkRun(b *testing.B, wrap func(lm.Scorer) lm.Scorer) {
	orttest.Require(b)
	dir := perfFixture(b)
	m, err := onnx.Open(context.Background(), dir, onnx.Options{Key: "perf"})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	m.Settle()
	tasks := suiteTasks(b)
	s := wrap(m)
	// Warm up (ONNX Runtime's first runs allocate and tune) outside the
	// timed loop, so both sides measure the steady state.
	warm := microbench.Options{Selected: func(task, _ string) bool { return task == "reading" || task == "bpb" }}
	if _, err := microbench.Evaluate(context.Background(), s, m.Info(), tasks, warm); err != nil {
		b.Fatal(err)
	}
	var res *microbench.Result
	for b.Loop() {
		if res, err = microbench.Evaluate(context.Background(), s, m.Info(), tasks, microbench.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Requests.LogLikelihood)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
}

// oneAtATime is the naive scorer: every request is its own backend call.
type oneAtATime struct{ lm.Scorer }

func (s oneAtATime) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	out := make([]lm.LLResult, len(reqs))
	for i := range reqs {
		r, err := s.Scorer.LogLikelihood(ctx, reqs[i:i+1], opt)
		if err != nil {
			return nil, err
		}
		out[i] = r[0]
	}
	return out, nil
}

func (s oneAtATime) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	out := make([]lm.RollingResult, len(texts))
	for i := range texts {
		r, err := s.Scorer.RollingLogLikelihood(ctx, texts[i:i+1], opt)
		if err != nil {
			return nil, err
		}
		out[i] = r[0]
	}
	return out, nil
}

// The fixture is built once per process, outside the timed loops.
var perf struct {
	once sync.Once
	dir  string
	err  error
}

func perfFixture(b *testing.B) string {
	b.Helper()
	perf.once.Do(func() {
		var root string
		if root, perf.err = os.MkdirTemp("", "feather-mb-perf-"); perf.err != nil {
			return
		}
		perf.dir = filepath.Join(root, "perf")
		_, perf.err = testmodel.Build(perf.dir, testmodel.PerfFixture())
	})
	if perf.err != nil {
		b.Fatal(perf.err)
	}
	return perf.dir
}

// openWithTokenizer opens the model folder dir as "perf" on threads
// intra-op threads, closed when the benchmark ends, and loads its
// tokenizer.
func openWithTokenizer(b *testing.B, dir string, threads int) (*onnx.Model, *tokenizer.Tokenizer) {
	b.Helper()
	m, err := onnx.Open(context.Background(), dir, onnx.Options{Key: "perf", Threads: threads})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close() })
	m.Settle()
	tok, err := tokenizer.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	return m, tok
}

func TestMain(m *testing.M) {
	code := m.Run()
	if perf.dir != "" {
		os.RemoveAll(filepath.Dir(perf.dir))
	}
	os.Exit(code)
}
