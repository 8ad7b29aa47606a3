package runs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fixtures = "../../../testdata/report/runs"

// copyRun copies a fixture run into a results directory with a latest link.
func copyRun(t *testing.T, stamp string) (results string) {
	results = t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(results, stamp), os.DirFS(filepath.Join(fixtures, stamp))))
	require.NoError(t, os.Symlink(stamp, filepath.Join(results, "latest")))
	return results
}

func TestLoad(t *testing.T) {
	results := copyRun(t, "20260704T101530Z")
	run := filepath.Join(results, "20260704T101530Z")
	require.NoError(t, os.WriteFile(filepath.Join(run, "microbench", "notes.json"), []byte(`{"suite": "something else"}`), 0o644))

	set, err := runs.Load([]string{filepath.Join(results, "latest"), run}, runs.Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"20260704T101530Z"}, set.Stamps(), "latest and its target are one run")
	require.NotNil(t, set.Featherbench)
	assert.Len(t, set.Featherbench.Records, 56)
	assert.Equal(t, "tool-use", set.Featherbench.Categories()["tool-use-weather"], "the run's record of its tasks has their categories")
	assert.Empty(t, set.Featherbench.Tasks, "the folder it names is not here")
	require.NotNil(t, set.Featherweight)
	require.Len(t, set.Featherweight.Runs, 1)
	assert.Equal(t, "20260704T101530Z", set.Featherweight.Runs[0].Stamp)
	assert.Len(t, set.Featherweight.Runs[0].Results, 2)
	require.NotNil(t, set.Microbench)
	assert.Len(t, set.Microbench.Results, 2)
	real, err := filepath.EvalSymlinks(filepath.Join(run, "microbench", "notes.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{real + `: not a μBench result file (suite "something else"), skipped`,
		"The Featherbench run used the task files in testdata/report/tasks, which cannot be read now (task directory /src/feather/testdata/report/tasks does not exist; " +
			"create it with task files named <category>-<name>.json, or point the tasks-dir option elsewhere): categories come from the run's record of them and prompts are not shown; pass --tasks with that folder."}, set.Notes)

	// One suite's directory is enough.
	set, err = runs.Load([]string{filepath.Join(run, "featherbench")}, runs.Options{TasksDir: "../../../testdata/report/tasks"})
	require.NoError(t, err)
	assert.Nil(t, set.Featherweight)
	assert.Equal(t, []string{"20260704T101530Z"}, set.Stamps())
	assert.Equal(t, "tool-use", set.Featherbench.Categories()["tool-use-weather"])
}

func TestLoadErrors(t *testing.T) {
	results := copyRun(t, "20260704T101530Z")
	run := filepath.Join(results, "20260704T101530Z")
	file := filepath.Join(run, "featherbench", "results-20260704T101530Z.jsonl")
	tests := []struct {
		name  string
		dirs  []string
		opt   runs.Options
		want  string
		setup func()
	}{
		{"a file", []string{file}, runs.Options{}, file + " is not a directory; pass run directories such as results/latest or results/<stamp>", nil},
		{"missing tasks", []string{run}, runs.Options{TasksDir: filepath.Join(results, "tasks")}, "reading Featherbench tasks for the report: task directory " + filepath.Join(results, "tasks") + " does not exist; create it with task files named <category>-<name>.json, or point the tasks-dir option elsewhere", nil},
		{"a broken μBench file", []string{run}, runs.Options{}, "", func() {
			require.NoError(t, os.WriteFile(filepath.Join(run, "microbench", "broken.json"), []byte(`[1, 2]`), 0o644))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup()
				real, _ := filepath.EvalSymlinks(run)
				tt.want = filepath.Join(real, "microbench", "broken.json") + `: not a JSON object; μBench result files are objects with a "suite" field`
			}
			_, err := runs.Load(tt.dirs, tt.opt)
			require.EqualError(t, err, tt.want)
		})
	}
}

// TestTaskSource: a run's record of its tasks finds their files again
// for the report; what cannot be found, or changed since, is a note that
// says so, never a silent blank.
func TestTaskSource(t *testing.T) {
	tasks, err := filepath.Abs("../../../testdata/report/tasks")
	require.NoError(t, err)
	stamp := "20260704T101530Z"
	// withSource copies the fixture run, its record of its tasks pointing
	// at dir (none when dir is "").
	withSource := func(t *testing.T, dir string) string {
		results := copyRun(t, stamp)
		p := filepath.Join(results, stamp, "featherbench", featherbench.TaskSourceName(stamp))
		if dir == "" {
			require.NoError(t, os.Remove(p))
			return filepath.Join(results, stamp)
		}
		src, err := featherbench.ReadTaskSource(p)
		require.NoError(t, err)
		src.Dir, src.AbsDir = dir, dir
		require.NoError(t, src.Write(p))
		return filepath.Join(results, stamp)
	}
	other := t.TempDir()
	require.NoError(t, os.CopyFS(other, os.DirFS(tasks)))
	edited := filepath.Join(other, "data-total.json")
	b, err := os.ReadFile(edited)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(edited, []byte(strings.Replace(string(b), "Invoice lines:", "Invoice lines now:", 1)), 0o644))
	empty := t.TempDir()

	for _, tt := range []struct {
		name, recorded string
		opt            runs.Options
		dir            string
		prompts        bool
		notes          []string
	}{
		{name: "the recorded folder", recorded: tasks, dir: tasks, prompts: true},
		{name: "--tasks wins", recorded: filepath.Join(empty, "gone"), opt: runs.Options{TasksDir: tasks}, dir: tasks, prompts: true},
		{name: "a changed file", recorded: other, dir: other, prompts: true,
			notes: []string{"1 task file changed since the Featherbench run (the file's task_hash differs from the trials'): data-total; the prompt shown is the file's, not the one the trials answered."}},
		{name: "no record: the default folder", opt: runs.Options{DefaultTasksDir: tasks}, dir: tasks, prompts: true},
		{name: "no record, a default without the tasks", opt: runs.Options{DefaultTasksDir: empty}, dir: empty,
			notes: []string{"7 tasks of the Featherbench trials have no category or prompt here (they are not in " + empty + "): data-notes, data-total, realworld-benign, realworld-veggie, security-injection, security-jailbreak, tool-use-weather; pass --tasks with the folder the run used."}},
		{name: "no record, no folder",
			notes: []string{"7 tasks of the Featherbench trials have no category or prompt here (no task folder was found): data-notes, data-total, realworld-benign, realworld-veggie, security-injection, security-jailbreak, tool-use-weather; pass --tasks with the folder the run used."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			run := withSource(t, tt.recorded)
			set, err := runs.Load([]string{run}, tt.opt)
			require.NoError(t, err)
			fb := set.Featherbench
			assert.Equal(t, tt.dir, fb.TasksDir)
			assert.Equal(t, tt.prompts, fb.Tasks["data-total"].Prompt != "")
			if tt.notes == nil {
				assert.Equal(t, "data", fb.Categories()["data-total"])
			}
			assert.Equal(t, tt.notes, set.Notes)
		})
	}
}
