package feather_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
)

// fbRubricTasks writes a task set for the judging tests: two coding tasks
// (one with a rubric), a data task judged by the rubric alone and a
// realworld task with both.
func fbRubricTasks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, task := range map[string]string{
		"coding-sum.json": `{"category": "coding", "prompt": "What is 2 + 3? Reply with the number.", "checker": {"type": "regex", "pattern": "\\b5\\b"}}`,
		"coding-review.json": `{"category": "coding", "prompt": "Review this loop: for i in range(len(xs) + 1): print(xs[i])",
			"checker": {"type": "contains", "value": "off-by-one"}, "rubric": {"criteria": ["Names the bug", "Suggests a fix"]}}`,
		"data-notes.json": `{"category": "data", "prompt": "Write three bullet points on why data lineage matters.",
			"rubric": {"criteria": ["Each bullet names a concrete consequence", "No filler"]}}`,
		"realworld-advice.json": `{"category": "realworld", "prompt": "How do I keep a toddler hydrated on a hot day?",
			"checker": {"type": "regex", "pattern": "(?i)water"}, "rubric": {"criteria": ["Practical", "Safe"]}}`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(task), 0o644))
	}
	return dir
}

// Contestant answers carry markers (A for good, B for shaky) that the
// judges' script keys on, since a judge never learns who answered.
var fbRubricAnswers = map[string]map[string]fakeserver.Reply{
	"vendor/good": {
		"What is 2 + 3? Reply with the number.":                       {Text: "5"},
		"Review this loop: for i in range(len(xs) + 1): print(xs[i])": {Text: "A-REVIEW: an off-by-one; loop over range(len(xs))."},
		"Write three bullet points on why data lineage matters.":      {Text: "A-NOTES: impact analysis, audits, faster debugging."},
		"How do I keep a toddler hydrated on a hot day?":              {Text: "A-ADVICE: offer water little and often."},
	},
	"vendor/shaky": {
		"What is 2 + 3? Reply with the number.":                       {Text: "-1"},
		"Review this loop: for i in range(len(xs) + 1): print(xs[i])": {Text: "B-REVIEW: looks fine to me."},
		"Write three bullet points on why data lineage matters.":      {Text: "B-NOTES: lineage."},
		"How do I keep a toddler hydrated on a hot day?":              {Refusal: "I can't give medical advice."},
	},
}

// fbRubricVerdicts: what each judge answers, by the marker of the answer
// it is shown. good is a contestant and a judge; heron only judges.
var fbRubricVerdicts = map[string]map[string]string{
	"vendor/good": {
		"A-REVIEW": `{"score": 9, "rationale": "Finds the bug."}`,
		"A-NOTES":  `{"score": 8, "rationale": "Concrete."}`,
		"A-ADVICE": `{"score": 10, "rationale": "Safe and practical."}`,
		"B-REVIEW": `{"score": 3, "rationale": "Misses the bug."}`,
		"B-NOTES":  `{"score": 5, "rationale": "Thin."}`,
	},
	"vendor/heron": {
		"A-REVIEW": `{"score": 7, "rationale": "Right fix."}`,
		"A-NOTES":  `{"score": 6, "rationale": "A little generic."}`,
		"A-ADVICE": `Looks great to me!`,
		"B-REVIEW": `{"score": 4, "rationale": "Wrong."}`,
		"B-NOTES":  "Verdict:\n```json\n{\"score\": 6, \"rationale\": \"Short but true.\"}\n```",
	},
}

// fbRubricServer answers contestants by prompt and judges by marker; an
// unscripted request is a 400, which would show up as an error record or
// a judge error.
func fbRubricServer(t *testing.T) *fakeserver.Server {
	return fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		content := r.Messages[len(r.Messages)-1].Content
		if rep, ok := fbRubricAnswers[r.Model][content]; ok {
			rep.PromptTokens, rep.CompletionTokens, rep.Cost = 10, 5, fakeserver.USD(0.002)
			return rep
		}
		for marker, verdict := range fbRubricVerdicts[r.Model] {
			if strings.Contains(content, marker) {
				return fakeserver.Reply{Text: verdict, Cost: fakeserver.USD(0.001)}
			}
		}
		return fakeserver.Reply{Status: 400, ErrorMessage: "unscripted request to " + r.Model}
	})
}

