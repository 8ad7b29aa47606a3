package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const (
	// nobody is the uid and gid a root harness drops programs to.
	nobody = 65534
	// insideDir is where bwrap mounts the run's directory.
	insideDir = "/tmp/sandbox"
)

// hiddenRoots are replaced by empty, private tmpfs mounts under bwrap:
// writable scratch space, and the harness user's files out of sight.
var hiddenRoots = []string{"/tmp", "/var/tmp", "/run", "/home", "/root"}

// runUser is who the program runs as.
type runUser struct {
	drop     bool // the harness is root; the program runs as nobody
	uid, gid int
}

func currentRunUser() runUser {
	if os.Geteuid() == 0 {
		return runUser{drop: true, uid: nobody, gid: nobody}
	}
	return runUser{uid: os.Getuid(), gid: os.Getgid()}
}

// permits reports whether mode bit (4 read, 2 write, 1 execute/search) of
// fi is granted to u by the owner, group or other bits.
func (u runUser) permits(fi fs.FileInfo, bit fs.FileMode) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) == u.uid:
		return perm&(bit<<6) != 0
	case int(st.Gid) == u.gid:
		return perm&(bit<<3) != 0
	}
	return perm&bit != 0
}

// searchable reports whether u can reach path: every directory on the way
// (path's own, when it is one) must grant u search permission. Without a
// uid drop the harness's own permissions decide.
func (u runUser) searchable(path string) bool {
	if !u.drop {
		return unix.Access(path, unix.X_OK) == nil
	}
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil || (fi.IsDir() && !u.permits(fi, 1)) {
			return false
		}
		if p == "/" || p == "." {
			return true
		}
	}
}

func hidden(path string) bool {
	for _, h := range hiddenRoots {
		if path == h || strings.HasPrefix(path, h+"/") {
			return true
		}
	}
	return false
}

// visible reports whether the program, in mode m, can reach path: bwrap
// hides the hiddenRoots, and a dropped uid needs search permission.
func visible(m Mode, u runUser, path string) (string, bool) {
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil || (m == Bwrap && hidden(resolved)) {
		return "", false
	}
	return resolved, u.searchable(resolved)
}

