// Package sandbox runs untrusted, model-written programs, contained.
//
// Each run gets a fresh temporary directory (removed afterwards), an
// environment stripped to PATH so the harness's secrets
// (OPENROUTER_API_KEY and friends) never reach the program, resource
// limits (CPU, memory, processes, file size, output), and a deadline at
// which the whole process tree is killed. Around that it puts the
// strongest isolation the machine offers, probed once per process:
//
//   - bwrap (bubblewrap): no network, its own pid namespace and /proc, the
//     filesystem read-only except the run's directory (mounted at
//     /tmp/sandbox) and private, size-bounded /tmp, /var/tmp, /run, /home
//     and /root, which also hides the harness user's files there.
//   - netns: namespaces made directly (network, pid, IPC, UTS, user): no
//     network and a pid namespace the deadline tears down whole, but the
//     filesystem and /proc are the host's. Files the program's user may
//     write stay writable; see [Netns].
//   - none: no isolation at all. Run refuses it unless the caller opted out
//     with [AllowUnisolated].
//
// When the harness runs as root the program runs as uid/gid 65534
// (nobody): the process limit is never enforced for root, and nobody
// cannot read the harness's /proc/<pid>/environ or root's files.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Files maps plain file names to their contents.
type Files map[string]string

// Mode is a kind of isolation.
type Mode string

const (
	// Bwrap runs the program under bubblewrap: network, pid, IPC, UTS,
	// user and mount namespaces, the root filesystem read-only.
	Bwrap Mode = "bwrap"
	// Netns runs the program in new network, pid, IPC, UTS and user
	// namespaces made by the kernel directly. It contains the network and
	// the process tree, not the filesystem: the program may write wherever
	// its user may (as root the harness drops it to nobody, which limits
	// that to world-writable places such as /tmp), and it sees the host's
	// /proc, though not other processes' environments (another uid, or
	// another user namespace, which the kernel's ptrace check refuses).
	Netns Mode = "netns"
	// None runs the program with resource limits and a process group only.
	None Mode = "none"
)

// ContainsFilesystem reports whether programs run in m can write only
// their own directory and private temporary directories.
func (m Mode) ContainsFilesystem() bool { return m == Bwrap }

// Describe is how a Result and a detail name the mode.
func (m Mode) Describe() string {
	if m == None {
		return "none (unisolated, opted out)"
	}
	return string(m)
}

// ModeVariable, when set to bwrap, netns or none, pins the mode instead of
// taking the strongest that works; a pinned mode that does not work is an
// error, not a fallback. It is read once, at the first run.
const ModeVariable = "FEATHER_SANDBOX"

// Result is how a program ended.
type Result struct {
	// ExitCode is the program's exit status; -1 when a signal killed it.
	ExitCode int
	// Signal names the signal that killed the program ("SIGKILL",
	// "SIGXFSZ", …), or is empty. In the namespaced modes the program's
	// parent reports a death by signal as exit status 128+n, so a program
	// that exits with such a status itself reads as killed by signal n.
	Signal string
	// TimedOut is true when the deadline killed the process tree.
	TimedOut bool
	// OutputExceeded is true when the program wrote more than
	// Limits.Output bytes and was killed for it.
	OutputExceeded bool
	// Output is the tail (at most MaxOutput bytes) of stdout and stderr,
	// interleaved as the program wrote them, with paths inside the run's
	// directory made relative to it.
	Output string
	// Truncated is true when earlier output was dropped to keep the tail.
	Truncated bool
	// Isolation is the mode in force, as Mode.Describe writes it.
	Isolation string
	// Limits are the limits in force: defaults filled in and clamped to
	// the harness's own hard limits.
	Limits   Limits
	Duration time.Duration
}

// MaxOutput bounds the output a run keeps: a program that prints forever
// must not exhaust the harness's memory.
const MaxOutput = 64 << 10

