package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const reportFixtures = "../../testdata/report"

func fixtureRunDir(stamp string) string { return filepath.Join(reportFixtures, "runs", stamp) }

// TestReportCommand: flags may follow the run directories, and every page
// lands in --out.
func TestReportCommand(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"report", fixtureRunDir("20260704T101530Z"), fixtureRunDir("20260705T090000Z"),
		"--events", filepath.Join(reportFixtures, "tests", "test-events.json"),
		"--junit", filepath.Join(reportFixtures, "tests", "junit.xml"),
		"--tasks", filepath.Join(reportFixtures, "tasks"), "--out", out}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	var want []string
	for _, n := range []string{"featherbench.md", "featherbench.html", "featherweight.md", "featherweight.html", "microbench.md", "microbench.html", "compare.md", "compare.html", "tests.md", "tests.html", "index.html"} {
		want = append(want, filepath.Join(out, n))
		assert.FileExists(t, filepath.Join(out, n))
	}
	assert.Equal(t, strings.Join(want, "\n")+"\nopen "+filepath.Join(out, "index.html")+"\n", stdout.String())
	assert.Empty(t, stderr.String())
}

// TestReportDefaultOut: one run directory reports into RUN_DIR/report;
// test results alone report beside them.
func TestReportDefaultOut(t *testing.T) {
	run := filepath.Join(t.TempDir(), "20260704T101530Z")
	require.NoError(t, os.CopyFS(run, os.DirFS(fixtureRunDir("20260704T101530Z"))))
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"report", run}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	assert.FileExists(t, filepath.Join(run, "report", "featherbench.html"))

	events := filepath.Join(t.TempDir(), "test-events.json")
	b, err := os.ReadFile(filepath.Join(reportFixtures, "tests", "test-events.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(events, b, 0o644))
	stdout.Reset()
	require.Equal(t, 0, dispatch([]string{"report", "--events", events}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	assert.FileExists(t, filepath.Join(filepath.Dir(events), "report", "tests.html"))
	assert.NoFileExists(t, filepath.Join(filepath.Dir(events), "report", "featherbench.html"))
}

func TestReportCommandErrors(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"nothing", []string{"report"}, 2, "feather report: give at least one run directory, --events or --junit\n"},
		{"several without --out", []string{"report", "a", "b"}, 2, "feather report: several run directories: say where the combined report goes with --out DIR\n"},
		{"not a run", []string{"report", empty, "--out", t.TempDir()}, 1, "feather report: " + empty + " holds no results: a run directory has a featherweight/, microbench/ or featherbench/ subdirectory; pass results/latest or results/<stamp>\n"},
		{"bad flag", []string{"report", "--bogus"}, 2, "flag provided but not defined: -bogus\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tt.code, dispatch(tt.args, strings.NewReader(""), &stdout, &stderr))
			assert.True(t, strings.HasSuffix(stderr.String(), tt.want) || strings.HasPrefix(stderr.String(), tt.want), "stderr: %s", stderr.String())
		})
	}
}

// TestLeaderboardCommand prints the merged Markdown and writes it with
// summary.json, as the committed golden files have them.
func TestLeaderboardCommand(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := dispatch([]string{"leaderboard", fixtureRunDir("20260704T101530Z"), fixtureRunDir("20260705T090000Z"),
		"--tasks", filepath.Join(reportFixtures, "tasks"), "--out", out}, strings.NewReader(""), &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	want, err := os.ReadFile(filepath.Join(reportFixtures, "golden", "leaderboard.md"))
	require.NoError(t, err)
	assert.Equal(t, string(want), stdout.String())
	for _, name := range []string{"leaderboard.md", "summary.json"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		want, err := os.ReadFile(filepath.Join(reportFixtures, "golden", name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), name)
	}
	assert.Equal(t, "feather leaderboard: wrote "+filepath.Join(out, "leaderboard.md")+" and "+filepath.Join(out, "summary.json")+"\n", stderr.String())

	stderr.Reset()
	assert.Equal(t, 2, dispatch([]string{"leaderboard"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "feather leaderboard: give at least one run directory\n")
}

// TestReportFindsTheRunsTasks: a run made with -fb.tasks-dir records its
// task folder, so feather report shows its categories and prompts from
// there, not from the tasks/ of the folder it runs in, and without being
// told --tasks again.
func TestReportFindsTheRunsTasks(t *testing.T) {
	tasks, err := filepath.Abs(filepath.Join(reportFixtures, "tasks"))
	require.NoError(t, err)
	run := filepath.Join(t.TempDir(), "20260704T101530Z")
	require.NoError(t, os.CopyFS(run, os.DirFS(fixtureRunDir("20260704T101530Z"))))
	src := filepath.Join(run, "featherbench", "tasks-20260704T101530Z.json")
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	b = []byte(strings.ReplaceAll(string(b), "/src/feather/testdata/report/tasks", tasks))
	require.NoError(t, os.WriteFile(src, b, 0o644))
	// The working folder has a tasks/ of other tasks.
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, "tasks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(work, "tasks", "other-task.json"), []byte(`{"category": "other", "prompt": "Say hi.", "checker": {"type": "contains", "value": "hi"}}`), 0o644))
	t.Chdir(work)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"report", run}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	md, err := os.ReadFile(filepath.Join(run, "report", "featherbench.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| tool-use |")
	assert.NotContains(t, string(md), "(none)")
	page, err := os.ReadFile(filepath.Join(run, "report", "featherbench.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "Task files: <code>"+tasks+"</code>")
	assert.Contains(t, string(page), "Invoice lines: 1,000.25 and 250.25", "the prompts are there")
}
