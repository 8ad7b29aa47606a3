package featherbench

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
)

// judgingTasks: three tasks with a rubric (one with a checker, one
// without, one with tools) and one without.
func judgingTasks(t *testing.T) []Task {
	t.Helper()
	var out []Task
	for _, f := range []struct{ name, json string }{
		{"realworld-plan.json", `{"category": "realworld", "prompt": "Plan a day in Lisbon with a child.", "checker": {"type": "regex", "pattern": "(?i)day 1"},
			"rubric": {"criteria": ["Costs are realistic", "Pacing suits a child"]}}`},
		{"data-notes.json", `{"category": "data", "prompt": "Three bullets on data lineage.", "rubric": {"criteria": ["Concrete"]}}`},
		{"tool-use-pick.json", `{"category": "tool-use", "prompt": "Pick a flight; do not book.", "tools": [{"name": "pick"}],
			"rubric": {"criteria": ["Picks without booking"]}}`},
		{"coding-sum.json", `{"category": "coding", "prompt": "What is 2 + 3?", "checker": {"type": "regex", "pattern": "5"}}`},
	} {
		task, err := Parse(f.name, []byte(f.json))
		require.NoError(t, err)
		out = append(out, task)
	}
	return out
}

// judgingModels: alpha answers everything; beta refuses the plan, fails
// on the notes and answers the rest.
func judgingModels(tasks []Task) (alpha, beta *fake.Model) {
	alpha = scriptedModel(tasks, script{
		"realworld-plan": same(lm.GenerateResult{Text: "Day 1: PLAN-ONE", StopReason: lm.StopEOS}),
		"data-notes":     same(lm.GenerateResult{Text: "NOTES-ONE", StopReason: lm.StopEOS}),
		"tool-use-pick":  same(lm.GenerateResult{ToolCalls: []lm.ToolCall{{Name: "pick", Args: map[string]any{"flight": "TP1"}}}, StopReason: lm.StopToolCalls}),
		"coding-sum":     same(lm.GenerateResult{Text: "5", StopReason: lm.StopEOS}),
	})
	beta = scriptedModel(tasks, script{
		"realworld-plan": same(lm.GenerateResult{StopReason: lm.StopRefusal}),
		"data-notes":     same(lm.GenerateResult{StopReason: lm.StopError, Err: errors.New("HTTP 503")}),
		"tool-use-pick":  same(lm.GenerateResult{Text: "PICK-TWO", StopReason: lm.StopEOS}),
		"coding-sum":     same(lm.GenerateResult{Text: "5", StopReason: lm.StopEOS}),
	})
	return alpha, beta
}

// judge answers by the marker of the response it is shown.
func judge(verdicts map[string]string) *fake.Model {
	return &fake.Model{Reply: func(req lm.GenerateRequest) lm.GenerateResult {
		prompt := req.Messages[0].Content
		for marker, v := range verdicts {
			if strings.Contains(prompt, marker) {
				return lm.GenerateResult{Text: v, StopReason: lm.StopEOS, CostUSD: cost(0.001)}
			}
		}
		return lm.GenerateResult{StopReason: lm.StopError, Err: errors.New("unscripted judge request")}
	}}
}