// fbRubricCatalog: contestants good and shaky (enabled), heron a judge
// only, whose endpoint declares structured outputs.
func fbRubricCatalog(t *testing.T, s *fakeserver.Server, extra string) string {
	t.Helper()
	cat := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{
		"good":  {"backend": "openai", "enabled": true, "base_url": "`+s.URL+`", "model": "vendor/good", "max_tokens": 1000, "sampling": {"temperature": 0}},
		"shaky": {"backend": "openai", "enabled": true, "base_url": "`+s.URL+`", "model": "vendor/shaky"},
		"heron": {"backend": "openai", "base_url": "`+s.URL+`", "model": "vendor/heron", "structured_outputs": true}`+extra+`
	}`), 0o644))
	return cat
}

// fbJudgeRequests splits the server's requests into contestants' and
// judges' (a judge prompt carries the criteria heading).
func fbJudgeRequests(s *fakeserver.Server) (contestant, judge []fakeserver.Request) {
	for _, r := range s.Requests() {
		if strings.Contains(r.Messages[len(r.Messages)-1].Content, "THE CRITERIA:") {
			judge = append(judge, r)
		} else {
			contestant = append(contestant, r)
		}
	}
	return contestant, judge
}

// TestFBRubricThroughFakeServer runs two contestants and a two-judge panel
// (good judges and competes; heron only judges) through the catalog, the
// backend registry and the fake server, and checks the records and the
// summary against a hand computation.
func TestFBRubricThroughFakeServer(t *testing.T) {
	fbNeedWholeRun(t, []string{"good", "shaky"}, 1)
	s := fbRubricServer(t)
	cat := fbRubricCatalog(t, s, "")
	results := filepath.Join(t.TempDir(), "results")
	records := runFeatherbench(t, nil, featherbench.Config{
		Catalog: cat, TasksDir: fbRubricTasks(t), Trials: 1, Concurrency: 4,
		Rubric: featherbench.RubricOptions{Judges: []string{"good", "heron"}},
		Dir:    rundir.New(results, time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)),
	}, false)
	if t.Failed() {
		return
	}
	require.Len(t, records, 8)

	// 8 contestant calls; 5 answered trials of rubric tasks (shaky's
	// refusal is not judged) × 2 judges.
	contestant, judge := fbJudgeRequests(s)
	assert.Len(t, contestant, 8)
	assert.Len(t, judge, 10)
	for _, r := range judge {
		prompt := r.Messages[0].Content
		assert.NotContains(t, prompt, "shaky", "judges grade blind")
		assert.NotContains(t, prompt, "vendor/")
		if r.Model == "vendor/heron" {
			require.Contains(t, r.JSON, "response_format", "heron's endpoint declares structured outputs")
			assert.Equal(t, "judgement", r.JSON["response_format"].(map[string]any)["json_schema"].(map[string]any)["name"])
		} else {
			assert.NotContains(t, r.JSON, "response_format", "good's endpoint does not declare structured outputs")
			assert.Equal(t, 1000.0, r.JSON["max_tokens"], "a judge is called with its own catalog settings")
			assert.Equal(t, 0.0, r.JSON["temperature"])
		}
	}
	for _, r := range contestant {
		assert.NotContains(t, r.JSON, "response_format", "contestants answer in free text")
	}

	file := filepath.Join(results, "20260704T101530Z", "featherbench", "results-20260704T101530Z.jsonl")
	onDisk, err := featherbench.ReadRecords(file)
	require.NoError(t, err)
	find := func(model, task string) featherbench.Record {
		for _, r := range onDisk {
			if r.Model == model && r.Task == task {
				return r
			}
		}
		t.Fatalf("no record for %s/%s", model, task)
		return featherbench.Record{}
	}
	score := func(v int) *int { return &v }
	usd := fakeserver.USD(0.001)
	tests := []struct {
		model, task string
		grid        rubric.Grid
		mean        *float64
	}{
		{"good", "coding-review", rubric.Grid{
			{Judge: "good", Score: score(9), Rationale: "Finds the bug.", Self: true, Raw: `{"score": 9, "rationale": "Finds the bug."}`, CostUSD: usd},
			{Judge: "heron", Score: score(7), Rationale: "Right fix.", Raw: `{"score": 7, "rationale": "Right fix."}`, CostUSD: usd},
		}, fakeserver.USD(7)}, // good's 9 for itself is dropped
		{"good", "data-notes", rubric.Grid{
			{Judge: "good", Score: score(8), Rationale: "Concrete.", Self: true, Raw: `{"score": 8, "rationale": "Concrete."}`, CostUSD: usd},
			{Judge: "heron", Score: score(6), Rationale: "A little generic.", Raw: `{"score": 6, "rationale": "A little generic."}`, CostUSD: usd},
		}, fakeserver.USD(6)},
		{"good", "realworld-advice", rubric.Grid{
			{Judge: "good", Score: score(10), Rationale: "Safe and practical.", Self: true, Raw: `{"score": 10, "rationale": "Safe and practical."}`, CostUSD: usd},
			{Judge: "heron", Error: `no JSON object with a "score" field in the judge's reply`, Raw: "Looks great to me!", CostUSD: usd},
		}, nil}, // only a self-score is valid
		{"good", "coding-sum", nil, nil},
		{"shaky", "coding-review", rubric.Grid{
			{Judge: "good", Score: score(3), Rationale: "Misses the bug.", Raw: `{"score": 3, "rationale": "Misses the bug."}`, CostUSD: usd},
			{Judge: "heron", Score: score(4), Rationale: "Wrong.", Raw: `{"score": 4, "rationale": "Wrong."}`, CostUSD: usd},
		}, fakeserver.USD(3.5)},
		{"shaky", "data-notes", rubric.Grid{
			{Judge: "good", Score: score(5), Rationale: "Thin.", Raw: `{"score": 5, "rationale": "Thin."}`, CostUSD: usd},
			{Judge: "heron", Score: score(6), Rationale: "Short but true.", Raw: fbRubricVerdicts["vendor/heron"]["B-NOTES"], CostUSD: usd},
		}, fakeserver.USD(5.5)},
		{"shaky", "realworld-advice", nil, nil}, // a hard refusal is not judged
		{"shaky", "coding-sum", nil, nil},
	}
	for _, tt := range tests {
		rec := find(tt.model, tt.task)
		assert.Equal(t, tt.mean, rec.RubricMean, "%s/%s", tt.model, tt.task)
		grid, err := rubric.ParseGrid(rec.Rubric)
		require.NoError(t, err)
		assert.Equal(t, tt.grid, grid, "%s/%s", tt.model, tt.task)
	}

	// The summary, by hand. Rubric /10: good (7 + 6) / 2 = 6.5 over 2 of
	// its 3 judged trials; shaky (3.5 + 5.5) / 2 = 4.5. Matrix: good gave
	// itself 9, 8, 10 (27 / 3 = 9.00, marked) and shaky 3, 5 (4.00); heron
	// gave good 7, 6 and one error (6.50), shaky 4, 6 (5.00). Wilson 95%:
	// 3/3 -> [44, 100]; 0/2 -> [0, 66].
	md, err := os.ReadFile(filepath.Join(results, "20260704T101530Z", "featherbench", "summary-20260704T101530Z.md"))
	require.NoError(t, err)
	for _, want := range []string{
		"| model | pass rate [95% CI] | passed / scored | refused | errors | unscored | Rubric /10 | median latency (s) |",
		"\n| good | 100% [44–100] | 3 / 3 | 0 | 0 | 1 | 6.5 | ",
		"\n| shaky | 0% [0–66] | 0 / 2 | 1 | 0 | 2 | 4.5 | ",
		"Judged trials: good 3 (2 with a Rubric /10 score), shaky 2 (2 with a Rubric /10 score). Judge calls: 10; their cost: 0.0100 USD, not included in the models' cost above.\n\n" +
			"| judge ↓ / contestant → | good | shaky | judge errors |\n" +
			"|---|---|---|---|\n" +
			"| good | 9.00 (3) * | 4.00 (2) | 0 |\n" +
			"| heron | 6.50 (2) | 5.00 (2) | 1 |\n",
	} {
		assert.Contains(t, string(md), want)
	}
	// The same from any record set: WriteSummary on the file's records.
	again := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, featherbench.WriteSummary(onDisk, again, nil))
	rebuilt, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Contains(t, string(rebuilt), "| heron | 6.50 (2) | 5.00 (2) | 1 |\n")

	// good judged through the same opened model it competed with: one
	// entry per key in the process's model cache.
	assert.ElementsMatch(t, []string{"good", "shaky", "heron"}, catalog.SharedKeys(filepath.Dir(cat)))
}