// sandboxPATH is the host's PATH less the directories the program could
// not use: hidden by bwrap, or out of a dropped uid's reach. A python3
// from pyenv under /root, say, gives way to /usr/bin/python3.
func sandboxPATH(m Mode, u runUser) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(d) || seen[d] {
			continue
		}
		seen[d] = true
		if _, ok := visible(m, u, d); ok {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// lookPath finds name as the program would: on dirs, executable by u.
func lookPath(m Mode, u runUser, dirs []string, name string) (string, error) {
	if strings.Contains(name, "/") && !filepath.IsAbs(name) {
		return "", fmt.Errorf("sandbox: program %q must be a bare name looked up on PATH or an absolute path", name)
	}
	candidates := []string{name}
	if !filepath.IsAbs(name) {
		candidates = candidates[:0]
		for _, d := range dirs {
			candidates = append(candidates, filepath.Join(d, name))
		}
	}
	for _, c := range candidates {
		resolved, ok := visible(m, u, c)
		if !ok {
			continue
		}
		if fi, err := os.Stat(resolved); err == nil && fi.Mode().IsRegular() && u.permits(fi, 1) {
			return c, nil
		}
	}
	note := ""
	switch {
	case m == Bwrap:
		note = "; bwrap hides " + strings.Join(hiddenRoots, ", ")
	case u.drop:
		note = "; directories uid 65534 (nobody) cannot search are skipped"
	}
	return "", fmt.Errorf("sandbox: %s not found on PATH as the sandbox sees it (%s%s)", name, strings.Join(dirs, ":"), note)
}

// bwrapTool is bubblewrap as found on PATH.
type bwrapTool struct {
	path string
	size bool // supports --size (bubblewrap 0.8 and later)
	err  error
}

var bwrapOnce = sync.OnceValue(func() bwrapTool {
	u := currentRunUser()
	path, err := lookPath(None, u, sandboxPATH(None, u), "bwrap")
	if err != nil {
		return bwrapTool{err: errors.New("bubblewrap (bwrap) is not installed")}
	}
	help, _ := exec.Command(path, "--help").CombinedOutput()
	return bwrapTool{path: path, size: strings.Contains(string(help), "--size")}
})

// probe runs `true` in mode m.
func probe(m Mode) error {
	if m == Bwrap {
		if b := bwrapOnce(); b.err != nil {
			return b.err
		}
	}
	// Generous: a loaded machine can take seconds to start bwrap.
	const timeout = 30 * time.Second
	lim, _ := DefaultLimits.withDefaults(timeout)
	res, err := runIn(context.Background(), m, nil, timeout, lim, "true", nil, true)
	if err != nil {
		return err
	}
	if res.ExitCode != 0 || res.Signal != "" || res.TimedOut {
		out := strings.TrimSpace(res.Output)
		if len(out) > 500 {
			out = out[len(out)-500:]
		}
		return fmt.Errorf("running true under %s failed (exit status %d%s): %s", m, res.ExitCode, res.Signal, out)
	}
	return nil
}

// hardLimited lowers v to the harness's hard limit for resource res.
func hardLimited(res int, v uint64) uint64 {
	var rl unix.Rlimit
	if unix.Getrlimit(res, &rl) == nil && rl.Max != unix.RLIM_INFINITY && v > rl.Max {
		return rl.Max
	}
	return v
}

func (l Limits) clamped() Limits {
	l.CPU = time.Duration(hardLimited(unix.RLIMIT_CPU, uint64(l.CPU/time.Second))) * time.Second
	l.AddressSpace = int64(hardLimited(unix.RLIMIT_AS, uint64(l.AddressSpace)))
	l.Processes = int(hardLimited(unix.RLIMIT_NPROC, uint64(l.Processes)))
	l.FileSize = int64(hardLimited(unix.RLIMIT_FSIZE, uint64(l.FileSize)))
	return l
}

// prepareDir makes the run's directory, writes files into it, and gives
// it to a dropped uid.
func prepareDir(u runUser, files Files) (string, error) {
	dir, err := os.MkdirTemp("", "feather-sandbox-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	fail := func(err error) (string, error) {
		removeAll(dir)
		return "", err
	}
	if u.drop {
		if err := os.Chown(dir, u.uid, u.gid); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
		if !u.searchable(dir) {
			return fail(fmt.Errorf("sandbox: the run directory %s is out of reach of uid 65534 (nobody), which runs the program when the harness runs as root: set TMPDIR to a directory every user can search, such as /tmp", dir))
		}
	}
	for n, content := range files {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fail(fmt.Errorf("sandbox: %w", err))
		}
		if u.drop {
			if err := os.Chown(p, u.uid, u.gid); err != nil {
				return fail(fmt.Errorf("sandbox: %w", err))
			}
		}
	}
	return dir, nil
}

