package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// running reports whether pid is a live process; a zombie (killed, not yet
// reaped by init) is not running.
func running(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

func firstLinePID(t *testing.T, out string) int {
	t.Helper()
	line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	require.NoError(t, err, "output %q should start with a pid", out)
	return pid
}

func TestRun(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "sk-or-secret")
	tests := []struct {
		name   string
		files  Files
		script string
		code   int
		output string
	}{
		{"exit status and output", nil, `echo out; echo err >&2; exit 3`, 3, "out\nerr\n"},
		{"environment is PATH only", nil, `echo "key=${OPENROUTER_API_KEY-unset} home=${HOME-unset}"`, 0, "key=unset home=unset\n"},
		{"files are written beside it", Files{"a.txt": "hello"}, `cat a.txt`, 0, "hello"},
		{"stdin is empty", nil, `cat; echo done`, 0, "done\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Run(context.Background(), tt.files, 10*time.Second, "sh", "-c", tt.script)
			require.NoError(t, err)
			assert.Equal(t, tt.code, res.ExitCode)
			assert.Equal(t, tt.output, res.Output)
			assert.False(t, res.TimedOut)
			assert.False(t, res.Truncated)
		})
	}
}

func TestRunRemovesItsDirectory(t *testing.T) {
	res, err := Run(context.Background(), Files{"x": ""}, 10*time.Second, "sh", "-c", "pwd")
	require.NoError(t, err)
	dir := strings.TrimSpace(res.Output)
	require.Contains(t, dir, "feather-sandbox-")
	assert.NoDirExists(t, dir)
}

func TestRunKillsTheWholeGroupAtTheTimeout(t *testing.T) {
	// The program starts a grandchild that would sleep past the deadline
	// and then sleeps itself.
	start := time.Now()
	res, err := Run(context.Background(), nil, 500*time.Millisecond, "sh", "-c", "sleep 30 & echo $!; sleep 30")
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, -1, res.ExitCode)
	assert.Less(t, elapsed, 5*time.Second, "Run must return soon after the timeout")
	assert.False(t, running(firstLinePID(t, res.Output)), "the grandchild must be killed with its group")
}

func TestRunKillsChildrenLeftBehind(t *testing.T) {
	res, err := Run(context.Background(), nil, 20*time.Second, "sh", "-c", "sleep 30 & echo $!")
	require.NoError(t, err)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	assert.Less(t, res.Duration, 10*time.Second, "a background child must not hold the run open")
	assert.False(t, running(firstLinePID(t, res.Output)))
}

func TestRunKeepsTheTailOfLongOutput(t *testing.T) {
	res, err := Run(context.Background(), nil, 10*time.Second, "sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo END")
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.Len(t, res.Output, MaxOutput)
	assert.True(t, strings.HasSuffix(res.Output, "xxxEND\n"))
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := Run(ctx, nil, 30*time.Second, "sh", "-c", "sleep 30 & echo $!; sleep 30")
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, res.TimedOut)
	assert.False(t, running(firstLinePID(t, res.Output)))
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name    string
		files   Files
		timeout time.Duration
		prog    string
		want    string
	}{
		{"nested file name", Files{"../x": ""}, time.Second, "sh", `sandbox: file name "../x" must be a plain name without directories`},
		{"missing program", nil, time.Second, "no-such-program-feather", `sandbox: no-such-program-feather not found on PATH`},
		{"zero timeout", nil, 0, "sh", `sandbox: timeout must be positive, not 0s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), tt.files, tt.timeout, tt.prog)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
