//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	// finishTimeout is the timeout of a program that must end by itself:
	// generous, since a loaded machine can take seconds to start even sh
	// (on an idle one these programs end well within a second).
	finishTimeout = 30 * time.Second
	// killTimeout is the timeout of a program the deadline is meant to end.
	killTimeout = 3 * time.Second
)

// isolatedModes are the namespaced modes that work here. Where none does,
// the test skips with the reasons, or fails under `make test`
// (FEATHER_REQUIRE_DEPS, as internal/testenv reads it).
func isolatedModes(t *testing.T) []Mode {
	t.Helper()
	var ms []Mode
	var why []string
	for _, m := range []Mode{Bwrap, Netns} {
		if err := Available(m); err != nil {
			t.Logf("mode %s is untested here: %v", m, err)
			why = append(why, err.Error())
			continue
		}
		ms = append(ms, m)
	}
	if len(ms) == 0 {
		msg := "no isolation works here (" + strings.Join(why, "; ") + "): install bubblewrap or allow user namespaces"
		if os.Getenv("FEATHER_REQUIRE_DEPS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return ms
}

// allModes adds mode none, allowed for the test's duration.
func allModes(t *testing.T) []Mode {
	t.Helper()
	allowUnisolatedFor(t)
	return append(isolatedModes(t), None)
}

// forkLimits are the default limits with, in mode none, room for far more
// processes, for tests about something other than that limit. In mode
// none RLIMIT_NPROC counts every process of the program's user (nobody,
// as root) on the machine: other packages' sandboxed runs going on in
// parallel, and bubblewrap's pid 1s, which linger as zombies until the
// machine's init reaps them (seconds, in some containers). At 64 a test's
// own sh could then fail to fork.
func forkLimits(m Mode) Limits {
	if m == None {
		return Limits{Processes: 1 << 14}
	}
	return Limits{}
}

func allowUnisolatedFor(t *testing.T) {
	t.Helper()
	AllowUnisolated(true)
	t.Cleanup(func() { AllowUnisolated(false) })
}

var markers atomic.Int64

// marker is an argument for `sleep` no other process on the machine has,
// so survivors can be found by their command line: a sleep of a little
// over 60 seconds.
func marker() string {
	return "60." + strconv.Itoa(os.Getpid()) + strconv.FormatInt(markers.Add(1), 10)
}

// survivors lists the live processes whose command line holds arg, or
// that are in pid namespace ns ("pid:[…]"; empty for none).
func survivors(arg, ns string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !running(pid) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		link, _ := os.Readlink("/proc/" + e.Name() + "/ns/pid")
		if (arg != "" && strings.Contains(string(cmdline), "\x00"+arg)) || (ns != "" && link == ns) {
			pids = append(pids, pid)
		}
	}
	return pids
}

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

// searchableTempDir is a t.TempDir every user may reach and write, as a
// dropped uid's run directory must be.
func searchableTempDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	require.NoError(t, os.Chmod(dir, 0o777))
	return dir
}

// pidNamespace is the namespace a program printed on its first line, or
// "" in mode none, which has none of its own.
func pidNamespace(t *testing.T, m Mode, out string) string {
	t.Helper()
	if m == None {
		return ""
	}
	line, _, _ := strings.Cut(out, "\n")
	require.True(t, strings.HasPrefix(line, "pid:["), "output %q should start with the pid namespace", out)
	return line
}

// namespaceIfPrinted is pidNamespace for a program killed by the deadline
// or a cancellation, which on a loaded machine may come before it printed
// anything: then "", and survivors finds the run's processes by the marker
// alone.
func namespaceIfPrinted(t *testing.T, m Mode, out string) string {
	t.Helper()
	if m == None {
		return ""
	}
	line, _, _ := strings.Cut(out, "\n")
	if !strings.HasPrefix(line, "pid:[") {
		t.Logf("no pid namespace printed (output %q): processes are looked for by their command line only", out)
		return ""
	}
	return line
}