// TestJudgingGradesAnsweredRubricTrials runs two models through a
// two-judge panel whose first judge is also a contestant, and checks every
// record and the summary against a hand computation.
func TestJudgingGradesAnsweredRubricTrials(t *testing.T) {
	tasks := judgingTasks(t)
	alpha, beta := judgingModels(tasks)
	toolLine := `{"name":"pick","args":{"flight":"TP1"}}`
	alphaJudge := judge(map[string]string{"PLAN-ONE": `{"score": 9, "rationale": "Good."}`, "NOTES-ONE": `{"score": 8, "rationale": "Fine."}`,
		toolLine: `{"score": 7, "rationale": "Picked."}`, "PICK-TWO": `{"score": 4, "rationale": "No call."}`})
	heron := judge(map[string]string{"PLAN-ONE": `{"score": 6, "rationale": "Pricey."}`, "NOTES-ONE": `eight out of ten`,
		toolLine: `{"score": 5, "rationale": "Terse."}`, "PICK-TWO": `{"score": 3, "rationale": "Only prose."}`})
	var built atomic.Int64
	j := &Judging{Panel: func(context.Context) (rubric.Panel, error) {
		built.Add(1)
		return rubric.Panel{Judges: []rubric.Judge{{Key: "alpha", Gen: alphaJudge}, {Key: "heron", Gen: heron}}}, nil
	}}
	fixed := time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)
	r := &Runner{RunID: "r1", Trials: 1, Concurrency: 4, AfterTrial: j.AfterTrial, Now: func() time.Time { return fixed }}
	records, err := r.Run(context.Background(), []Model{{Key: "alpha", Generator: alpha}, {Key: "beta", Generator: beta}}, tasks)
	require.NoError(t, err)
	require.Len(t, records, 8)
	assert.Equal(t, int64(1), built.Load(), "the panel is built once")
	n, perr := j.Ungraded()
	assert.Equal(t, 0, n)
	assert.NoError(t, perr)

	// Four answered trials of rubric tasks, two judges each; the judges
	// never see who answered.
	judged := append(alphaJudge.Calls().Generate, heron.Calls().Generate...)
	assert.Len(t, judged, 8)
	for _, req := range judged {
		assert.NotContains(t, strings.ToLower(req.Messages[0].Content), "alpha")
		assert.NotContains(t, strings.ToLower(req.Messages[0].Content), "beta")
		assert.JSONEq(t, rubric.VerdictSchema, string(req.ResponseFormat))
	}

	get := func(model, task string) Record {
		for _, rec := range records {
			if rec.Model == model && rec.Task == task {
				return rec
			}
		}
		t.Fatalf("no record %s/%s", model, task)
		return Record{}
	}
	score := func(v int) *int { return &v }
	tests := []struct {
		model, task string
		grid        rubric.Grid // nil: not judged
		mean        *float64
	}{
		{"alpha", "realworld-plan", rubric.Grid{
			{Judge: "alpha", Score: score(9), Rationale: "Good.", Self: true, Raw: `{"score": 9, "rationale": "Good."}`, CostUSD: cost(0.001)},
			{Judge: "heron", Score: score(6), Rationale: "Pricey.", Raw: `{"score": 6, "rationale": "Pricey."}`, CostUSD: cost(0.001)},
		}, cost(6)},
		{"alpha", "data-notes", rubric.Grid{
			{Judge: "alpha", Score: score(8), Rationale: "Fine.", Self: true, Raw: `{"score": 8, "rationale": "Fine."}`, CostUSD: cost(0.001)},
			{Judge: "heron", Error: `no JSON object with a "score" field in the judge's reply`, Raw: "eight out of ten", CostUSD: cost(0.001)},
		}, nil},
		{"alpha", "tool-use-pick", rubric.Grid{
			{Judge: "alpha", Score: score(7), Rationale: "Picked.", Self: true, Raw: `{"score": 7, "rationale": "Picked."}`, CostUSD: cost(0.001)},
			{Judge: "heron", Score: score(5), Rationale: "Terse.", Raw: `{"score": 5, "rationale": "Terse."}`, CostUSD: cost(0.001)},
		}, cost(5)},
		{"alpha", "coding-sum", nil, nil},
		{"beta", "realworld-plan", nil, nil}, // a hard refusal has no answer to grade
		{"beta", "data-notes", nil, nil},     // nor has an error
		{"beta", "tool-use-pick", rubric.Grid{
			{Judge: "alpha", Score: score(4), Rationale: "No call.", Raw: `{"score": 4, "rationale": "No call."}`, CostUSD: cost(0.001)},
			{Judge: "heron", Score: score(3), Rationale: "Only prose.", Raw: `{"score": 3, "rationale": "Only prose."}`, CostUSD: cost(0.001)},
		}, cost(3.5)},
		{"beta", "coding-sum", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.model+"/"+tt.task, func(t *testing.T) {
			rec := get(tt.model, tt.task)
			assert.Equal(t, tt.mean, rec.RubricMean)
			if tt.grid == nil {
				assert.Nil(t, rec.Rubric)
				return
			}
			grid, err := rubric.ParseGrid(rec.Rubric)
			require.NoError(t, err)
			assert.Equal(t, tt.grid, grid)
		})
	}
	assert.Equal(t, ptr(true), get("alpha", "realworld-plan").Passed, "judging leaves the checker's verdict alone")

	// The summary from the records alone. Rubric /10: alpha (6 + 5) / 2 =
	// 5.5 over 2 of its 3 judged trials (data-notes has only a self-score
	// and an error); beta 3.5. Matrix: alpha's judge gave alpha 9, 8, 7
	// (self) and beta 4; heron gave alpha 6, 5 and one error, beta 3.
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	w := NewWriter(path)
	for _, rec := range records {
		require.NoError(t, w.Write(rec))
	}
	require.NoError(t, w.Close())
	onDisk, err := ReadRecords(path)
	require.NoError(t, err)
	s := Summarize(onDisk, Categories(tasks))
	require.Len(t, s.Models, 2)
	assert.Equal(t, rubric.Overall{Mean: 5.5, Trials: 2, Graded: 3}, s.Models[0].Rubric)
	assert.Equal(t, rubric.Overall{Mean: 3.5, Trials: 1, Graded: 1}, s.Models[1].Rubric)
	assert.Equal(t, 8, s.JudgeCalls)
	assert.InDelta(t, 0.008, *s.JudgeCostUSD, 1e-12)
	md := s.Markdown()
	for _, want := range []string{
		"| model | pass rate [95% CI] | passed / scored | refused | errors | unscored | Rubric /10 | median latency (s) | median wall (s) | input tokens | output tokens | cost (USD) | cost / task (USD) |\n" +
			"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
		"| alpha | 100% [34–100] | 2 / 2 | 0 | 0 | 2 | 5.5 | — | 0.00 | 0 | 0 | — | — |\n",
		"| beta | 100% [21–100] | 1 / 1 | 1 | 1 | 2 | 3.5 | — | 0.00 | 0 | 0 | — | — |\n",
		" Rubric /10 is the mean, over the model's judged trials, of each trial's rubric_mean (the mean of the valid scores from judges other than the model itself); — when no trial has one.\n",
		"\n## Judge-bias matrix\n\nJudged trials: alpha 3 (2 with a Rubric /10 score), beta 1 (1 with a Rubric /10 score). Judge calls: 8; their cost: 0.008000 USD, not included in the models' cost above.\n\n" +
			"| judge ↓ / contestant → | alpha | beta | judge errors |\n" +
			"|---|---|---|---|\n" +
			"| alpha | 8.00 (3) * | 4.00 (1) | 0 |\n" +
			"| heron | 5.50 (2) | 3.00 (1) | 1 |\n",
	} {
		assert.Contains(t, md, want)
	}
}

