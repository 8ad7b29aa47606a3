package featherbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/stats"
)

// runTasks writes a task set for the run tests: a scored coding task, a
// data task judged by its rubric alone, and a benign task whose refusal
// is a fail.
func runTasks(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, task := range map[string]string{
		"coding-sum.json":   `{"category": "coding", "prompt": "What is 2 + 3?", "checker": {"type": "regex", "pattern": "\\b5\\b"}}`,
		"data-notes.json":   `{"category": "data", "prompt": "Three bullets on data lineage.", "rubric": {"criteria": ["Concrete"]}}`,
		"realworld-ok.json": `{"category": "realworld", "prompt": "Name a fruit.", "refusal": "fail", "checker": {"type": "contains", "value": "apple"}}`,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(task), 0o644))
	}
	return dir
}

// runCatalog: contestants good and shaky (enabled), heron a judge only.
// No request reaches base_url: the tests hand the run fake models.
func runCatalog(t *testing.T, extra string) string {
	t.Helper()
	cat := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{
		"good":  {"backend": "openai", "enabled": true, "base_url": "http://127.0.0.1:9/v1", "model": "vendor/good", "max_tokens": 1000, "sampling": {"temperature": 0}},
		"shaky": {"backend": "openai", "enabled": true, "base_url": "http://127.0.0.1:9/v1", "model": "vendor/shaky"},
		"heron": {"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "vendor/heron"}`+extra+`
	}`), 0o644))
	return cat
}

// runModels: good answers everything right; shaky gets the sum wrong and
// refuses the fruit.
func runModels() (good, shaky *fake.Model) {
	reply := func(answers map[string]lm.GenerateResult) *fake.Model {
		return &fake.Model{Reply: func(req lm.GenerateRequest) lm.GenerateResult {
			return answers[req.Messages[0].Content]
		}}
	}
	good = reply(map[string]lm.GenerateResult{
		"What is 2 + 3?":                 answer("5", time.Second, 10, 5, cost(0.002)),
		"Three bullets on data lineage.": answer("NOTES-GOOD", time.Second, 10, 5, cost(0.002)),
		"Name a fruit.":                  answer("An apple.", time.Second, 10, 5, cost(0.002)),
	})
	shaky = reply(map[string]lm.GenerateResult{
		"What is 2 + 3?":                 answer("-1", time.Second, 10, 5, nil),
		"Three bullets on data lineage.": answer("NOTES-SHAKY", time.Second, 10, 5, nil),
		"Name a fruit.":                  {StopReason: lm.StopRefusal},
	})
	return good, shaky
}

// runConfig is a run of the test task set into a fresh run directory,
// judged by heron, which grades by the marker it is shown.
func runConfig(t *testing.T) Config {
	heron := judge(map[string]string{"NOTES-GOOD": `{"score": 8, "rationale": "Concrete."}`, "NOTES-SHAKY": `{"score": 3, "rationale": "Thin."}`})
	return Config{
		TasksDir: runTasks(t), Catalog: runCatalog(t, ""), Trials: 2, Concurrency: 3,
		Rubric: RubricOptions{Judges: []string{"heron"}},
		Dir:    rundir.New(filepath.Join(t.TempDir(), "results"), time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC)),
		OpenJudge: func(_ context.Context, e catalog.Entry) (lm.Model, error) {
			if e.Key != "heron" {
				return nil, fmt.Errorf("unexpected judge %s", e.Key)
			}
			return heron, nil
		},
	}
}

// entry is the catalog entry of key in c's catalog.
func entry(t *testing.T, c Config, key string) catalog.Entry {
	t.Helper()
	cat, err := catalog.Load(c.Catalog)
	require.NoError(t, err)
	e, err := cat.Get(key)
	require.NoError(t, err)
	return e
}

func TestNewRunRejectsBadConfig(t *testing.T) {
	base := runConfig(t)
	empty := t.TempDir()
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no trials", func(c *Config) { c.Trials = 0 }, "-fb.trials is 0; it must be at least 1"},
		{"no concurrency", func(c *Config) { c.Concurrency = -2 }, "-fb.concurrency is -2; it must be at least 1"},
		{"unknown model", func(c *Config) { c.Models = []string{"owl"} }, `unknown model "owl" in ` + base.Catalog + `; valid keys: good, shaky, heron (or all)`},
		{"unknown task", func(c *Config) { c.TaskIDs = []string{"coding-nope"} }, `unknown task "coding-nope"; valid ids: coding-sum, data-notes, realworld-ok`},
		{"retry without resume", func(c *Config) { c.RetryErrors = true }, "-fb.retry-errors asks a resumed run's error trials again: add -resume RUN_DIR"},
		{"no judge opener", func(c *Config) { c.OpenJudge = nil }, "featherbench: a selected task has a rubric but the run cannot open judges (Config.OpenJudge is nil)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			tt.edit(&c)
			_, err := NewRun(c)
			assert.EqualError(t, err, tt.want)
			assert.False(t, errors.Is(err, ErrNoTasks))
		})
	}

	c := base
	c.TasksDir = empty
	_, err := NewRun(c)
	assert.ErrorIs(t, err, ErrNoTasks)
	assert.EqualError(t, err, "no task files in "+empty+": add <category>-<name>.json files, or point -fb.tasks-dir at a folder of them")
}

// TestRunRubricOptionErrors: a bad -fb.judge or -fb.judge-prompt stops the
// run before it starts; without a rubric task selected, no judge is even
// looked up.
func TestRunRubricOptionErrors(t *testing.T) {
	c := runConfig(t)
	setup := func(o RubricOptions, taskIDs ...string) (*Run, error) {
		c := c
		c.Rubric, c.TaskIDs = o, taskIDs
		return NewRun(c)
	}
	_, err := setup(RubricOptions{Judges: []string{"heron", "owl"}})
	assert.EqualError(t, err, `-fb.judge: unknown model "owl" in `+c.Catalog+`; valid keys: good, shaky, heron (or all)`)
	missing := filepath.Join(t.TempDir(), "judge.tmpl")
	_, err = setup(RubricOptions{Judges: []string{"heron"}, PromptFile: missing})
	assert.EqualError(t, err, "-fb.judge-prompt: reading the judge prompt: open "+missing+": no such file or directory")
	noResponse := filepath.Join(t.TempDir(), "judge.tmpl")
	require.NoError(t, os.WriteFile(noResponse, []byte("{{.Prompt}} {{range .Criteria}}{{.}}{{end}}"), 0o644))
	_, err = setup(RubricOptions{Judges: []string{"heron"}, PromptFile: noResponse})
	assert.EqualError(t, err, "-fb.judge-prompt: judge prompt "+noResponse+": it never shows {{.Response}}; the judge must see the task prompt, every criterion and the response")

	// The default judge, absent from this catalog, is no error when no
	// selected task has a rubric.
	r, err := setup(RubricOptions{}, "coding-sum")
	require.NoError(t, err)
	assert.Nil(t, r.judges)
	assert.Nil(t, r.runner.AfterTrial)
	assert.Nil(t, r.judging)
}

func TestSelectAllLeavesOutBuiltins(t *testing.T) {
	c, err := catalog.Load("../../../models/models.json")
	require.NoError(t, err)
	all, err := selectEntries(c, []string{"all"}, "-fb.models")
	require.NoError(t, err)
	var keys []string
	for _, e := range all {
		keys = append(keys, e.Key)
	}
	assert.NotContains(t, keys, "smoke")
	assert.Len(t, keys, len(c.Entries)-1, "every other model is selected")

	named, err := selectEntries(c, []string{"smoke"}, "-fb.models")
	require.NoError(t, err)
	assert.Equal(t, "smoke", named[0].Key, "naming the smoke model still selects it")

	path := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"smoke": {"backend": "onnx", "builtin": "smoke"}}`), 0o644))
	only, err := catalog.Load(path)
	require.NoError(t, err)
	_, err = selectEntries(only, []string{"all"}, "-fb.judge")
	require.Error(t, err)
	assert.Equal(t, `"all" selects no language model: `+path+` holds only built-in models, which "all" leaves out; name one to run it (-fb.judge smoke)`, err.Error())
}