// removeAll removes the run's directory even where the program took away
// its own permissions on parts of it.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// command builds the process that runs argv in mode m. For bwrap, info
// receives bubblewrap's report of the sandbox's pid 1, and pid 1 waits
// for a byte on block before it starts the program (see bwrapInit).
func command(m Mode, u runUser, dir string, path []string, lim Limits, argv []string, info, block *os.File) (*exec.Cmd, error) {
	attr := &syscall.SysProcAttr{
		// A new session: its own process group to kill at the deadline, and
		// no controlling terminal to push keystrokes into (TIOCSTI).
		Setsid:    true,
		Pdeathsig: syscall.SIGKILL,
	}
	if u.drop {
		attr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
	}
	pathVar := strings.Join(path, ":")
	var cmd *exec.Cmd
	switch m {
	case Bwrap:
		b := bwrapOnce()
		if b.err != nil {
			return nil, fmt.Errorf("sandbox: %w", b.err)
		}
		args := []string{"--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/"}
		for _, h := range hiddenRoots {
			if fi, err := os.Lstat(h); err != nil || !fi.IsDir() {
				continue
			}
			if b.size {
				args = append(args, "--size", strconv.FormatInt(lim.FileSize, 10))
			}
			args = append(args, "--tmpfs", h)
		}
		args = append(args, "--proc", "/proc", "--dev", "/dev",
			"--bind", dir, insideDir, "--chdir", insideDir,
			"--clearenv", "--setenv", "PATH", pathVar, "--info-fd", "3", "--block-fd", "4", "--")
		cmd = exec.Command(b.path, append(args, argv...)...)
		cmd.ExtraFiles = []*os.File{info, block}
		cmd.Dir = dir // bwrap starts where nobody can reach
	case Netns:
		// sh stays pid 1 of the namespace, so the program is not its init
		// (which the kernel shields from signals, SIGXFSZ included) and a
		// death by signal comes back as 128+n, as under bwrap. Its own
		// stderr goes to /dev/null, so it adds no "Terminated" of its own,
		// and it unsets the PWD it exports; the subshell hands the program
		// the real stderr and execs it.
		sh, err := lookPath(m, u, path, "sh")
		if err != nil {
			return nil, err
		}
		cmd = exec.Command(sh, append([]string{"-c", `exec 3>&2 2>/dev/null; unset PWD; (exec 2>&3 3>&- "$@"); exit $?`, "sh"}, argv...)...)
		attr.Cloneflags = syscall.CLONE_NEWNET | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS | syscall.CLONE_NEWUSER
		// A fresh user namespace makes RLIMIT_NPROC count this run only.
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: u.uid, HostID: u.uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: u.gid, HostID: u.gid, Size: 1}}
		// Root may keep setgroups, and must, to shed its supplementary groups.
		attr.GidMappingsEnableSetgroups = u.drop
		cmd.Dir = dir
	default:
		cmd = exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
	}
	cmd.Env = []string{"PATH=" + pathVar}
	cmd.SysProcAttr = attr
	return cmd, nil
}

