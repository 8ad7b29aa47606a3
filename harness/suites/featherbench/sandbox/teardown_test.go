//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpenPidNSRefusesTheHarnessNamespace(t *testing.T) {
	sleeper := exec.Command("sleep", marker())
	require.NoError(t, sleeper.Start())
	t.Cleanup(func() {
		sleeper.Process.Kill()
		sleeper.Wait()
	})
	for _, pid := range []int{os.Getpid(), sleeper.Process.Pid} {
		ns, err := openPidNS(pid)
		assert.Nil(t, ns)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "is not nested in the harness's")
	}
}

// startIn starts argv as the program of mode m, unlimited, and stops it
// at the end of the test.
func startIn(t *testing.T, m Mode, pipes *bwrapPipes, argv ...string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	if err := Available(m); err != nil {
		t.Skip(err)
	}
	u := currentRunUser()
	path := sandboxPATH(m, u)
	prog, err := lookPath(m, u, path, argv[0])
	require.NoError(t, err)
	dir, err := prepareDir(u, nil)
	require.NoError(t, err)
	t.Cleanup(func() { removeAll(dir) })
	cmd, err := command(m, u, dir, path, DefaultLimits, append([]string{prog}, argv[1:]...), pipes.childInfo(), pipes.childBlock())
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	pipes.started()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, dir, &out
}

// sleeping lists the processes running `sleep mark`.
func sleeping(mark string) []int {
	var pids []int
	for _, pid := range survivors(mark, "") {
		if cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); string(cmdline) == "sleep\x00"+mark+"\x00" {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestSweepKillsTheNamespaceAndTheOnesNestedInIt(t *testing.T) {
	// One sleeper in the run's namespace, one in a namespace of its own
	// nested in it, as a program may make.
	mark, nested := marker(), marker()
	cmd, _, out := startIn(t, Netns, nil, "sh", "-c", "sleep "+mark+" & unshare -Upf sleep "+nested+" & wait")
	ns, err := openPidNS(cmd.Process.Pid)
	require.NoError(t, err)
	defer ns.close()
	var pids []int
	require.Eventually(t, func() bool {
		pids = append(sleeping(mark), sleeping(nested)...)
		return len(pids) == 2
	}, finishTimeout, 10*time.Millisecond, "both sleepers start: %s", out)
	inner, err := os.Readlink("/proc/" + strconv.Itoa(pids[1]) + "/ns/pid")
	require.NoError(t, err)
	assert.NotEqual(t, ns.String(), inner, "the second sleeper is in a namespace of its own")

	members := ns.members()
	for _, pid := range append(pids, cmd.Process.Pid) {
		assert.True(t, slices.Contains(members, pid), "pid %d is a member: %v", pid, members)
	}
	assert.Empty(t, ns.sweep(teardownLimit))
	assert.Empty(t, ns.members())
	assert.Empty(t, append(survivors(mark, ""), survivors(nested, "")...))
}

func TestBwrapStartsTheProgramOnlyOnceItsInitIsKnown(t *testing.T) {
	tests := []struct {
		name   string
		held   bool // the run is killed before the handshake
		output string
		ran    bool
	}{
		{"released", false, "ran\n", true},
		{"held", true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pipes, err := newBwrapPipes()
			require.NoError(t, err)
			defer pipes.close()
			mark := marker()
			cmd, dir, out := startIn(t, Bwrap, pipes, "sh", "-c", "echo ran; touch ran; sleep "+mark+" & wait")
			b := &bwrapInit{outer: cmd.Process.Pid, info: pipes.infoR, block: pipes.blockW, fd: -1, done: make(chan struct{}), held: tt.held}
			b.handshake()
			require.NoError(t, b.err)
			require.GreaterOrEqual(t, b.fd, 0, "pid 1 verified")
			require.NotNil(t, b.ns)
			assert.Equal(t, !tt.held, b.released)
			if tt.ran {
				require.Eventually(t, func() bool { return len(survivors(mark, "")) == 1 }, finishTimeout, 10*time.Millisecond, "the program starts its sleeper")
			} else {
				time.Sleep(300 * time.Millisecond) // time enough for an ungated program to start; the gate holds however long
			}

			ns := b.ns.String()
			require.NoError(t, b.finish())
			require.Error(t, cmd.Wait())
			assert.Equal(t, tt.output, out.String())
			if tt.ran {
				assert.FileExists(t, filepath.Join(dir, "ran"))
			} else {
				assert.NoFileExists(t, filepath.Join(dir, "ran"))
			}
			assert.Empty(t, survivors(mark, ns))
		})
	}
}