func TestRunDryRunPlansAndWritesNothing(t *testing.T) {
	c := runConfig(t)
	c.DryRun, c.OpenJudge = true, nil
	results := filepath.Join(t.TempDir(), "results")
	c.Dir = rundir.New(results, time.Now())
	c.Selected = func(path ...string) bool { return len(path) < 2 || path[1] != "realworld-ok" }
	r, err := NewRun(c)
	require.NoError(t, err)
	var out bytes.Buffer
	r.WritePlan(&out)
	assert.Contains(t, out.String(), "models (2): good, shaky\n")
	assert.Contains(t, out.String(), "generation calls: 8 (of 12: -run selects fewer trials)\n")
	assert.Contains(t, out.String(), "rubric calls: 4 per judge × 1 judge (heron) = 4\nupper bound: 12 API calls, before retries\n")
	require.NoError(t, r.Finish(nil))
	assert.Nil(t, r.Records())
	assert.NoDirExists(t, results, "a dry run writes nothing")
}

// TestRunTwoModels runs the test task set on two models side by side and
// checks what each call returns, what OnUnit saw, and the files Finish
// writes.
func TestRunTwoModels(t *testing.T) {
	c := runConfig(t)
	var (
		mu    sync.Mutex
		seen  []string
		notes []string
		page  string
	)
	c.OnUnit = func(model string, u unit.Unit) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, model+" "+strings.Join(u.Path, "/"))
	}
	c.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		notes = append(notes, fmt.Sprintf(format, args...))
	}
	c.Report = func(path string, recs []Record, tasks []Task) error {
		page = path
		assert.Len(t, recs, 12)
		assert.Len(t, tasks, 3)
		return os.WriteFile(path, []byte("<html>"), 0o644)
	}
	r, err := NewRun(c)
	require.NoError(t, err)
	require.Equal(t, []string{"good", "shaky"}, keysOf(r.Models()))
	good, shaky := runModels()
	byModel := map[string][]Record{}
	var wg sync.WaitGroup
	for _, m := range []struct {
		key string
		gen lm.Generator
	}{{"good", good}, {"shaky", shaky}} {
		require.True(t, r.Pending(m.key))
		total, done := r.Planned(m.key)
		assert.Equal(t, [2]int{6, 0}, [2]int{total, done}, "%s: 3 tasks × 2 trials, none done", m.key)
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs, err := r.RunModel(context.Background(), entry(t, c, m.key), m.gen)
			assert.NoError(t, err)
			mu.Lock()
			byModel[m.key] = recs
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.NoError(t, r.Finish(nil))

	// Each model's records come back in job order: task by task, trial by trial.
	var order []string
	for _, rec := range byModel["good"] {
		order = append(order, strings.Join(rec.Path(), "/"))
	}
	assert.Equal(t, []string{"coding-sum/1", "coding-sum/2", "data-notes/1", "data-notes/2", "realworld-ok/1", "realworld-ok/2"}, order)
	assert.Len(t, byModel["shaky"], 6)
	sort.Strings(seen)
	assert.Equal(t, []string{"good coding-sum/1", "good coding-sum/2", "good data-notes/1", "good data-notes/2", "good realworld-ok/1", "good realworld-ok/2",
		"shaky coding-sum/1", "shaky coding-sum/2", "shaky data-notes/1", "shaky data-notes/2", "shaky realworld-ok/1", "shaky realworld-ok/2"}, seen,
		"OnUnit sees every new trial with its model")
	assert.Len(t, r.Records(), 12)

	// The run sets no cap or sampling of its own: the catalog's defaults,
	// applied when the catalog opens a model (lm.WithDefaults), decide.
	for _, req := range good.Calls().Generate {
		assert.Zero(t, req.MaxNewTokens)
		assert.Equal(t, lm.Sampling{}, req.Sampling)
	}
	// Judged: every answered data-notes trial, by heron.
	for _, rec := range byModel["good"] {
		if rec.Task == "data-notes" {
			require.NotNil(t, rec.RubricMean)
			assert.Equal(t, 8.0, *rec.RubricMean)
		}
	}

	runDir, err := c.Dir.Path()
	require.NoError(t, err)
	fb := filepath.Join(runDir, "featherbench")
	onDisk, err := ReadRecords(filepath.Join(fb, "results-20260704T101530Z.jsonl"))
	require.NoError(t, err)
	assert.Len(t, onDisk, 12)
	assert.FileExists(t, filepath.Join(fb, "summary-20260704T101530Z.md"))
	assert.Equal(t, filepath.Join(fb, "report-20260704T101530Z.html"), page)
	// The run records where its tasks came from, for reports to find them.
	src, err := ReadTaskSource(filepath.Join(fb, "tasks-20260704T101530Z.json"))
	require.NoError(t, err)
	assert.Equal(t, c.TasksDir, src.Dir)
	abs, _ := filepath.Abs(c.TasksDir)
	assert.Equal(t, abs, src.AbsDir)
	tasks, err := LoadDir(c.TasksDir)
	require.NoError(t, err)
	require.Len(t, src.Tasks, len(tasks))
	for i, task := range tasks {
		assert.Equal(t, SourceTask{ID: task.ID, Category: task.Category, File: filepath.Base(task.File), TaskHash: task.Hash}, src.Tasks[i])
	}
	assert.Contains(t, notes, "12 trials recorded in "+filepath.Join(fb, "results-20260704T101530Z.jsonl")+"; summary in "+
		filepath.Join(fb, "summary-20260704T101530Z.md")+"; review page "+page)
}

