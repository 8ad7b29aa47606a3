package runs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/report/runs"
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
	assert.Nil(t, set.Featherbench.Categories(), "no task directory, no categories")
	require.NotNil(t, set.Featherweight)
	require.Len(t, set.Featherweight.Runs, 1)
	assert.Equal(t, "20260704T101530Z", set.Featherweight.Runs[0].Stamp)
	assert.Len(t, set.Featherweight.Runs[0].Results, 2)
	require.NotNil(t, set.Microbench)
	assert.Len(t, set.Microbench.Results, 2)
	real, err := filepath.EvalSymlinks(filepath.Join(run, "microbench", "notes.json"))
	require.NoError(t, err)
	assert.Equal(t, []string{real + `: not a μBench result file (suite "something else"), skipped`}, set.Notes)

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