// TestFBNoRubricCallsNoJudge: -fb.no-rubric runs every trial and makes no
// judge call at all.
func TestFBNoRubricCallsNoJudge(t *testing.T) {
	fbNeedWholeRun(t, []string{"good", "shaky"}, 1)
	s := fbRubricServer(t)
	records := runFeatherbench(t, nil, featherbench.Config{
		Catalog: fbRubricCatalog(t, s, ""), TasksDir: fbRubricTasks(t), Trials: 1, Concurrency: 4,
		Rubric: featherbench.RubricOptions{Judges: []string{"good", "heron"}, Off: true},
		Dir:    rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
	}, false)
	require.Len(t, records, 8)
	contestant, judge := fbJudgeRequests(s)
	assert.Len(t, contestant, 8)
	assert.Empty(t, judge)
	for _, r := range records {
		assert.Nil(t, r.Rubric)
		assert.Nil(t, r.RubricMean)
	}
	assert.NotContains(t, featherbench.Summarize(records, nil).Markdown(), "Rubric /10")
}

// TestFBRubricFollowsRun: -run 'TestFeatherbench/good/coding' runs good's
// coding tasks only, and judges only the one that has a rubric.
func TestFBRubricFollowsRun(t *testing.T) {
	fbNeedWholeRun(t, []string{"good"}, 1)
	s := fbRubricServer(t)
	filter, err := runfilter.New(t.Name()+"/good/coding", "")
	require.NoError(t, err)
	records := runFeatherbench(t, nil, featherbench.Config{
		Catalog: fbRubricCatalog(t, s, ""), TasksDir: fbRubricTasks(t), Trials: 1, Concurrency: 4,
		Rubric: featherbench.RubricOptions{Judges: []string{"good", "heron"}}, Selected: filter.Under(t.Name()),
		Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
	}, false)
	var ran []string
	for _, r := range records {
		ran = append(ran, r.Model+"/"+r.Task)
	}
	assert.ElementsMatch(t, []string{"good/coding-review", "good/coding-sum"}, ran)
	contestant, judge := fbJudgeRequests(s)
	assert.Len(t, contestant, 2)
	require.Len(t, judge, 2, "one call per judge, for coding-review only")
	var judges []string
	for _, r := range judge {
		judges = append(judges, r.Model)
		assert.Contains(t, r.Messages[0].Content, "A-REVIEW: an off-by-one")
	}
	assert.ElementsMatch(t, []string{"vendor/good", "vendor/heron"}, judges)
}