func TestJudgingWithoutAPanel(t *testing.T) {
	tasks := judgingTasks(t)
	alpha, _ := judgingModels(tasks)
	var built atomic.Int64
	j := &Judging{Panel: func(context.Context) (rubric.Panel, error) {
		built.Add(1)
		return rubric.Panel{}, errors.New(`judge "fable-5": model "fable-5": backend unavailable in this build`)
	}}
	r := &Runner{Trials: 2, Concurrency: 2, AfterTrial: j.AfterTrial}
	records, err := r.RunModel(context.Background(), Model{Key: "alpha", Generator: alpha}, tasks)
	require.NoError(t, err)
	require.Len(t, records, 8, "every trial still runs and is recorded")
	for _, rec := range records {
		assert.Nil(t, rec.Rubric, rec.Task)
		assert.Nil(t, rec.RubricMean, rec.Task)
		assert.Nil(t, rec.Error, rec.Task)
	}
	n, perr := j.Ungraded()
	assert.Equal(t, 6, n, "three rubric tasks, two trials each")
	assert.EqualError(t, perr, `judge "fable-5": model "fable-5": backend unavailable in this build`)
	assert.Equal(t, int64(1), built.Load())
	assert.NotContains(t, Summarize(records, nil).Markdown(), "Rubric /10", "nothing judged, no rubric numbers")
}

func TestJudgingOpensNoJudgeWithoutRubricTrials(t *testing.T) {
	tasks := judgingTasks(t)
	alpha, _ := judgingModels(tasks)
	j := &Judging{Panel: func(context.Context) (rubric.Panel, error) {
		t.Error("the panel must not be built when no selected trial has a rubric")
		return rubric.Panel{}, nil
	}}
	r := &Runner{Trials: 1, Concurrency: 1, AfterTrial: j.AfterTrial,
		Selected: func(_, task string, _ int) bool { return task == "coding-sum" }}
	records, err := r.RunModel(context.Background(), Model{Key: "alpha", Generator: alpha}, tasks)
	require.NoError(t, err)
	require.Len(t, records, 1)
}

// TestJudgingCancelledDropsTheTrial: a run interrupted while the judges
// are out records nothing for that trial, not a grid of judge errors.
func TestJudgingCancelledDropsTheTrial(t *testing.T) {
	tasks, err := Filter(judgingTasks(t), []string{"realworld-plan"}, nil)
	require.NoError(t, err)
	alpha, _ := judgingModels(tasks)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	interrupter := &fake.Model{Reply: func(lm.GenerateRequest) lm.GenerateResult {
		cancel()
		return lm.GenerateResult{StopReason: lm.StopError, Err: context.Canceled}
	}}
	j := &Judging{Panel: func(context.Context) (rubric.Panel, error) {
		return rubric.Panel{Judges: []rubric.Judge{{Key: "j", Gen: interrupter}}}, nil
	}}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	r := &Runner{Trials: 1, Concurrency: 1, AfterTrial: j.AfterTrial, Out: NewWriter(path)}
	records, err := r.RunModel(ctx, Model{Key: "alpha", Generator: alpha}, tasks)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, records)
	assert.NoFileExists(t, path)
}

func TestSummaryWarnsOnUnreadableRubric(t *testing.T) {
	bad := rec("r", "data-notes", "h", "m", 1, nil)
	bad.Rubric = json.RawMessage(`{"judge": "x"}`)
	s := Summarize([]Record{bad}, nil)
	assert.Equal(t, []string{`m/data-notes/1: unreadable rubric grid, left out of the rubric numbers: rubric: not a rubric grid (a list of {"judge", "score", "rationale"}): json: cannot unmarshal object into Go value of type rubric.Grid`}, s.Warnings)
	assert.NotContains(t, s.Markdown(), "Judge-bias matrix")
}
