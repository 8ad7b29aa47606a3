package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func runIn(ctx context.Context, dir string, timeout time.Duration, name string, args []string) (Result, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %s not found on PATH: %w", name, err)
	}
	// The child writes straight into a pipe we own rather than through
	// exec's copying goroutine, so Wait does not block on grandchildren
	// that inherited the output.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	out := &tail{max: MaxOutput}
	copied := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(copied)
	}()

	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return Result{}, fmt.Errorf("sandbox: starting %s: %w", name, err)
	}
	pw.Close()
	pgid := cmd.Process.Pid
	killGroup := func() { syscall.Kill(-pgid, syscall.SIGKILL) }

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	exited := make(chan struct{})
	var timedOut, cancelled bool
	go func() {
		// Wait for the leader to exit without reaping it: while it is a
		// zombie its pid, which is the group id, cannot be reused, so the
		// group kill below cannot hit an unrelated process.
		var info unix.Siginfo
		for {
			err := unix.Waitid(unix.P_PID, pgid, &info, unix.WEXITED|unix.WNOWAIT, nil)
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		close(exited)
	}()
	select {
	case <-exited:
	case <-timer.C:
		timedOut = true
		killGroup()
		<-exited
	case <-ctx.Done():
		cancelled = true
		killGroup()
		<-exited
	}
	killGroup() // background children the program left behind
	waitErr := cmd.Wait()
	dur := time.Since(start)

	// Every process holding the pipe is dead unless one escaped the group
	// (setsid); don't let such a process hang the harness.
	select {
	case <-copied:
	case <-time.After(time.Second):
		pr.Close()
		<-copied
	}
	pr.Close()

	// Paths inside the run's directory read relative to it, so the output
	// (and a record's detail) is the same from run to run.
	output := strings.ReplaceAll(out.String(), dir+string(os.PathSeparator), "")
	res := Result{ExitCode: cmd.ProcessState.ExitCode(), TimedOut: timedOut, Output: output, Truncated: out.truncated, Duration: dur}
	if cancelled {
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return res, fmt.Errorf("sandbox: waiting for %s: %w", name, waitErr)
	}
	return res, nil
}
