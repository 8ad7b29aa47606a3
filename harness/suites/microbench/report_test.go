package microbench_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	mb "github.com/feather-eval/feather/harness/suites/microbench"
)

func ranked(key, name string, params int64, index, se float64, d ...float64) *mb.Result {
	r := &mb.Result{Suite: mb.Name, Model: lm.Info{Key: key, Name: name}, NumParameters: params,
		Index: &index, StandardErrors: mb.StandardErrors{Index: &se}, DomainScores: map[string]float64{}}
	for i, dom := range mb.Domains {
		r.DomainScores[dom.ID] = d[i]
	}
	return r
}

func TestLeaderboard(t *testing.T) {
	smoke := ranked("smoke", "smoke", 0, 3.05, 0.5, 0, 3.7, 0.72, 1.55, 5.88, 5.98)
	smoke.Model.Smoke = true
	partial := &mb.Result{Suite: mb.Name, Model: lm.Info{Key: "delta", Name: "Delta"}, NumParameters: 467648,
		Tasks: []mb.TaskResult{{ID: "agreement", Complete: true, Items: 80, ItemsTotal: 80}, {ID: "capitals", Items: 10, ItemsTotal: 64}}}
	// A run whose D1 tasks are complete keeps D1's score and nothing else.
	partialD1 := &mb.Result{Suite: mb.Name, Model: lm.Info{Key: "echo", Name: "Echo"}, NumParameters: 2_900_000,
		DomainScores: map[string]float64{"D1": 12.5},
		Tasks: []mb.TaskResult{{ID: "agreement", Complete: true, Items: 80, ItemsTotal: 80}, {ID: "morphology", Complete: true, Items: 60, ItemsTotal: 60},
			{ID: "word_order", Complete: true, Items: 60, ItemsTotal: 60}, {ID: "synonyms", ItemsTotal: 60}, {ID: "antonyms", ItemsTotal: 60},
			{ID: "categories", ItemsTotal: 60}, {ID: "capitals", ItemsTotal: 64}, {ID: "science", ItemsTotal: 60}, {ID: "everyday", ItemsTotal: 60},
			{ID: "reading", ItemsTotal: 60}, {ID: "tracking", ItemsTotal: 60}, {ID: "copying", ItemsTotal: 60}, {ID: "arithmetic", ItemsTotal: 70},
			{ID: "comparison", ItemsTotal: 60}, {ID: "sequences", ItemsTotal: 60}, {ID: "continuation", ItemsTotal: 60}, {ID: "story", ItemsTotal: 60}, {ID: "bpb", ItemsTotal: 6}}}
	got := mb.Leaderboard([]*mb.Result{
		smoke,
		ranked("alpha", "SmolLM2-135M-Base", 134_515_008, 58.90, 1, 62.18, 86.33, 86.85, 40.85, 45.93, 41.62),
		partial,
		ranked("beta", "Qwen3-0.6B", 596_000_000, 69.82, 1, 59.82, 79.42, 87.94, 64.03, 77.10, 50.10),
		ranked("gamma", "Pythia|160M", 162_300_000, 58.00, 1, 58.69, 72.57, 48.51, 25.48, 26.79, 33.69),
		partialD1,
	})
	want := `# Supra-μBench leaderboard

Supra-μBench v0.2.0 · 512 max seq len · ranked by INDEX, high to low.

| Rank | Model | Params | INDEX | D1 | D2 | D3 | D4 | D5 | D6 |
|---|---|---|---|---|---|---|---|---|---|
| 🥇 1 | Qwen3-0.6B | 596.0M | 69.82 | 59.82 | 79.42 | 87.94 | 64.03 | 77.10 | 50.10 |
| 🥈 2 | SmolLM2-135M-Base | 134.5M | 58.90 | 62.18 | 86.33 | 86.85 | 40.85 | 45.93 | 41.62 |
| 🥉 3 ≈ | Pythia\|160M | 162.3M | 58.00 | 58.69 | 72.57 | 48.51 | 25.48 | 26.79 | 33.69 |
| 4 | smoke *smoke model* | — | 3.05 | 0.00 | 3.70 | 0.72 | 1.55 | 5.88 | 5.98 |

Standard errors of the index (item sampling): Qwen3-0.6B ± 1.00; SmolLM2-135M-Base ± 1.00; Pythia\|160M ± 1.00; smoke *smoke model* ± 0.50.

≈ the gap to the run ranked directly above is smaller than 2·√(se₁²+se₂²): treat it as noise.

*smoke model*: the built-in deterministic model; its numbers measure the harness, not a language model.

## Not ranked (incomplete runs)

These runs left items unscored (a -run filter, or requests the backend could not score). Their index is withheld, and so is each domain score whose tasks are not all complete; their task scores cover only the items scored.

| Model | Params | complete tasks | scored items | domain scores |
|---|---|---|---|---|
| Delta | 467648 | 1 of 2 | 90 of 144 | none (withheld) |
| Echo | 2.9M | 3 of 18 | 200 of 1060 | D1 only |
`
	assert.Equal(t, want, got)
}