// Limits bound what one run may use. A zero field takes DefaultLimits'
// value; a limit above the harness's own hard limit is lowered to it,
// since a process cannot raise its hard limits.
type Limits struct {
	// CPU is the CPU time each process may use (RLIMIT_CPU, whole seconds,
	// rounded up); past it the kernel sends SIGXCPU, then SIGKILL. Zero
	// means the run's timeout rounded up to whole seconds, plus one, so
	// the wall-clock deadline normally comes first.
	CPU time.Duration
	// AddressSpace is each process's virtual memory in bytes (RLIMIT_AS):
	// allocations beyond it fail (Python raises MemoryError).
	AddressSpace int64
	// Processes is the number of processes and threads the program's user
	// may have (RLIMIT_NPROC), which bounds a fork bomb. It counts per
	// user: the namespaced modes give every run a fresh user namespace, so
	// there it is per run; in mode none it counts every process of the
	// program's user (nobody when the harness runs as root, else the
	// harness's own user) on the machine, bubblewrap runs' pid 1s among
	// them until the machine's init reaps them.
	Processes int
	// FileSize is the largest file the program may write, in bytes
	// (RLIMIT_FSIZE; past it SIGXFSZ, which Python ignores and turns into
	// OSError "File too large"). Under bwrap it also bounds each private
	// temporary directory (/tmp, /var/tmp, …) as a whole.
	FileSize int64
	// Output is the total the program may write to stdout and stderr
	// together; past it the run is killed and OutputExceeded set.
	Output int64
}

// DefaultLimits are the limits Run applies. Core dumps are always off.
var DefaultLimits = Limits{
	AddressSpace: 1 << 30,
	Processes:    64,
	FileSize:     64 << 20,
	Output:       16 << 20,
}

// withDefaults fills zero fields and rejects negative ones.
func (l Limits) withDefaults(timeout time.Duration) (Limits, error) {
	for _, f := range []struct {
		name string
		v    int64
	}{{"CPU", int64(l.CPU)}, {"AddressSpace", l.AddressSpace}, {"Processes", int64(l.Processes)}, {"FileSize", l.FileSize}, {"Output", l.Output}} {
		if f.v < 0 {
			return l, fmt.Errorf("sandbox: Limits.%s is negative (%d); use zero for the default", f.name, f.v)
		}
	}
	if l.CPU == 0 {
		l.CPU = ceilSecond(timeout) + time.Second
	}
	l.CPU = ceilSecond(l.CPU)
	if l.AddressSpace == 0 {
		l.AddressSpace = DefaultLimits.AddressSpace
	}
	if l.Processes == 0 {
		l.Processes = DefaultLimits.Processes
	}
	if l.FileSize == 0 {
		l.FileSize = DefaultLimits.FileSize
	}
	if l.Output == 0 {
		l.Output = DefaultLimits.Output
	}
	return l, nil
}

func ceilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}

// FormatSize writes a byte count as "16 MiB", "1 GiB" or "1500 bytes".
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

var allowUnisolated atomic.Bool

// AllowUnisolated says whether Run may run programs without isolation
// when neither bwrap nor namespaces work (or ModeVariable pins none).
// It is false by default, so that a machine without bubblewrap fails
// loudly rather than running model-written code in the open. Set it once,
// from an explicit option, before the first run.
func AllowUnisolated(allow bool) { allowUnisolated.Store(allow) }

var selected struct {
	once sync.Once
	mode Mode
	why  string // why the stronger modes were passed over
	err  error
}

// Isolation returns the mode Run uses, choosing it on the first call:
// the one ModeVariable names, else the strongest that works. When it
// returns None, Run refuses unless AllowUnisolated(true) was called.
func Isolation() (Mode, error) {
	selected.once.Do(func() {
		selected.mode, selected.why, selected.err = choose()
	})
	return selected.mode, selected.err
}

func choose() (Mode, string, error) {
	if v, ok := os.LookupEnv(ModeVariable); ok && v != "" {
		m := Mode(v)
		switch m {
		case Bwrap, Netns:
			if err := Available(m); err != nil {
				return None, "", fmt.Errorf("sandbox: %s=%s, but %s does not work here: %w", ModeVariable, v, v, err)
			}
			return m, "", nil
		case None:
			return None, ModeVariable + "=none", nil
		}
		return None, "", fmt.Errorf("sandbox: %s=%q: want bwrap, netns or none (or unset it to use the strongest that works)", ModeVariable, v)
	}
	var why []string
	for _, m := range []Mode{Bwrap, Netns} {
		err := Available(m)
		if err == nil {
			return m, "", nil
		}
		why = append(why, fmt.Sprintf("%s: %v", m, err))
	}
	return None, strings.Join(why, "; "), nil
}

var probes = map[Mode]*struct {
	once sync.Once
	err  error
}{Bwrap: {}, Netns: {}, None: {}}