func keysOf(entries []catalog.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Key)
	}
	return out
}

// TestRunResumes: a run that -run cut to coding-sum is continued; only
// the rest is asked, and each model gets back its resumed and new records
// together.
func TestRunResumes(t *testing.T) {
	c := runConfig(t)
	c.Models = []string{"good"}
	first := c
	first.Selected = func(path ...string) bool { return len(path) < 2 || path[1] == "coding-sum" }
	r, err := NewRun(first)
	require.NoError(t, err)
	total, done := r.Planned("good")
	assert.Equal(t, [2]int{2, 0}, [2]int{total, done}, "-run selects coding-sum's 2 trials")
	good, _ := runModels()
	recs, err := r.RunModel(context.Background(), entry(t, c, "good"), good)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	require.NoError(t, r.Finish(nil))

	runDir, err := c.Dir.Path()
	require.NoError(t, err)
	c.Dir, err = rundir.Existing(runDir)
	require.NoError(t, err)
	c.Resume = true
	var notes []string
	c.Logf = func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	r, err = NewRun(c)
	require.NoError(t, err)
	assert.Contains(t, notes, "resuming run 20260704T101530Z: 2 trials already recorded are not asked again")
	assert.True(t, r.Pending("good"))
	total, done = r.Planned("good")
	assert.Equal(t, [2]int{6, 2}, [2]int{total, done}, "4 trials to ask, 2 resumed")
	again, _ := runModels()
	recs, err = r.RunModel(context.Background(), entry(t, c, "good"), again)
	require.NoError(t, err)
	var paths []string
	for _, rec := range recs {
		paths = append(paths, strings.Join(rec.Path(), "/"))
	}
	assert.Equal(t, []string{"coding-sum/1", "coding-sum/2", "data-notes/1", "data-notes/2", "realworld-ok/1", "realworld-ok/2"}, paths)
	assert.Len(t, again.Calls().Generate, 4, "the recorded trials are not asked again")
	require.NoError(t, r.Finish(nil))
	assert.Len(t, r.Records(), 6)
}

