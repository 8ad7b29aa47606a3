//go:build linux

package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sentinel = "sk-or-v1-feather-hostile-sentinel"

// hostile is a model-written solution that attacks the harness, and how
// the sandbox must contain it.
type hostile struct {
	name string
	// script is the program, run with the run's marker as its argument;
	// {MARK} is that marker (for `sleep`, see survivors), {PORT} the test
	// listener's port, {OUTSIDE} a host directory every user may write.
	script string
	// filesystem: run only in modes that contain the filesystem.
	filesystem bool
	// killed: the deadline (killTimeout) is meant to end it; any other
	// program gets finishTimeout, however loaded the machine.
	killed bool
	// check judges the result; mark is the script's {MARK}.
	check func(t *testing.T, m Mode, res Result, mark string)
}

// ended checks a run that must end by itself, not at the deadline.
func ended(t *testing.T, res Result, code int) {
	t.Helper()
	assert.False(t, res.TimedOut)
	assert.False(t, res.OutputExceeded)
	assert.Equal(t, code, res.ExitCode, res.Output)
}

// noneLeft checks that no process of the run survives it: none in the
// pid namespace the program printed, if it got that far, and none whose
// command line holds the marker (the solution's argument).
func noneLeft(t *testing.T, m Mode, res Result, mark string) {
	t.Helper()
	assert.Empty(t, survivors(mark, namespaceIfPrinted(t, m, res.Output)), "a process of the run survived it")
}

// hostileSolutions are what a model might write, on purpose or not.
var hostileSolutions = []hostile{
	{
		name: "reads the API key from its environment and other processes'",
		script: `import os, glob
print('env', sorted(k for k in os.environ if k not in ('LC_CTYPE', 'PWD')))  # set by Python (PEP 538) and bwrap's --chdir
leaks = []
for p in glob.glob('/proc/[0-9]*/environ'):
    try:
        data = open(p, 'rb').read()
    except OSError:
        continue
    if b'OPENROUTER_API_KEY' in data:
        leaks.append(p)
        os.write(1, data)
print('leaks', leaks)
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0)
			assert.Equal(t, "env ['PATH']\nleaks []\n", res.Output)
			assert.NotContains(t, res.Output, sentinel)
		},
	},
	{
		name: "connects to a listener on the host's loopback",
		script: `import socket
for addr in [('127.0.0.1', {PORT}), ('1.1.1.1', 53)]:
    try:
        socket.create_connection(addr, timeout=1).close()
        print('connected to', addr)
    except OSError:
        print('blocked')
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0)
			assert.Equal(t, "blocked\nblocked\n", res.Output)
		},
	},
	{
		name:   "fork bomb",
		killed: true,
		script: `import os, sys
print(os.readlink('/proc/self/ns/pid'), flush=True)
sys.stderr = open(os.devnull, 'w')  # the failing forks' tracebacks would push the line above out of the tail
while True:
    os.fork()
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			assert.True(t, res.TimedOut || res.ExitCode != 0, "a fork bomb cannot succeed")
			noneLeft(t, m, res, mark)
		},
	},
	{
		name: "forks until the process limit",
		script: `import os, time
n = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except BlockingIOError:
    print('forked', n)
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0)
			// 64 processes: its init (bwrap's or sh), python, 62 children.
			assert.Equal(t, "forked 62\n", res.Output)
		},
	},
	{
		name:   "loops forever",
		killed: true,
		script: "while True:\n    pass\n",
		check: func(t *testing.T, m Mode, res Result, mark string) {
			assert.True(t, res.TimedOut)
			assert.Equal(t, "SIGKILL", res.Signal)
			assert.Equal(t, -1, res.ExitCode)
		},
	},
	{
		name: "leaves a child behind",
		script: `import os, subprocess
print(os.readlink('/proc/self/ns/pid'), flush=True)
subprocess.Popen(['sleep', '{MARK}'])
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0) // not timed out: the child, sleeping past the deadline, did not hold the run open
			pidNamespace(t, m, res.Output)
			noneLeft(t, m, res, mark)
		},
	},
	{
		name: "hides a child in a pid namespace of its own",
		script: `import glob, os, subprocess
print(os.readlink('/proc/self/ns/pid'), flush=True)
subprocess.Popen(['unshare', '--user', '--pid', '--fork', 'sleep', '{MARK}'])
def started():
    for p in glob.glob('/proc/[0-9]*/cmdline'):
        try:
            if open(p, 'rb').read() == b'sleep\x00{MARK}\x00':
                return True
        except OSError:
            pass
while not started():  # exit only once the hidden child runs
    pass
print('hidden')
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0)
			assert.Equal(t, pidNamespace(t, m, res.Output)+"\nhidden\n", res.Output)
			noneLeft(t, m, res, mark)
		},
	},
	{
		name:   "child escapes into its own session past the deadline",
		killed: true,
		script: `import os, time
print(os.readlink('/proc/self/ns/pid'), flush=True)
if os.fork() == 0:
    os.setsid()
    os.execvp('sleep', ['sleep', '{MARK}'])
time.sleep(60)
`,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			assert.True(t, res.TimedOut)
			noneLeft(t, m, res, mark)
		},
	},
	{
		name:   "prints 1 GB",
		script: "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\n",
		check: func(t *testing.T, m Mode, res Result, mark string) {
			assert.True(t, res.OutputExceeded)
			assert.False(t, res.TimedOut, "the output cap must end it before the deadline")
			assert.Equal(t, "SIGKILL", res.Signal)
			assert.True(t, res.Truncated)
			assert.Equal(t, strings.Repeat("x", MaxOutput), res.Output)
		},
	},
	{
		name: "writes outside its directory",
		script: `import os
for p in ['{OUTSIDE}/escape', '/etc/feather-escape-{MARK}', '/tmp/feather-escape-{MARK}', '/var/tmp/feather-escape-{MARK}', '/dev/shm/feather-escape-{MARK}', 'inside']:
    try:
        with open(p, 'w') as f:
            f.write('escaped')
    except OSError as e:
        pass
print(open('inside').read())
`,
		filesystem: true,
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 0)
			assert.Equal(t, "escaped\n", res.Output)
			for _, p := range []string{"/etc/", "/tmp/", "/var/tmp/", "/dev/shm/"} {
				assert.NoFileExists(t, p+"feather-escape-"+mark)
			}
		},
	},
	{
		name:   "allocates 10 GB",
		script: "b = bytearray(10 << 30)\n",
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 1)
			assert.True(t, strings.HasSuffix(res.Output, "\nMemoryError\n"), res.Output)
		},
	},
	{
		name:   "writes a 100 MiB file",
		script: "with open('big', 'wb') as f:\n    f.write(bytes(100 << 20))\n",
		check: func(t *testing.T, m Mode, res Result, mark string) {
			ended(t, res, 1)
			assert.True(t, strings.HasSuffix(res.Output, "\nOSError: [Errno 27] File too large\n"), res.Output)
		},
	},
}