// Available reports whether mode m works here (nil) or why not. The
// answer comes from running `true` under m once per process.
func Available(m Mode) error {
	p, ok := probes[m]
	if !ok {
		return fmt.Errorf("sandbox: unknown mode %q: want bwrap, netns or none", m)
	}
	p.once.Do(func() { p.err = probe(m) })
	return p.err
}

// errRefused explains a refused unisolated run.
func errRefused(why string) error {
	if why == "" {
		why = "no isolation was chosen"
	}
	return fmt.Errorf("sandbox: refusing to run model-written code unisolated (%s): install bubblewrap (apt-get install bubblewrap, or make browser-deps), or, to run it with resource limits only, opt out explicitly: -fb.allow-unisolated (FEATHER_FB_ALLOW_UNISOLATED=true) for go test, --allow-unisolated for feather check", why)
}

// Run runs name with args under DefaultLimits; see RunWithLimits.
func Run(ctx context.Context, files Files, timeout time.Duration, name string, args ...string) (Result, error) {
	return RunWithLimits(ctx, files, timeout, Limits{}, name, args...)
}

// RunWithLimits writes files into a new temporary directory and runs
// name (looked up on PATH as the sandbox sees it, or an absolute path)
// with args there, in the mode Isolation chooses, with PATH as the only
// environment variable, stdin empty and lim applied. The whole process
// tree is killed when timeout passes, ctx ends, the output exceeds
// lim.Output, or the program exits, so background children do not linger.
//
// In the namespaced modes it returns only once every process of the run
// is gone. A non-zero exit, a timeout or a limit is a Result, not an
// error; errors are the harness's own failures (no isolation and no
// opt-out, no temporary directory, program or prlimit not found, a
// process of the run that SIGKILL did not end within 30 seconds) and the
// cancellation of ctx.
func RunWithLimits(ctx context.Context, files Files, timeout time.Duration, lim Limits, name string, args ...string) (Result, error) {
	m, err := Isolation()
	if err != nil {
		return Result{}, err
	}
	return runMode(ctx, m, selected.why, files, timeout, lim, name, args)
}

// runMode is RunWithLimits in a given mode; why says why a run in mode
// None is unisolated, for the refusal.
func runMode(ctx context.Context, m Mode, why string, files Files, timeout time.Duration, lim Limits, name string, args []string) (Result, error) {
	if timeout <= 0 {
		return Result{}, fmt.Errorf("sandbox: timeout must be positive, not %v", timeout)
	}
	if m == None && !allowUnisolated.Load() {
		return Result{}, errRefused(why)
	}
	lim, err := lim.withDefaults(timeout)
	if err != nil {
		return Result{}, err
	}
	for n := range files {
		if n == "" || n != filepath.Base(n) || n == "." || n == ".." {
			return Result{}, fmt.Errorf("sandbox: file name %q must be a plain name without directories", n)
		}
	}
	return runIn(ctx, m, files, timeout, lim, name, args, false)
}

// capped keeps the last max bytes written to it and reports, once, when
// more than limit bytes have been written in all.
type capped struct {
	mu        sync.Mutex
	buf       []byte
	max       int
	truncated bool
	total     int64
	limit     int64
	exceeded  chan struct{}
}

func newCapped(limit int64) *capped {
	return &capped{max: MaxOutput, limit: limit, exceeded: make(chan struct{})}
}

var errOutputExceeded = errors.New("output limit exceeded")

// Write keeps p's bytes up to the limit; past it, it closes exceeded and
// fails so the copy stops reading.
func (t *capped) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	var err error
	if room := t.limit - t.total; int64(n) > room {
		p, err = p[:room], errOutputExceeded
		close(t.exceeded)
	}
	t.total += int64(len(p))
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.truncated = true
	}
	if err != nil {
		return len(p), err
	}
	return n, nil
}

func (t *capped) isExceeded() bool {
	select {
	case <-t.exceeded:
		return true
	default:
		return false
	}
}

func (t *capped) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "\uFFFD")
}

// relative rewrites paths inside the run's directory (as the host and as
// the program see it) relative to it, so output is the same run to run.
func relative(out string, dirs ...string) string {
	for _, d := range dirs {
		out = strings.ReplaceAll(out, d+string(os.PathSeparator), "")
	}
	return out
}

// ErrUnsupported is returned on systems without Linux namespaces.
var ErrUnsupported = errors.New("sandbox: running model-written code needs Linux (namespaces, process groups and waitid)")