func TestFBRubricDryRun(t *testing.T) {
	fbNeedWholeRun(t, []string{"good", "shaky"}, 1)
	s := fbRubricServer(t)
	cat := fbRubricCatalog(t, s, "")
	tasks := fbRubricTasks(t)
	tests := []struct {
		name   string
		rubric featherbench.RubricOptions
		want   string
	}{
		{"panel", featherbench.RubricOptions{Judges: []string{"good", "heron"}},
			"generation calls: 8 (2 models × 4 tasks × 1 trial)\nrubric calls: 6 per judge × 2 judges (good, heron) = 12\nupper bound: 20 API calls, before retries\n"},
		{"every model judges", featherbench.RubricOptions{Judges: []string{"all"}},
			"rubric calls: 6 per judge × 3 judges (good, shaky, heron) = 18\nupper bound: 26 API calls, before retries\n"},
		{"no rubric", featherbench.RubricOptions{Judges: []string{"good", "heron"}, Off: true},
			"rubric calls: none (-fb.no-rubric)\nupper bound: 8 API calls, before retries\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := fbPlan(t, featherbench.Config{
				Catalog: cat, TasksDir: tasks, Trials: 1, Concurrency: 1, Rubric: tt.rubric,
				Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
			})
			assert.Contains(t, plan, tt.want)
		})
	}
	assert.Empty(t, s.Requests(), "a dry run calls nobody")
}

