// Package sandbox runs untrusted, model-written programs. Each run gets a
// fresh temporary directory (removed afterwards), an environment stripped to
// PATH so the harness's secrets (OPENROUTER_API_KEY and friends) never reach
// the program, and its own process group, which is killed whole at the
// deadline so no grandchild outlives the check.
//
// It isolates secrets and processes, not the filesystem or the network: run
// the harness on a machine, or in a container, the code may touch.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Files maps plain file names to their contents.
type Files map[string]string

// Result is how a program ended.
type Result struct {
	// ExitCode is the program's exit status; -1 when it was killed.
	ExitCode int
	// TimedOut is true when the deadline killed the process group.
	TimedOut bool
	// Output is the tail (at most MaxOutput bytes) of stdout and stderr,
	// interleaved as the program wrote them, with paths inside the run's
	// directory made relative to it.
	Output string
	// Truncated is true when earlier output was dropped to keep the tail.
	Truncated bool
	Duration  time.Duration
}

// MaxOutput bounds the output a run keeps: a program that prints forever
// must not exhaust the harness's memory.
const MaxOutput = 64 << 10

// Run writes files into a new temporary directory and runs name with args
// there, with PATH as the only environment variable and stdin empty. The
// whole process group is killed when timeout passes or ctx ends, and when
// the program exits, so background children do not linger.
//
// A non-zero exit or a timeout is a Result, not an error; errors are the
// harness's own failures (no temporary directory, program not found) and
// the cancellation of ctx.
func Run(ctx context.Context, files Files, timeout time.Duration, name string, args ...string) (Result, error) {
	if timeout <= 0 {
		return Result{}, fmt.Errorf("sandbox: timeout must be positive, not %v", timeout)
	}
	dir, err := os.MkdirTemp("", "feather-sandbox-")
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	defer os.RemoveAll(dir)
	for n, content := range files {
		if n == "" || n != filepath.Base(n) || n == "." || n == ".." {
			return Result{}, fmt.Errorf("sandbox: file name %q must be a plain name without directories", n)
		}
		if err := os.WriteFile(filepath.Join(dir, n), []byte(content), 0o644); err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
	}
	return runIn(ctx, dir, timeout, name, args)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "\uFFFD")
}

// ErrUnsupported is returned on systems without process groups.
var ErrUnsupported = errors.New("sandbox: running model-written code needs Linux (process groups and waitid)")