func TestRun(t *testing.T) {
	t.Setenv("OPENROUTER_API_KEY", "sk-or-secret")
	tests := []struct {
		name   string
		files  Files
		script string
		code   int
		signal string
		output string
	}{
		{"exit status and output", nil, `echo out; echo err >&2; exit 3`, 3, "", "out\nerr\n"},
		{"environment is PATH only", nil, `echo "key=${OPENROUTER_API_KEY-unset} home=${HOME-unset}"`, 0, "", "key=unset home=unset\n"},
		{"files are written beside it", Files{"a.txt": "hello"}, `cat a.txt`, 0, "", "hello"},
		{"the directory is writable", nil, `echo x > b.txt && cat b.txt`, 0, "", "x\n"},
		{"paths in it read relative", Files{"a.txt": ""}, `ls "$PWD/a.txt"`, 0, "", "a.txt\n"},
		{"stdin is empty", nil, `cat; echo done`, 0, "", "done\n"},
		{"a signal is named", nil, `kill -TERM $$`, -1, "SIGTERM", ""},
		{"the file size limit", nil, `exec head -c 70000000 /dev/zero > big`, -1, "SIGXFSZ", ""},
	}
	for _, m := range allModes(t) {
		for _, tt := range tests {
			t.Run(string(m)+"/"+tt.name, func(t *testing.T) {
				res, err := runMode(context.Background(), m, "", tt.files, finishTimeout, forkLimits(m), "sh", []string{"-c", tt.script})
				require.NoError(t, err)
				assert.Equal(t, tt.code, res.ExitCode)
				assert.Equal(t, tt.signal, res.Signal)
				assert.Equal(t, tt.output, res.Output)
				assert.Equal(t, m.Describe(), res.Isolation)
				assert.False(t, res.TimedOut)
				assert.False(t, res.Truncated)
				assert.False(t, res.OutputExceeded)
			})
		}
	}
}

func TestRunUsesTheStrongestMode(t *testing.T) {
	want := isolatedModes(t)[0]
	if os.Getenv(ModeVariable) != "" {
		t.Skipf("%s pins the mode", ModeVariable)
	}
	m, err := Isolation()
	require.NoError(t, err)
	assert.Equal(t, want, m)
	res, err := Run(context.Background(), nil, finishTimeout, "true")
	require.NoError(t, err)
	assert.Equal(t, string(want), res.Isolation)
	assert.Equal(t, Limits{CPU: 31 * time.Second, AddressSpace: 1 << 30, Processes: 64, FileSize: 64 << 20, Output: 16 << 20}, res.Limits)
}

func TestRunRefusesUnisolatedWithoutTheOptOut(t *testing.T) {
	AllowUnisolated(false)
	_, err := runMode(context.Background(), None, "bwrap: bubblewrap (bwrap) is not installed; netns: operation not permitted", nil, finishTimeout, Limits{}, "true", nil)
	require.EqualError(t, err, "sandbox: refusing to run model-written code unisolated (bwrap: bubblewrap (bwrap) is not installed; netns: operation not permitted): install bubblewrap (apt-get install bubblewrap, or make browser-deps), or, to run it with resource limits only, opt out explicitly: -fb.allow-unisolated (FEATHER_FB_ALLOW_UNISOLATED=true) for go test, --allow-unisolated for feather check")

	allowUnisolatedFor(t)
	res, err := runMode(context.Background(), None, "", nil, finishTimeout, forkLimits(None), "sh", []string{"-c", "echo ran"})
	require.NoError(t, err)
	assert.Equal(t, "ran\n", res.Output)
	assert.Equal(t, "none (unisolated, opted out)", res.Isolation)
}

func TestRunDropsRootToNobody(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the harness is not root here")
	}
	for _, m := range allModes(t) {
		t.Run(string(m), func(t *testing.T) {
			res, err := runMode(context.Background(), m, "", nil, finishTimeout, forkLimits(m), "sh", []string{"-c", "id -u; id -g; id -G"})
			require.NoError(t, err)
			assert.Equal(t, "65534\n65534\n65534\n", res.Output)
		})
	}
}

func TestRunRemovesItsDirectory(t *testing.T) {
	tmp := searchableTempDir(t)
	t.Setenv("TMPDIR", tmp)
	for _, m := range allModes(t) {
		res, err := runMode(context.Background(), m, "", Files{"x": ""}, finishTimeout, forkLimits(m), "sh", []string{"-c", "mkdir d && chmod 0 d && echo ok"})
		require.NoError(t, err)
		assert.Equal(t, "ok\n", res.Output, m)
	}
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestRunKillsTheWholeTreeAtTheTimeout(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(string(m), func(t *testing.T) {
			// The program starts a grandchild that would sleep past the
			// deadline and then sleeps itself.
			mark := marker()
			res, err := runMode(context.Background(), m, "", nil, killTimeout, forkLimits(m), "sh", []string{"-c", "readlink /proc/self/ns/pid; sleep " + mark + " & sleep 30"})
			require.NoError(t, err)
			assert.True(t, res.TimedOut)
			assert.Equal(t, -1, res.ExitCode)
			assert.Equal(t, "SIGKILL", res.Signal)
			assert.Empty(t, survivors(mark, namespaceIfPrinted(t, m, res.Output)), "the grandchild must be killed with the tree")
		})
	}
}

func TestRunKillsChildrenLeftBehind(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(string(m), func(t *testing.T) {
			mark := marker()
			res, err := runMode(context.Background(), m, "", nil, finishTimeout, forkLimits(m), "sh", []string{"-c", "readlink /proc/self/ns/pid; sleep " + mark + " &"})
			require.NoError(t, err)
			assert.False(t, res.TimedOut, "the background child, sleeping past the deadline, must not hold the run open")
			assert.Equal(t, 0, res.ExitCode)
			assert.Empty(t, survivors(mark, pidNamespace(t, m, res.Output)))
		})
	}
}

