package feather_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/internal/testenv"
)

// fbChild runs TestFeatherbench in a child process: `go test` itself when
// goTest (as a user runs it), else this test binary again. It returns the
// child's combined output and exit status.
type fbChild struct {
	goTest bool
	args   []string
	env    []string
	// signalWhen, when set, gets a function that sends SIGINT to the child's
	// whole process group, as Ctrl-C in a terminal does.
	signalWhen func(interrupt func())
}

func (c fbChild) run(t *testing.T) (string, int) {
	t.Helper()
	var cmd *exec.Cmd
	if c.goTest {
		cmd = exec.Command(testenv.GoCommand(t), append([]string{"test", "-count=1", "-run", "^TestFeatherbench$", "-v", ".", "-args"}, c.args...)...)
	} else {
		cmd = exec.Command(os.Args[0], append([]string{"-test.run", "^TestFeatherbench$", "-test.v"}, c.args...)...)
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FEATHER_RESUME=") && !strings.HasPrefix(kv, "FEATHER_FB_") && !strings.HasPrefix(kv, "FEATHER_MODELS=") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, c.env...)
	var out bytes.Buffer
	var mu sync.Mutex
	cmd.Stdout = lockedWriter{&mu, &out}
	cmd.Stderr = cmd.Stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	if c.signalWhen != nil {
		go c.signalWhen(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) })
	}
	err := cmd.Wait()
	mu.Lock()
	defer mu.Unlock()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, out.String())
		code = ee.ExitCode()
	}
	return out.String(), code
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// fbRunDir returns the one run directory under results.
func fbRunDir(t *testing.T, results string) string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(results, "2*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1, "one run directory under %s", results)
	return dirs[0]
}

// fbFileRecords reads a run's results file, failing on any line that is
// not a whole record.
func fbFileRecords(t *testing.T, runDir string) []featherbench.Record {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(runDir, "featherbench", "results-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	recs, err := featherbench.ReadRecords(files[0])
	require.NoError(t, err)
	return recs
}

// fbComparable is a record without what differs between two runs of the
// same trials: the run's stamp and the timings.
func fbComparable(t *testing.T, recs []featherbench.Record) []string {
	var out []string
	for _, r := range recs {
		r.RunID, r.Timestamp, r.LatencyS, r.WallClockS = "", "", nil, nil
		b, err := json.Marshal(r)
		require.NoError(t, err)
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}

// fbFileWithoutTimings reads the one file of a run matching pattern
// (under featherbench/) with what differs between two runs of the same
// trials blanked: stamps, trial start times, and latencies and wall times
// (long decimals, and "1.23 s" as the summary prints them).
func fbFileWithoutTimings(t *testing.T, runDir, pattern string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(runDir, "featherbench", pattern))
	require.NoError(t, err)
	require.Len(t, files, 1)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	s := regexp.MustCompile(`\d{8}T\d{6}Z`).ReplaceAllString(string(data), "STAMP")
	s = regexp.MustCompile(`"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`).ReplaceAllString(s, `"TIME"`)
	s = regexp.MustCompile(`\b\d+\.\d{5,}(e-\d+)?\b`).ReplaceAllString(s, "SECONDS")
	s = regexp.MustCompile(`\d+\.\d+ ?s\b`).ReplaceAllString(s, "Ns")
	return withoutTimingColumns(s)
}

// withoutTimingColumns blanks the cells under a Markdown table's
// "median latency (s)" and "median wall (s)" headers (seconds with two
// decimals and no unit), which depend on how fast the machine answered.
func withoutTimingColumns(s string) string {
	lines := strings.Split(s, "\n")
	var timed []int // the timing columns of the table being read
	for i, line := range lines {
		if !strings.HasPrefix(line, "|") {
			timed = nil
			continue
		}
		cells := strings.Split(line, "|")
		if timed == nil {
			for c, cell := range cells {
				if h := strings.TrimSpace(cell); h == "median latency (s)" || h == "median wall (s)" {
					timed = append(timed, c)
				}
			}
			if timed == nil {
				timed = []int{} // a table without timings: read its rows as they are
			}
			continue
		}
		for _, c := range timed {
			if c < len(cells) && !strings.HasPrefix(strings.TrimSpace(cells[c]), "-") {
				cells[c] = " N "
			}
		}
		lines[i] = strings.Join(cells, "|")
	}
	return strings.Join(lines, "\n")
}

// TestFBInterruptAndResume is Ctrl-C in the middle of a real `go test`
// run against a slow API: the child stops starting trials, lets those in
// flight finish, writes every finished record and the summary, and exits
// non-zero naming the resume command. No answer the server gave is lost.
// -resume then runs exactly the rest, and the files equal an uninterrupted
// run's apart from stamps and timings.
func TestFBInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three child test processes")
	}
	prompts := fbTaskPrompts(t)
	script := fbFakeScript(prompts)
	var (
		mu       sync.Mutex
		answered int
		reached  = make(chan struct{})
	)
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		rep := script(r)
		time.Sleep(40 * time.Millisecond) // slow enough to interrupt mid-run
		if rep.Status == 0 {
			mu.Lock()
			answered++
			if answered == 12 {
				close(reached)
			}
			mu.Unlock()
		}
		return rep
	})
	dir := t.TempDir()
	cat := fbTwoModels(t, s, "vendor/shaky")
	args := func(results string) []string {
		return []string{"-fb.catalog", cat, "-fb.tasks-dir", fbTestTasks, "-fb.trials", "3", "-fb.concurrency", "2", "-fb.no-rubric", "-results", results}
	}
	const total = 2 * 8 * 3

	// Interrupted.
	results := filepath.Join(dir, "interrupted")
	out, code := fbChild{goTest: true, args: args(results), signalWhen: func(interrupt func()) {
		select {
		case <-reached:
			interrupt()
		case <-time.After(2 * time.Minute):
		}
	}}.run(t)
	require.Equal(t, 1, code, "an interrupted run exits non-zero:\n%s", out)
	runDir := fbRunDir(t, results)
	recs := fbFileRecords(t, runDir)
	mu.Lock()
	answeredBefore := answered
	mu.Unlock()
	assert.Equal(t, answeredBefore, len(recs), "every answer the server gave is a record: 0 finished records lost")
	assert.Less(t, len(recs), total, "the run stopped early")
	assert.GreaterOrEqual(t, len(recs), 12)
	assert.Contains(t, out, "feather: interrupt: starting no new work; calls in flight have 30s to finish")
	notRun := total - len(recs)
	assert.Regexp(t, regexp.QuoteMeta("interrupted (interrupt): ")+`\d+`+regexp.QuoteMeta(" of 48 selected trials were not run"), out)
	assert.Contains(t, out, "feather: the run was interrupted (interrupt); continue it with the same options and -resume "+runDir)
	assert.FileExists(t, filepath.Join(runDir, "featherbench", "summary-"+filepath.Base(runDir)+".md"), "the summary of what finished is written")
	assert.FileExists(t, filepath.Join(runDir, "featherbench", "report-"+filepath.Base(runDir)+".html"))
	t.Logf("interrupted after %d of %d trials; %d not run", len(recs), total, notRun)

	// Resumed: only the rest is asked.
	before := len(s.Requests())
	out, code = fbChild{args: append(args(results), "-resume", runDir)}.run(t)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "trials already recorded are not asked again")
	resumed := fbFileRecords(t, runDir)
	require.Len(t, resumed, total)
	assert.Equal(t, fbComparable(t, recs), fbComparable(t, resumed[:len(recs)]), "what was recorded stays as it was")
	assert.GreaterOrEqual(t, len(s.Requests())-before, notRun, "every trial not run is asked")
	assert.LessOrEqual(t, len(s.Requests())-before, notRun+3, "and nothing else (at most one 429 retry per good realworld-benign trial)")
	seen := map[string]bool{}
	for _, r := range resumed {
		k := r.Model + "/" + r.Task + "/" + string(rune('0'+r.Trial))
		assert.False(t, seen[k], "%s recorded once", k)
		seen[k] = true
		assert.Equal(t, filepath.Base(runDir), r.RunID)
	}

	// Uninterrupted, for comparison.
	whole := filepath.Join(dir, "whole")
	out, code = fbChild{args: args(whole)}.run(t)
	require.Equal(t, 0, code, out)
	wholeDir := fbRunDir(t, whole)
	assert.Equal(t, fbComparable(t, fbFileRecords(t, wholeDir)), fbComparable(t, resumed), "the resumed run's records equal an uninterrupted run's")
	assert.Equal(t, fbFileWithoutTimings(t, wholeDir, "summary-*.md"), fbFileWithoutTimings(t, runDir, "summary-*.md"), "and so does its summary")
	assert.Equal(t, fbFileWithoutTimings(t, wholeDir, "report-*.html"), fbFileWithoutTimings(t, runDir, "report-*.html"), "and its report page")
}