// TestRunFinishReportsTheInterrupt: trials Stop cut are counted, and the
// error says how to continue.
func TestRunFinishReportsTheInterrupt(t *testing.T) {
	c := runConfig(t)
	c.Models, c.Concurrency = []string{"good"}, 1
	stop, cancel := context.WithCancel(context.Background())
	c.Stop = stop
	c.OnUnit = func(string, unit.Unit) { cancel() } // Ctrl-C as the first trial finishes
	r, err := NewRun(c)
	require.NoError(t, err)
	good, _ := runModels()
	recs, err := r.RunModel(context.Background(), entry(t, c, "good"), good)
	require.NoError(t, err, "an interrupt is reported once, by Finish")
	require.Len(t, recs, 1)
	assert.False(t, r.Pending("good"), "a stopped run opens no more models")
	runDir, err := c.Dir.Path()
	require.NoError(t, err)
	err = r.Finish(os.Interrupt)
	assert.EqualError(t, err, "interrupted (interrupt): 5 of 6 selected trials were not run; the finished ones are in "+
		filepath.Join(runDir, "featherbench", "results-20260704T101530Z.jsonl")+". Continue with the same options and -resume "+runDir)
}

func TestRecordUnit(t *testing.T) {
	yes, no := true, false
	str := func(s string) *string { return &s }
	figures := "latency 0.25s, wall 1.50s, tokens 10 in / 5 out, cost $0.002000"
	base := Record{Task: "coding-sum", Trial: 2, LatencyS: cost(0.25), WallClockS: cost(1.5), InputTokens: 10, OutputTokens: 5, CostUSD: cost(0.002)}
	with := func(edit func(*Record)) Record {
		r := base
		edit(&r)
		return r
	}
	tests := []struct {
		name string
		rec  Record
		want unit.Unit
	}{
		{"pass", with(func(r *Record) { r.Passed, r.CheckDetail = &yes, str(`matched "5"`) }),
			unit.Unit{Status: unit.Pass, Log: `PASS: matched "5"` + "\n" + figures}},
		{"fail", with(func(r *Record) { r.Passed, r.CheckDetail = &no, str(`no match for /5/`) }),
			unit.Unit{Status: unit.Fail, Log: `FAIL: no match for /5/` + "\n" + figures, Miss: "failed the task: no match for /5/"}},
		{"refusal that passes", with(func(r *Record) {
			r.Refusal, r.Passed, r.CheckDetail = true, &yes, str("hard refusal: counted as a pass")
		}),
			unit.Unit{Status: unit.Pass, Log: "REFUSED: hard refusal: counted as a pass\n" + figures}},
		{"refusal that fails", with(func(r *Record) {
			r.Refusal, r.Passed, r.CheckDetail = true, &no, str("hard refusal: counted as a fail")
		}),
			unit.Unit{Status: unit.Fail, Log: "REFUSED: hard refusal: counted as a fail\n" + figures, Miss: "failed the task: hard refusal: counted as a fail"}},
		{"neutral refusal", with(func(r *Record) { r.Refusal, r.CheckDetail = true, str("hard refusal: not scored") }),
			unit.Unit{Status: unit.Measured, Log: "REFUSED: hard refusal: not scored\n" + figures}},
		{"no checker", with(func(r *Record) { r.LatencyS, r.CostUSD = nil, nil }),
			unit.Unit{Status: unit.Measured, Log: "unscored (the task has no checker)\nlatency n/a, wall 1.50s, tokens 10 in / 5 out, cost n/a"}},
		{"error", with(func(r *Record) { r.Error = str("HTTP 503") }),
			unit.Unit{Status: unit.Error, Log: "error: HTTP 503"}},
		{"unsupported", with(func(r *Record) { r.Error = str(UnsupportedPrefix + "no tools here") }),
			unit.Unit{Status: unit.Unsupported, Log: "unsupported: no tools here (recorded as an error, out of the pass rate)"}},
		{"judged", with(func(r *Record) {
			r.Passed, r.RubricMean = &yes, cost(7)
			r.Rubric = []byte(`[{"judge": "good", "score": 9, "rationale": "Mine.", "self": true}, {"judge": "heron", "score": 7, "rationale": "Right fix."}, {"judge": "owl", "error": "no JSON"}]`)
		}), unit.Unit{Status: unit.Pass, Log: "PASS\n" + figures + "\nrubric 7.00/10; good (self, left out) 9: Mine.; heron 7: Right fix.; owl error: no JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Path = []string{"coding-sum", "2"}
			assert.Equal(t, tt.want, tt.rec.Unit())
			assert.Equal(t, tt.want.Gated(), tt.rec.Passed != nil, "gated exactly when the trial has a verdict")
		})
	}
}

func TestScores(t *testing.T) {
	assert.Nil(t, Scores(nil), "a model with no record has nothing to gate")
	yes, no := true, false
	errText := "HTTP 503"
	recs := []Record{{Model: "m", Task: "a", Passed: &yes}, {Model: "m", Task: "b", Passed: &yes}, {Model: "m", Task: "c", Passed: &no},
		{Model: "m", Task: "d"}, {Model: "m", Task: "e", Error: &errText}}
	got := Scores(recs)
	require.Len(t, got, 1)
	assert.Nil(t, got[0].Section)
	assert.InDelta(t, 2.0/3, got[0].Value, 1e-12)
	assert.InDelta(t, stats.SEProportion(2.0/3, 3), got[0].SE, 1e-12)

	unscored := Scores([]Record{{Model: "m", Task: "d"}, {Model: "m", Task: "e", Error: &errText}})
	require.Len(t, unscored, 1)
	assert.True(t, math.IsNaN(unscored[0].Value), "no scored trial: no score")
	assert.Len(t, Units(recs), 5)
}
