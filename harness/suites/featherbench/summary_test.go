package featherbench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rec(run, task, hash, model string, trial int, passed *bool) Record {
	return Record{RunID: run, Task: task, TaskHash: hash, Model: model, Trial: trial, Passed: passed, ToolCalls: []ToolCall{}}
}

func TestSummaryWarnsWhenTaskVersionsBlend(t *testing.T) {
	records := []Record{
		rec("20260701T000000Z", "coding-x", "aaaaaaaaaaaa", "m", 1, ptr(true)),
		rec("20260702T000000Z", "coding-x", "bbbbbbbbbbbb", "m", 1, ptr(false)),
		rec("20260702T000000Z", "data-y", "cccccccccccc", "m", 1, ptr(true)),
	}
	s := Summarize(records, nil)
	assert.Equal(t, []string{"task coding-x: the records blend 2 versions of the task (task_hash aaaaaaaaaaaa, bbbbbbbbbbbb): its prompt, checker or tools changed between the runs combined here, so its numbers mix different tasks"}, s.Warnings)
	md := s.Markdown()
	assert.Contains(t, md, "2 runs combined (20260701T000000Z, 20260702T000000Z): 1 model, 2 tasks, 3 trials.\n")
	assert.Contains(t, md, "> **Warning:** task coding-x: the records blend 2 versions")
	assert.Contains(t, md, "| (none) | 67% (2 / 3) |\n", "tasks without a known category roll up together")
}

// TestSummaryMarksTheSmokeModel: the built-in smoke model's row is marked
// † and the note says its numbers measure the harness, as the other
// suites' summaries do; a real model's row is not marked.
func TestSummaryMarksTheSmokeModel(t *testing.T) {
	smoke := rec("r", "t", "h", "smoke", 1, ptr(true))
	smoke.Smoke = true
	md := Summarize([]Record{smoke, rec("r", "t", "h", "m", 1, ptr(false))}, nil).Markdown()
	assert.Contains(t, md, "Run r: 2 models, 1 task, 2 trials.\n")
	assert.Contains(t, md, "\n| smoke † | 100% [21–100] | 1 / 1 |")
	assert.Contains(t, md, "\n| m | 0% [0–79] | 0 / 1 |")
	assert.Contains(t, md, "\n\n† feather's built-in smoke model: its numbers measure the harness, not a language model.\n")

	plain := Summarize([]Record{rec("r", "t", "h", "m", 1, ptr(false))}, nil).Markdown()
	assert.NotContains(t, plain, "†")
}

func TestSummaryOfNothingScored(t *testing.T) {
	s := Summarize([]Record{rec("r", "t", "h", "m", 1, nil)}, nil)
	assert.Contains(t, s.Markdown(), "| m | — | 0 / 0 | 0 | 0 | 1 | — | — | 0 | 0 | — | — |\n")
}

func TestReadRecordsFromSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	w := NewWriter(a)
	require.NoError(t, w.Write(rec("r1", "t", "h", "m", 1, ptr(true))))
	require.NoError(t, w.Write(rec("r1", "t", "h", "m", 2, nil)))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(b, []byte("\n"+`{"run_id": "r2", "task": "t", "model": "m", "trial": 1, "passed": false, "extra_key": 1}`+"\n"), 0o644))
	got, err := ReadRecords(a, b)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, rec("r1", "t", "h", "m", 2, nil), got[1])
	assert.Equal(t, "r2", got[2].RunID)
	assert.Equal(t, ptr(false), got[2].Passed)
}

func TestReadRecordsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"task": "t", "model": "m"}`+"\n"+`{"task": "t", "model": "m", "trial": "one"}`+"\n"), 0o644))
	_, err := ReadRecords(bad)
	assert.EqualError(t, err, bad+`:2: not a Featherbench record: json: cannot unmarshal string into Go struct field Record.trial of type int`)

	cut := filepath.Join(dir, "cut.jsonl")
	require.NoError(t, os.WriteFile(cut, []byte(`{"task": "t", "model": "m"}`+"\n"+`{"task": "t", "mod`), 0o644))
	_, err = ReadRecords(cut)
	assert.EqualError(t, err, cut+`:2: not a Featherbench record: unexpected end of JSON input (the last line is incomplete: the run was probably interrupted while writing it; delete the line)`)

	other := filepath.Join(dir, "other.jsonl")
	require.NoError(t, os.WriteFile(other, []byte(`{"id": 1}`+"\n"), 0o644))
	_, err = ReadRecords(other)
	assert.EqualError(t, err, other+`:1: not a Featherbench record: it has no task or model`)

	_, err = ReadRecords(filepath.Join(dir, "missing.jsonl"))
	assert.ErrorContains(t, err, "reading records: open "+filepath.Join(dir, "missing.jsonl"))
}

func TestWriteSummaryLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary-x.md")
	require.NoError(t, WriteSummary([]Record{rec("r", "t", "h", "m", 1, ptr(true))}, path, nil))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	blocker := filepath.Join(dir, "not-a-folder")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	assert.Error(t, WriteSummary(nil, filepath.Join(blocker, "s.md"), nil), "a file where the folder should be")
}

func TestPlan(t *testing.T) {
	tasks, err := LoadDir(testTasks)
	require.NoError(t, err)
	tasks, err = Filter(tasks, nil, []string{"data", "tool-use"})
	require.NoError(t, err)
	r := &Runner{Trials: 3}
	p := r.Plan([]string{"fable-5", "gpt-5.5"}, tasks)
	assert.Equal(t, 18, p.GenerationCalls())
	assert.Equal(t, 6, p.RubricCallsPerJudge())
	var out bytes.Buffer
	p.Write(&out)
	assert.Equal(t, `Featherbench dry run: no model is called.

models (2): fable-5, gpt-5.5
tasks (3), 3 trials each:
  data-notes        category data; no checker; rubric (2 criteria)
  data-total        category data; checker numeric_close
  tool-use-weather  category tool-use; checker tool_called; tools get_weather

generation calls: 18 (2 models × 3 tasks × 3 trials)
rubric calls: 6 per judge (one per trial of a task with a rubric)
upper bound: 18 + 6 × judges API calls, before retries
`, out.String())

	p.Judges = []string{"fable-5", "opus-5"}
	assert.Equal(t, 30, p.MaxCalls())
	out.Reset()
	p.Write(&out)
	assert.True(t, strings.HasSuffix(out.String(), "rubric calls: 6 per judge × 2 judges (fable-5, opus-5) = 12\nupper bound: 30 API calls, before retries\n"), out.String())

	p.Judges = []string{"fable-5"}
	out.Reset()
	p.Write(&out)
	assert.True(t, strings.HasSuffix(out.String(), "rubric calls: 6 per judge × 1 judge (fable-5) = 6\nupper bound: 24 API calls, before retries\n"), out.String())

	// With judging off, the rubric tasks still run but nobody grades them.
	p.NoRubric = true
	assert.Equal(t, 0, p.RubricCallsPerJudge())
	assert.Equal(t, 18, p.MaxCalls())
	out.Reset()
	p.Write(&out)
	assert.True(t, strings.HasSuffix(out.String(), "generation calls: 18 (2 models × 3 tasks × 3 trials)\nrubric calls: none (-fb.no-rubric)\nupper bound: 18 API calls, before retries\n"), out.String())

	// -run narrows the plan to the selected trials.
	r.Selected = func(model, task string, trial int) bool { return model == "gpt-5.5" && trial == 1 }
	p = r.Plan([]string{"fable-5", "gpt-5.5"}, tasks)
	out.Reset()
	p.Write(&out)
	assert.Contains(t, out.String(), "generation calls: 3 (of 18: -run selects fewer trials)\n  fable-5: 0\n  gpt-5.5: 3\nrubric calls: 1 per judge")
}