// TestFBResumeRetryErrors: a run whose provider failed one model's every
// trial (and one rate-limited trial of the other) records them as errors; -resume with -fb.retry-errors asks exactly
// those again, keeps the old error lines beside the results, and ends with
// one record per trial.
func TestFBResumeRetryErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two child test processes")
	}
	prompts := fbTaskPrompts(t)
	script := fbFakeScript(prompts)
	var mu sync.Mutex
	down := true
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		mu.Lock()
		defer mu.Unlock()
		if down && r.Model == "vendor/shaky" {
			return fakeserver.Reply{Status: 503, RetryAfter: "0", ErrorMessage: "provider down"}
		}
		return script(r)
	})
	dir := t.TempDir()
	cat := fbTwoModels(t, s, "vendor/shaky")
	results := filepath.Join(dir, "results")
	args := []string{"-fb.catalog", cat, "-fb.tasks-dir", fbTestTasks, "-fb.concurrency", "4", "-fb.no-rubric", "-api.attempts", "1", "-results", results}

	out, code := fbChild{args: args}.run(t)
	require.Equal(t, 1, code, "shaky's error records fail their subtests:\n%s", out)
	runDir := fbRunDir(t, results)
	first := fbFileRecords(t, runDir)
	require.Len(t, first, 16)
	var errored []string
	for _, r := range first {
		if r.Error != nil {
			errored = append(errored, r.Model+"/"+r.Task)
		}
	}
	// All of shaky's, and good's first try at realworld-benign, a 429 that
	// -api.attempts 1 does not retry.
	assert.Len(t, errored, 9)
	assert.Contains(t, errored, "good/realworld-benign")

	mu.Lock()
	down = false
	mu.Unlock()
	asked := len(s.Requests())
	out, code = fbChild{args: append(args, "-resume", runDir, "-fb.retry-errors")}.run(t)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "9 error records moved from ")
	assert.Equal(t, 9, len(s.Requests())-asked, "exactly the error trials are asked again")
	final := fbFileRecords(t, runDir)
	require.Len(t, final, 16)
	for _, r := range final {
		assert.Nil(t, r.Error, "%s/%s", r.Model, r.Task)
	}
	retried, err := featherbench.ReadRecords(filepath.Join(runDir, "featherbench", "results-"+filepath.Base(runDir)+".jsonl.retried"))
	require.NoError(t, err)
	assert.Len(t, retried, 9, "the old error records are kept beside the results")
}