func TestLeaderboardNamesRepeatedModelsByRun(t *testing.T) {
	a := ranked("m", "Model", 0, 50, 1, 1, 2, 3, 4, 5, 6)
	b := ranked("m", "Model", 0, 40, 1, 1, 2, 3, 4, 5, 6)
	a.Run, b.Run = "20260101T000000Z", "20260102T000000Z"
	got := mb.Leaderboard([]*mb.Result{b, a})
	assert.Contains(t, got, "| 🥇 1 | Model (20260101T000000Z) |")
	assert.Contains(t, got, "| 🥈 2 | Model (20260102T000000Z) |")
	assert.NotContains(t, got, "≈")
	assert.Contains(t, mb.Leaderboard(nil), "No complete run yet")
}

// Rank and Labels are what other renderings of the leaderboard (the HTML
// report) build on: the order, the noise marks and the plain labels.
func TestRankAndLabels(t *testing.T) {
	smoke := ranked("smoke", "", 0, 3.05, 0.5, 0, 0, 0, 0, 0, 0)
	smoke.Model.Smoke = true
	a := ranked("a", "Pythia|160M", 0, 58, 1, 0, 0, 0, 0, 0, 0)
	b := ranked("b", "Model", 0, 69.82, 1.5, 0, 0, 0, 0, 0, 0)
	c := ranked("c", "Model", 0, 58, 0, 0, 0, 0, 0, 0, 0)
	b.Run, c.Run = "20260101T000000Z", "20260102T000000Z"
	c.StandardErrors.Index = nil
	partial := &mb.Result{Model: lm.Info{Key: "p"}}
	results := []*mb.Result{smoke, a, partial, b, c}

	var order []string
	var ses []float64
	var noise []bool
	for _, r := range mb.Rank(results) {
		order = append(order, r.Result.Model.Key)
		ses = append(ses, r.SE)
		noise = append(noise, r.WithinNoise)
	}
	assert.Equal(t, []string{"b", "a", "c", "smoke"}, order, "by index, ties by key, the incomplete run left out")
	assert.Equal(t, []float64{1.5, 1, 0, 0.5}, ses)
	assert.Equal(t, []bool{false, false, true, false}, noise)

	assert.Equal(t, map[*mb.Result]string{
		smoke: "smoke", a: "Pythia|160M", partial: "p",
		b: "Model (20260101T000000Z)", c: "Model (20260102T000000Z)",
	}, mb.Labels(results))
}

func TestResultFilesRoundTripAndNeverOverwrite(t *testing.T) {
	tasks, m := designedModel()
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	p1, err := mb.WriteResult(dir, "designed", res)
	require.NoError(t, err)
	p2, err := mb.WriteResult(dir, "designed", res)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "designed.json"), p1)
	assert.Equal(t, filepath.Join(dir, "designed-2.json"), p2)

	back, err := mb.ReadResult(p1)
	require.NoError(t, err)
	assert.Equal(t, res, back)
	both, err := mb.ReadResults(p1, p2)
	require.NoError(t, err)
	assert.Equal(t, []*mb.Result{res, res}, both)
	assert.Equal(t, res.Outcomes(), back.Outcomes())

	// The spec's top-level fields are where a leaderboard tool looks.
	raw, err := os.ReadFile(p1)
	require.NoError(t, err)
	for _, k := range []string{`"model_path": "/models/designed"`, `"num_parameters": 1234567`, `"task_scores": {`, `"domain_scores": {`, `"mubench_intelligence_index": 40.57185520612`} {
		assert.Contains(t, string(raw), k)
	}

	other := filepath.Join(dir, "other.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"suite": "Featherbench"}`), 0o644))
	_, err = mb.ReadResult(other)
	assert.ErrorContains(t, err, `suite is "Featherbench", not "Supra-μBench"`)
	require.NoError(t, os.WriteFile(other, []byte(`{"suite": `), 0o644))
	_, err = mb.ReadResult(other)
	assert.ErrorContains(t, err, "not a μBench result file")
}

func TestLevelsTableAndSummary(t *testing.T) {
	tasks, m := designedModel()
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	require.NoError(t, err)
	levels := mb.LevelsTable(res)
	assert.Contains(t, levels, "Supra-μBench levels for Designed\n")
	assert.Regexp(t, `pairs\s+1\s+2\s+1\s+50\.0%\s+only`, levels)
	assert.Regexp(t, `bpb\s+2\s+1 docs\s+2\.000 bpb\s+second`, levels)
	assert.Equal(t, "Supra-μBench Designed: index 40.57 ± 12.82, D1 33.33, D2 66.67, D3 33.33, D4 0.00, D5 75.00, D6 37.15; 2 items left-truncated to 512 tokens", mb.Summary(res))
	res.Model.ContextLength = 256
	assert.Contains(t, mb.Summary(res), "; the model's context is 256 tokens, under the 512 the spec asks for")
	res.Model.Smoke = true
	assert.Equal(t, "Designed [smoke model]", res.Label())
	res.Index = nil
	assert.Contains(t, mb.Summary(res), "no index (not every task was scored completely)")
}