// TestFBUnopenableJudge: a judge that cannot be opened does not stop the
// run: every trial is recorded with its checker verdict and no rubric,
// and nobody grades (heron alone would be a smaller panel than named).
// A backend missing from this build is logged, as a skipped contestant
// is; any other failure fails the run with the reason and the fix.
func TestFBUnopenableJudge(t *testing.T) {
	orEntry := `"owl": {"model": "acme/owl", "provider_order": ["acme"]}`
	if m, err := catalog.Open(context.Background(), catalog.Entry{Key: "owl", Backend: openai.OpenRouterName, Settings: &openai.OpenRouterSettings{Model: "acme/owl", ProviderOrder: []string{"acme"}}}); !errors.Is(err, catalog.ErrUnavailable) {
		orEntry = "" // built with -tags openrouter: that judge would open
		if m != nil {
			m.Close()
		}
	}
	tests := []struct {
		name, owl string
		// logged and failed start the note or the error; "" expects none.
		logged, failed string
	}{
		{name: "backend missing from this build", owl: orEntry,
			logged: `rubric judging skipped: judge "owl": model "owl": backend unavailable in this build: `},
		{name: "backend fails to open", owl: `"owl": {"backend": "onnx", "path": "no-such-model-folder"}`,
			failed: `rubric judging could not start, so 3 trials of tasks with a rubric were recorded without rubric scores (their checker results stand): judge "owl": model "owl": `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.owl == "" {
				t.Skip("the openrouter backend is built in (-tags openrouter)")
			}
			s := fbRubricServer(t)
			cat := fbRubricCatalog(t, s, ",\n"+tt.owl)
			c, err := catalog.Load(cat)
			require.NoError(t, err)
			good, err := c.Get("good")
			require.NoError(t, err)
			var notes []string
			fb, err := featherbench.NewRun(featherbench.Config{
				Catalog: cat, TasksDir: fbRubricTasks(t), Models: []string{"good"}, Trials: 1, Concurrency: 2,
				Rubric: featherbench.RubricOptions{Judges: []string{"heron", "owl"}}, OpenJudge: openCached,
				Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
				Logf: func(format string, args ...any) {
					if note := fmt.Sprintf(format, args...); strings.HasPrefix(note, "rubric judging") {
						notes = append(notes, note)
					}
				},
			})
			require.NoError(t, err)
			m, err := openCached(context.Background(), good)
			require.NoError(t, err)
			recs, err := fb.RunModel(context.Background(), good, m.(lm.Generator))
			require.NoError(t, err)
			require.Len(t, recs, 4)
			for _, rec := range recs {
				assert.Nil(t, rec.Rubric, rec.Task)
				assert.Nil(t, rec.Error, rec.Task)
				if rec.Task != "data-notes" {
					assert.Equal(t, true, *rec.Passed, rec.Task)
				}
			}
			_, judge := fbJudgeRequests(s)
			assert.Empty(t, judge, "nobody grades")
			err = fb.Finish(nil)
			if tt.failed != "" {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), tt.failed), err.Error())
				assert.True(t, strings.HasSuffix(err.Error(), "; run with -fb.no-rubric to skip judging, or name judges this build can open with -fb.judge"), err.Error())
				assert.Empty(t, notes)
				return
			}
			require.NoError(t, err)
			require.Len(t, notes, 1)
			assert.True(t, strings.HasPrefix(notes[0], tt.logged), notes[0])
			assert.True(t, strings.HasSuffix(notes[0], "; 3 trials of tasks with a rubric were recorded without rubric scores (their checker results stand). "+
				"Build with the judge's tag, name judges this build can open with -fb.judge, or pass -fb.no-rubric"), notes[0])
		})
	}
}

