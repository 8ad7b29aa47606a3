package microbench_test

import (
	"encoding/json"
	"hash/fnv"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	mb "github.com/feather-eval/feather/harness/suites/microbench"
)

// hashed is a scorer whose log-probabilities are fixed by the request's
// text, so that the same item gets the same verdict in any run.
func hashed() *fake.Model {
	h := func(s string) float64 {
		f := fnv.New32a()
		f.Write([]byte(s))
		return -float64(f.Sum32()%1000) / 100
	}
	return &fake.Model{
		LogProb: func(r lm.LLRequest) lm.LLResult {
			return lm.LLResult{LogProb: h(r.Context + "|" + r.Continuation), ContextTokens: 3, ContinuationTokens: 1}
		},
		Rolling: func(s string) lm.RollingResult {
			return lm.RollingResult{LogProb: -float64(len(s)) / 2, Tokens: len(s) / 4, Windows: 1}
		},
	}
}

// evaluate runs the shipped tasks the selection takes, as run stamp.
func evaluate(t *testing.T, tasks []*mb.Task, stamp string, selected func(task, item string) bool) *mb.Result {
	t.Helper()
	res, err := mb.Evaluate(t.Context(), hashed(), lm.Info{Key: "m"}, tasks, mb.Options{Selected: selected})
	require.NoError(t, err)
	res.Run = stamp
	return res
}

// comparable is a result as JSON with its duration zeroed.
func comparable(t *testing.T, r *mb.Result) string {
	t.Helper()
	c := *r
	c.ScoringSeconds = 0
	b, err := json.MarshalIndent(c, "", "  ")
	require.NoError(t, err)
	return string(b)
}

func TestMergeEqualsTheWholeRun(t *testing.T) {
	tasks, err := mb.Load(os.DirFS("../../../testdata/microbench"))
	require.NoError(t, err)
	whole := evaluate(t, tasks, "w", nil)
	require.NotNil(t, whole.Index, "the whole run has an index")
	part := map[string]int{}
	for i, tk := range tasks {
		part[tk.ID] = i % 3
	}
	var parts []*mb.Result
	for k := range 3 {
		parts = append(parts, evaluate(t, tasks, "w", func(task, _ string) bool { return part[task] == k }))
		assert.Nil(t, parts[k].Index, "a part alone has no index")
	}
	merged, err := mb.Merge(parts)
	require.NoError(t, err)
	assert.Equal(t, comparable(t, whole), comparable(t, merged))
	assert.Equal(t, mb.Leaderboard([]*mb.Result{whole}), mb.Leaderboard([]*mb.Result{merged}))
	assert.Equal(t, parts[0].ScoringSeconds+parts[1].ScoringSeconds+parts[2].ScoringSeconds, merged.ScoringSeconds)
}

func TestMergeRefuses(t *testing.T) {
	tasks, err := mb.Load(os.DirFS("../../../testdata/microbench"))
	require.NoError(t, err)
	capitals := func(task, _ string) bool { return task == "capitals" }
	a, b := evaluate(t, tasks, "a", capitals), evaluate(t, tasks, "b", capitals)
	_, err = mb.Merge([]*mb.Result{a, b})
	assert.EqualError(t, err, "μBench: task capitals of m was scored in both runs a and b; merge disjoint parts of one run")

	other := evaluate(t, tasks, "b", capitals)
	other.Model.Key = "n"
	_, err = mb.Merge([]*mb.Result{a, other})
	assert.EqualError(t, err, `μBench: cannot merge results of different models, "m" and "n"`)

	other.Model.Key, other.MaxLength = "m", 256
	_, err = mb.Merge([]*mb.Result{a, other})
	assert.EqualError(t, err, "μBench: cannot merge m's results of runs a and b: they differ in version, seed, items or max length")

	_, err = mb.Merge(nil)
	assert.EqualError(t, err, "μBench: no results to merge")
}