func TestHostileSolutionsAreContained(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	// The key is in the harness's environment and in that of another of
	// its user's processes, whose /proc/<pid>/environ does show it.
	t.Setenv("OPENROUTER_API_KEY", sentinel)
	holder := exec.Command("sleep", "60")
	holder.Env = append(os.Environ(), "OPENROUTER_API_KEY="+sentinel)
	require.NoError(t, holder.Start())
	t.Cleanup(func() {
		holder.Process.Kill()
		holder.Wait()
	})
	require.Eventually(t, func() bool { // once sleep has replaced the forked test
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(holder.Process.Pid) + "/environ")
		return err == nil && strings.Contains(string(environ), sentinel)
	}, finishTimeout, 10*time.Millisecond, "the harness user can read the key there")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	outside := searchableTempDir(t)

	for _, m := range isolatedModes(t) {
		for _, h := range hostileSolutions {
			t.Run(string(m)+"/"+h.name, func(t *testing.T) {
				if h.filesystem && !m.ContainsFilesystem() {
					t.Skipf("%s does not contain the filesystem (documented)", m)
				}
				mark := marker()
				timeout := finishTimeout
				if h.killed {
					timeout = killTimeout
				}
				// The marker as an argument marks every process the solution
				// forks, so survivors finds them by their command line.
				res, err := runMode(context.Background(), m, "", Files{"solution.py": strings.NewReplacer("{MARK}", mark, "{PORT}", strconv.Itoa(port), "{OUTSIDE}", outside).Replace(h.script)}, timeout, Limits{}, "python3", []string{"solution.py", mark})
				require.NoError(t, err)
				assert.Equal(t, string(m), res.Isolation)
				h.check(t, m, res, mark)
				t.Logf("%s: exit %d, signal %q, timed out %v, output exceeded %v, %v", m, res.ExitCode, res.Signal, res.TimedOut, res.OutputExceeded, res.Duration.Round(time.Millisecond))

				// Afterwards the machine is as it was: nothing of the run
				// is left, no file it wrote outside, and runs still work.
				assert.Empty(t, survivors(mark, ""))
				assert.NoFileExists(t, filepath.Join(outside, "escape"))
				after, err := runMode(context.Background(), m, "", nil, finishTimeout, Limits{}, "true", nil)
				require.NoError(t, err)
				assert.Equal(t, 0, after.ExitCode, after.Output)
			})
		}
	}
	assert.Zero(t, accepted.Load(), "the listener must accept no connection")
}