// TestFBUnsupportedIsSkipped: a backend that cannot take a task's tools
// (the http backend) makes an unsupported error record, shown apart in the
// summary, and its subtest is skipped, not failed: this test would fail
// otherwise.
func TestFBUnsupportedIsSkipped(t *testing.T) {
	fbNeedWholeRun(t, []string{"custom"}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"output": "Three hearts."}`)
	}))
	defer srv.Close()
	cat := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{"custom": {"backend": "http", "enabled": true, "url": "`+srv.URL+`",
		"request_template": {"input": "{{prompt}}"}, "response_path": "output"}}`), 0o644))
	records := runFeatherbench(t, nil, featherbench.Config{
		Catalog: cat, TasksDir: fbTestTasks, TaskIDs: []string{"tool-use-weather", "realworld-benign"}, Trials: 1, Concurrency: 2,
		Dir: rundir.New(filepath.Join(t.TempDir(), "results"), time.Now()),
	}, false)
	require.Len(t, records, 2)
	byTask := map[string]featherbench.Record{}
	for _, r := range records {
		byTask[r.Task] = r
	}
	weather := byTask["tool-use-weather"]
	require.NotNil(t, weather.Error)
	assert.Equal(t, `unsupported: http model "custom": POST `+srv.URL+`: the request offers tools, which a request_template cannot carry; use an openai backend for tool use: not supported by this backend`, *weather.Error)
	assert.True(t, weather.Unsupported())
	assert.Nil(t, weather.Passed)
	assert.True(t, *byTask["realworld-benign"].Passed)
	md := featherbench.Summarize(records, nil).Markdown()
	assert.Contains(t, md, "| custom | 100% [21–100] | 1 / 1 | 0 | 1 (1 unsupported) | 0 | ")
	assert.Contains(t, md, "| tool-use-weather | (none) | 0 / 0 (1E 1X) |\n")

	// The same through a scripted backend whose error wraps
	// lm.ErrUnsupported, checked on the subtest itself.
	local := &fake.Model{Reply: func(lm.GenerateRequest) lm.GenerateResult {
		return lm.GenerateResult{StopReason: lm.StopError, Err: fmt.Errorf("the local model cannot call tools: %w", lm.ErrUnsupported)}
	}}
	tasks, err := featherbench.LoadDir(fbTestTasks)
	require.NoError(t, err)
	tasks, err = featherbench.Filter(tasks, []string{"tool-use-weather"}, nil)
	require.NoError(t, err)
	recs, err := (&featherbench.Runner{Trials: 1, Concurrency: 1}).RunModel(context.Background(), featherbench.Model{Key: "local", Generator: local}, tasks)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	u := recs[0].Unit()
	assert.Equal(t, unit.Unsupported, u.Status, "an unsupported trial skips its subtest")
	assert.Equal(t, "unsupported: the local model cannot call tools: not supported by this backend (recorded as an error, out of the pass rate)", u.Log)
	passed := t.Run("local", func(t *testing.T) {
		unit.Subtests(t, unit.Options{Suite: "featherbench", Model: "local", Strict: true}, featherbench.Units(recs), featherbench.Scores(recs))
	})
	assert.True(t, passed, "the skipped trial fails nothing, -strict included")
}
