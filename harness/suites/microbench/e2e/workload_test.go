package e2e_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/testenv"
)

// The workloads the comparison benchmarks share: μBench's scoring
// requests and Featherweight's prompts, as text for feather and as the
// token ids feather feeds its model for other engines.

// recorder is a scorer that only notes what μBench asks, answering zeros.
type recorder struct {
	reqs  []lm.LLRequest
	texts []string
}

func (r *recorder) LogLikelihood(_ context.Context, reqs []lm.LLRequest, _ lm.ScoreOptions) ([]lm.LLResult, error) {
	r.reqs = append(r.reqs, reqs...)
	return make([]lm.LLResult, len(reqs)), nil
}

func (r *recorder) RollingLogLikelihood(_ context.Context, texts []string, _ lm.ScoreOptions) ([]lm.RollingResult, error) {
	r.texts = append(r.texts, texts...)
	return make([]lm.RollingResult, len(texts)), nil
}

// microbenchRequests is what a full μBench run asks a scorer: every
// log-likelihood request and every bits-per-byte document.
func microbenchRequests(tb testing.TB) *recorder {
	tb.Helper()
	var r recorder
	if _, err := microbench.Evaluate(context.Background(), &r, lm.Info{Key: "recorder"}, suiteTasks(tb), microbench.Options{}); err != nil {
		tb.Fatal(err)
	}
	return &r
}

// spread picks n requests from reqs, whole questions at a time (a run of
// requests sharing a context), from questions spread evenly over the list
// so every task is represented; all of reqs when they are fewer.
func spread(reqs []lm.LLRequest, n int) []lm.LLRequest {
	if n >= len(reqs) {
		return reqs
	}
	var groups [][]lm.LLRequest
	for i := 0; i < len(reqs); {
		j := i + 1
		for j < len(reqs) && reqs[j].Context == reqs[i].Context {
			j++
		}
		groups = append(groups, reqs[i:j])
		i = j
	}
	var out []lm.LLRequest
	for k := 0; len(out) < n; k++ {
		g := groups[k*len(groups)/((n+3)/4)%len(groups)]
		out = append(out, g[:min(len(g), n-len(out))]...)
	}
	return out
}

// scoreIDs is a scoring request as token ids: the prefix, the context and
// the continuation, whose last N tokens are scored.
type scoreIDs struct {
	IDs []int `json:"ids"`
	N   int   `json:"n"`
}

// tokenizeRequests encodes requests as the onnx backend does: BOS first
// (EOS for a tokenizer without one), then context and continuation split
// as designed.pair splits them.
func tokenizeRequests(tok *tokenizer.Tokenizer, reqs []lm.LLRequest) []scoreIDs {
	d := designed{tok: tok}
	first, ok := tok.BOS()
	if !ok {
		first, _ = tok.EOS()
	}
	out := make([]scoreIDs, len(reqs))
	for i, r := range reqs {
		ctx, cont := d.pair(r.Context, r.Continuation)
		ids := append(append([]int{first.ID}, ctx...), cont...)
		out[i] = scoreIDs{IDs: ids, N: len(cont)}
	}
	return out
}

// featherweightRequests are the first n Featherweight items as raw
// prompts, alternating the two styles, each generating up to
// featherweight.MaxNewTokens (20) greedily.
func featherweightRequests(tb testing.TB, n int) []lm.GenerateRequest {
	tb.Helper()
	ds, err := featherweight.Load(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "featherweight.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	styles := featherweight.Styles
	out := make([]lm.GenerateRequest, min(n, len(ds.Items)))
	for i := range out {
		out[i] = featherweight.Request(styles[i%len(styles)], ds.Items[i], false)
	}
	return out
}

// cost is what one timed run took: wall and CPU time.
type cost struct{ wall, cpu time.Duration }

// measure runs fn once and returns its cost; the comparisons are in CPU
// time, so a system that cannot read it skips.
func measure(tb testing.TB, fn func()) cost {
	c0, ok := testenv.CPUTime()
	if !ok {
		tb.Skip("CPU time is read with getrusage, which this system lacks")
	}
	t0 := time.Now()
	fn()
	c1, _ := testenv.CPUTime()
	return cost{time.Since(t0), c1 - c0}
}

// least keeps, field by field, the smaller of two costs (a busy machine
// only ever adds time); the zero cost counts as none yet.
func (c cost) least(d cost) cost {
	if c == (cost{}) {
		return d
	}
	return cost{min(c.wall, d.wall), min(c.cpu, d.cpu)}
}
