package featherbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func resumeLine(t *testing.T, run, model, task, hash string, trial int) string {
	t.Helper()
	b, err := json.Marshal(Record{RunID: run, Model: model, Task: task, TaskHash: hash, Trial: trial, ToolCalls: []ToolCall{}})
	require.NoError(t, err)
	return string(b) + "\n"
}

func TestLoadResume(t *testing.T) {
	const run = "20260704T101530Z"
	tasks := []Task{{ID: "b-two", Hash: "h2"}, {ID: "a-one", Hash: "h1"}}
	good := resumeLine(t, run, "m", "a-one", "h1", 2) + resumeLine(t, run, "m", "b-two", "h2", 1) + resumeLine(t, run, "m", "a-one", "h1", 1) + resumeLine(t, run, "other", "a-one", "h1", 1)

	t.Run("finished trials", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsName(run)), []byte(good), 0o644))
		r, err := LoadResume(dir, run, tasks)
		require.NoError(t, err)
		assert.Len(t, r.Records, 4)
		assert.True(t, r.Finished("m", "a-one", 1))
		assert.True(t, r.Finished("m", "a-one", 2))
		assert.True(t, r.Finished("other", "a-one", 1))
		assert.False(t, r.Finished("other", "b-two", 1))
		assert.False(t, r.Finished("m", "a-one", 3))
		var order []string
		for _, rec := range r.Of("m", tasks) {
			order = append(order, rec.Task+"/"+string(rune('0'+rec.Trial)))
		}
		assert.Equal(t, []string{"b-two/1", "a-one/1", "a-one/2"}, order, "task order of the task list, then trial")
		assert.Empty(t, r.Notes)
	})

	t.Run("nothing recorded yet", func(t *testing.T) {
		r, err := LoadResume(t.TempDir(), run, tasks)
		require.NoError(t, err)
		assert.Empty(t, r.Records)
		assert.False(t, r.Finished("m", "a-one", 1))
	})

	t.Run("torn last line", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, ResultsName(run))
		torn := `{"run_id":"` + run + `","task":"a-one","task_h`
		require.NoError(t, os.WriteFile(path, []byte(good+torn), 0o644))
		r, err := LoadResume(dir, run, tasks)
		require.NoError(t, err)
		assert.Len(t, r.Records, 4)
		assert.Equal(t, []string{"the last line of " + path + " was cut short (the run stopped while writing it): moved to " + path + ".torn; that trial runs again"}, r.Notes)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, good, string(data), "appending goes on after the last whole line")
		kept, err := os.ReadFile(path + ".torn")
		require.NoError(t, err)
		assert.Equal(t, torn+"\n", string(kept), "the fragment is kept")
	})

	refused := []struct {
		name, file, want string
		other            bool
	}{
		{"task changed", good + resumeLine(t, run, "m", "b-two", "old", 2),
			"resuming: DIR/results-20260704T101530Z.jsonl:5: task b-two has changed since it was recorded (task_hash old then, h2 now): continuing would blend two versions of it in one run; restore the task file or start a new run", false},
		{"another run's record", good + resumeLine(t, run, "m", "b-two", "h2", 2) + resumeLine(t, "20260101T000000Z", "m", "b-two", "h2", 3),
			`resuming: DIR/results-20260704T101530Z.jsonl:6: a record of run "20260101T000000Z" in run 20260704T101530Z's file; move it to its own run's file`, false},
		{"recorded twice", good + "\n" + resumeLine(t, run, "m", "a-one", "h1", 2),
			"resuming: DIR/results-20260704T101530Z.jsonl:6: m/a-one trial 2 is recorded twice; delete one of its lines", false},
		{"not a record", good + "{\"task\": 3}\n",
			"resuming: DIR/results-20260704T101530Z.jsonl:5: not a Featherbench record: json: cannot unmarshal number into Go struct field Record.task of type string", false},
		{"another run's file", good,
			"resuming: DIR holds results-20260101T000000Z.jsonl, not results-20260704T101530Z.jsonl: pass the run directory that file belongs to", true},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := ResultsName(run)
			if tc.other {
				name = ResultsName("20260101T000000Z")
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(tc.file), 0o644))
			_, err := LoadResume(dir, run, tasks)
			require.Error(t, err)
			assert.Equal(t, tc.want, strings.ReplaceAll(err.Error(), dir, "DIR"))
		})
	}
}

func TestResumeRetryErrors(t *testing.T) {
	const run = "20260704T101530Z"
	tasks := []Task{{ID: "a-one", Hash: "h1"}}
	line := func(trial int, errText string) string {
		rec := Record{RunID: run, Model: "m", Task: "a-one", TaskHash: "h1", Trial: trial, ToolCalls: []ToolCall{}}
		if errText != "" {
			rec.Error = &errText
		}
		b, err := json.Marshal(rec)
		require.NoError(t, err)
		return string(b) + "\n"
	}
	ok1, failed2, unsupported3, ok4, failed5 := line(1, ""), line(2, "gave up after 4 attempts: HTTP 503"), line(3, UnsupportedPrefix+"tools"), line(4, ""), line(5, "checker: boom")
	dir := t.TempDir()
	path := filepath.Join(dir, ResultsName(run))
	require.NoError(t, os.WriteFile(path, []byte(ok1+failed2+unsupported3+"\n"+ok4+failed5), 0o644))

	r, err := LoadResume(dir, run, tasks)
	require.NoError(t, err)
	n, err := r.RetryErrors()
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	for trial, finished := range map[int]bool{1: true, 2: false, 3: true, 4: true, 5: false} {
		assert.Equal(t, finished, r.Finished("m", "a-one", trial), "trial %d", trial)
	}
	assert.Len(t, r.Records, 3)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, ok1+unsupported3+ok4, string(data), "the error records leave the results file")
	moved, err := os.ReadFile(path + ".retried")
	require.NoError(t, err)
	assert.Equal(t, failed2+failed5, string(moved), "and are kept beside it")
	assert.Equal(t, []string{"2 error records moved from " + path + " to " + path + ".retried: those trials are asked again"}, r.Notes)

	again, err := LoadResume(dir, run, tasks)
	require.NoError(t, err)
	n, err = again.RetryErrors()
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to retry")
}