func TestRunKeepsTheTailOfLongOutput(t *testing.T) {
	res, err := Run(context.Background(), nil, finishTimeout, "sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x; echo END")
	require.NoError(t, err)
	assert.True(t, res.Truncated)
	assert.False(t, res.OutputExceeded)
	assert.Len(t, res.Output, MaxOutput)
	assert.True(t, strings.HasSuffix(res.Output, "xxxEND\n"))
}

func TestRunCapsTheOutput(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(string(m), func(t *testing.T) {
			res, err := runMode(context.Background(), m, "", nil, finishTimeout, Limits{Output: 100000}, "sh", []string{"-c", "while :; do echo 0123456789; done"})
			require.NoError(t, err)
			assert.True(t, res.OutputExceeded)
			assert.False(t, res.TimedOut)
			assert.Equal(t, "SIGKILL", res.Signal)
			assert.Len(t, res.Output, MaxOutput)
			assert.True(t, strings.HasSuffix(res.Output, "0123456789\n"[:100000%11]), "the tail ends where the cap cut it: %q", res.Output[len(res.Output)-20:])
		})
	}
}

func TestRunCancelled(t *testing.T) {
	for _, m := range allModes(t) {
		t.Run(string(m), func(t *testing.T) {
			mark := marker()
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Second, cancel) // on an idle machine, after the program printed its namespace
			res, err := runMode(ctx, m, "", nil, finishTimeout, forkLimits(m), "sh", []string{"-c", "readlink /proc/self/ns/pid; sleep " + mark + " & sleep 30"})
			require.ErrorIs(t, err, context.Canceled)
			assert.False(t, res.TimedOut)
			assert.Empty(t, survivors(mark, namespaceIfPrinted(t, m, res.Output)))
		})
	}
}

func TestRunErrors(t *testing.T) {
	allowUnisolatedFor(t)
	tests := []struct {
		name    string
		files   Files
		timeout time.Duration
		limits  Limits
		prog    string
		want    string
	}{
		{"nested file name", Files{"../x": ""}, time.Second, Limits{}, "sh", `sandbox: file name "../x" must be a plain name without directories`},
		{"missing program", nil, time.Second, Limits{}, "no-such-program-feather", `sandbox: no-such-program-feather not found on PATH as the sandbox sees it (`},
		{"relative path", nil, time.Second, Limits{}, "./prog", `sandbox: program "./prog" must be a bare name looked up on PATH or an absolute path`},
		{"zero timeout", nil, 0, Limits{}, "sh", `sandbox: timeout must be positive, not 0s`},
		{"negative limit", nil, time.Second, Limits{Processes: -1}, "sh", `sandbox: Limits.Processes is negative (-1); use zero for the default`},
	}
	for _, m := range []Mode{None} {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, err := runMode(context.Background(), m, "", tt.files, tt.timeout, tt.limits, tt.prog, nil)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.want)
			})
		}
	}
}

func TestSandboxPATHSkipsWhatTheProgramCannotReach(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	t.Setenv("PATH", bin+":/usr/bin:relative:/usr/bin")
	u := currentRunUser()
	assert.Equal(t, []string{"/usr/bin"}, sandboxPATH(Bwrap, u), "bwrap hides /tmp")
	if u.drop {
		assert.Equal(t, []string{"/usr/bin"}, sandboxPATH(Netns, u), "t.TempDir is 0700, out of nobody's reach")
	} else {
		assert.Equal(t, []string{bin, "/usr/bin"}, sandboxPATH(Netns, u))
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	tests := []struct {
		timeout time.Duration
		in      Limits
		want    Limits
	}{
		{2 * time.Second, Limits{}, Limits{CPU: 3 * time.Second, AddressSpace: 1 << 30, Processes: 64, FileSize: 64 << 20, Output: 16 << 20}},
		{2500 * time.Millisecond, Limits{}, Limits{CPU: 4 * time.Second, AddressSpace: 1 << 30, Processes: 64, FileSize: 64 << 20, Output: 16 << 20}},
		{time.Second, Limits{CPU: 1500 * time.Millisecond, AddressSpace: 2 << 30, Processes: 8, FileSize: 1 << 20, Output: 1000}, Limits{CPU: 2 * time.Second, AddressSpace: 2 << 30, Processes: 8, FileSize: 1 << 20, Output: 1000}},
	}
	for _, tt := range tests {
		got, err := tt.in.withDefaults(tt.timeout)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{16 << 20: "16 MiB", 1 << 30: "1 GiB", 64 << 10: "64 KiB", 1500: "1500 bytes", 0: "0 bytes", 3 << 40: "3 TiB"} {
		assert.Equal(t, want, FormatSize(n), n)
	}
}