func runIn(ctx context.Context, m Mode, files Files, timeout time.Duration, lim Limits, name string, args []string, probing bool) (Result, error) {
	u := currentRunUser()
	path := sandboxPATH(m, u)
	prog, err := lookPath(m, u, path, name)
	if err != nil {
		return Result{}, err
	}
	argv := append([]string{prog}, args...)
	if !probing {
		prlimit, err := lookPath(m, u, path, "prlimit")
		if err != nil {
			return Result{}, fmt.Errorf("sandbox: prlimit (util-linux) sets the resource limits and is missing: install util-linux (%w)", err)
		}
		lim = lim.clamped()
		argv = append([]string{prlimit,
			"--cpu=" + strconv.FormatInt(int64(lim.CPU/time.Second), 10),
			"--as=" + strconv.FormatInt(lim.AddressSpace, 10),
			"--nproc=" + strconv.Itoa(lim.Processes),
			"--fsize=" + strconv.FormatInt(lim.FileSize, 10),
			"--core=0", "--"}, argv...)
	}
	dir, err := prepareDir(u, files)
	if err != nil {
		return Result{}, err
	}
	defer removeAll(dir)

	var pipes *bwrapPipes
	if m == Bwrap {
		if pipes, err = newBwrapPipes(); err != nil {
			return Result{}, fmt.Errorf("sandbox: %w", err)
		}
		defer pipes.close()
	}
	cmd, err := command(m, u, dir, path, lim, argv, pipes.childInfo(), pipes.childBlock())
	if err != nil {
		return Result{}, err
	}

	// The child writes straight into a pipe we own rather than through
	// exec's copying goroutine, so Wait does not block on grandchildren
	// that inherited the output.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("sandbox: %w", err)
	}
	out := newCapped(lim.Output)
	copied := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(copied)
	}()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	err = cmd.Start()
	pw.Close()
	pipes.started()
	if err != nil {
		pr.Close()
		return Result{}, fmt.Errorf("sandbox: starting %s: %w", name, err)
	}
	pgid := cmd.Process.Pid
	var inner *bwrapInit
	var ns *pidNS
	switch m {
	case Bwrap:
		inner = watchBwrapInit(pgid, pipes.infoR, pipes.blockW)
	case Netns:
		// The child is the namespace's init: not reaped before Wait below,
		// so its pid still names it. Without the namespace (an init that
		// already exited has emptied it) the exit of sh alone is awaited.
		ns, _ = openPidNS(pgid)
		defer ns.close()
	}
	kill := func() {
		if inner != nil {
			inner.hold() // know pid 1 before its parent dies
			inner.kill()
		}
		syscall.Kill(-pgid, syscall.SIGKILL)
	}

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
		kill()
	case <-out.exceeded:
		kill()
	case <-ctx.Done():
		cancelled = true
		kill()
	}
	kill() // background children the program left behind

	// Teardown: the leader (netns: the namespace's init, which exits once
	// its namespace is empty), bwrap's pid 1 and so its namespace, then a
	// sweep of the namespace for anything still alive. A run whose
	// processes outlive this is an error, never a quiet success.
	var teardownErr error
	select {
	case <-exited:
	case <-time.After(teardownLimit):
		teardownErr = fmt.Errorf("the sandbox's process %d was still alive %v after SIGKILL", pgid, teardownLimit)
	}
	if inner != nil {
		teardownErr = errors.Join(teardownErr, inner.finish())
	}
	if ns != nil {
		if left := ns.sweep(teardownLimit); len(left) > 0 {
			teardownErr = errors.Join(teardownErr, survivorsError(ns, left))
		}
	}
	if teardownErr != nil {
		teardownErr = fmt.Errorf("sandbox: running %s: %w", name, teardownErr)
		if cancelled {
			teardownErr = errors.Join(ctx.Err(), teardownErr)
		}
		select {
		case <-exited:
		default:
			go cmd.Wait() // reap it whenever it dies; Wait below would hang
			pr.Close()
			return Result{TimedOut: timedOut, Isolation: m.Describe(), Limits: lim, Duration: time.Since(start)}, teardownErr
		}
	}
	waitErr := cmd.Wait()
	dur := time.Since(start)

	// Once the namespace is verified empty nothing else holds the output
	// pipe, and end-of-file comes as soon as the copy has read the rest,
	// however long a loaded machine takes to schedule it. Otherwise (mode
	// none, where a child may have left the group with setsid) don't let a
	// leftover process hang the harness.
	drain := time.Second
	if m != None && teardownErr == nil {
		drain = teardownLimit
	}
	select {
	case <-copied:
	case <-time.After(drain):
		pr.Close()
		<-copied
	}
	pr.Close()

	dirs := []string{dir}
	if m == Bwrap {
		dirs = append(dirs, insideDir)
	}
	res := Result{
		ExitCode:       cmd.ProcessState.ExitCode(),
		TimedOut:       timedOut,
		OutputExceeded: out.isExceeded(),
		Output:         relative(out.String(), dirs...),
		Truncated:      out.truncated,
		Isolation:      m.Describe(),
		Limits:         lim,
		Duration:       dur,
	}
	if sig := signalOf(m, cmd.ProcessState); sig != 0 {
		res.ExitCode = -1
		res.Signal = unix.SignalName(sig)
		if res.Signal == "" {
			res.Signal = "signal " + strconv.Itoa(int(sig))
		}
	}
	if teardownErr != nil {
		return res, teardownErr
	}
	if cancelled {
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) {
		return res, fmt.Errorf("sandbox: waiting for %s: %w", name, waitErr)
	}
	return res, nil
}

// signalOf is the signal that killed the program: its own wait status in
// mode none; in the namespaced modes the child is the program's parent
// (bwrap, sh), which reports a death by signal n as exit status 128+n.
func signalOf(m Mode, ps *os.ProcessState) syscall.Signal {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok {
		return 0
	}
	if ws.Signaled() {
		return ws.Signal()
	}
	if code := ws.ExitStatus(); m != None && code > 128 && code <= 128+64 {
		return syscall.Signal(code - 128)
	}
	return 0
}
