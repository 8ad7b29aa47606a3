package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// teardownLimit bounds each step of a run's teardown: bubblewrap's report
// of its pid 1, the death of the namespace's processes after SIGKILL, and
// the sweep for any left. It is generous because a loaded machine can take
// seconds to let 64 killed processes exit; only a process the kernel cannot
// kill would reach it, and Run reports that as an error.
const teardownLimit = 30 * time.Second

// nsID identifies a namespace while it exists: its nsfs device and inode.
type nsID struct{ dev, ino uint64 }

func statNS(path string) (nsID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nsID{}, err
	}
	return nsID{st.Dev, st.Ino}, nil
}

func fstatNS(fd int) (nsID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nsID{}, err
	}
	return nsID{st.Dev, st.Ino}, nil
}

// pidNS is a run's pid namespace, held open so that its inode, which the
// sweep looks for, cannot pass to another namespace in the meantime.
type pidNS struct {
	f    *os.File
	id   nsID
	self nsID // the harness's own pid namespace
}

// openPidNS opens the pid namespace of process pid, which must be a
// namespace nested in the harness's own: sweeping the harness's namespace
// would kill every process of the machine the harness can.
func openPidNS(pid int) (*pidNS, error) {
	self, err := statNS("/proc/self/ns/pid")
	if err != nil {
		return nil, err
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	if err != nil {
		return nil, err
	}
	id, err := fstatNS(int(f.Fd()))
	if err == nil && !nestedIn(int(f.Fd()), self, self) {
		err = fmt.Errorf("pid namespace of process %d is not nested in the harness's", pid)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return &pidNS{f: f, id: id, self: self}, nil
}

func (ns *pidNS) close() {
	if ns != nil {
		ns.f.Close()
	}
}

// String names the namespace as /proc/<pid>/ns/pid reads.
func (ns *pidNS) String() string { return "pid:[" + strconv.FormatUint(ns.id.ino, 10) + "]" }

// nestedIn reports whether the namespace open on fd has target among its
// ancestors, walking up until it meets target or stop (the harness's own
// namespace, above which nothing of a run lies). fd stays open.
func nestedIn(fd int, target, stop nsID) bool {
	cur := fd
	defer func() {
		if cur != fd {
			unix.Close(cur)
		}
	}()
	for range 32 { // the kernel nests pid namespaces 32 deep at most
		parent, err := unix.IoctlRetInt(cur, unix.NS_GET_PARENT)
		if err != nil {
			return false
		}
		if cur != fd {
			unix.Close(cur)
		}
		cur = parent
		id, err := fstatNS(cur)
		if err != nil {
			return false
		}
		if id == target {
			return true
		}
		if id == stop {
			return false
		}
	}
	return false
}

// holds reports whether process pid lies in ns or in a namespace nested
// in it (a program may make its own).
func (ns *pidNS) holds(pid int) bool {
	path := "/proc/" + strconv.Itoa(pid) + "/ns/pid"
	id, err := statNS(path)
	if err != nil || id == ns.self {
		return false
	}
	if id == ns.id {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return nestedIn(int(f.Fd()), ns.id, ns.self)
}

// members lists the live processes in ns; zombies, already dead, are left
// to their reaper.
func (ns *pidNS) members() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && ns.holds(pid) && alive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive reports whether pid is a process that has not exited (a zombie
// or a dead task has).
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// sweep kills every live process in ns until none is left or limit
// passes, and returns those still alive then. Each is signalled through a
// pidfd taken after its membership was checked again, so a pid reused in
// between cannot be hit.
func (ns *pidNS) sweep(limit time.Duration) []int {
	deadline := time.Now().Add(limit)
	pause := 5 * time.Millisecond
	for {
		pids := ns.members()
		if len(pids) == 0 || !time.Now().Before(deadline) {
			return pids
		}
		for _, pid := range pids {
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			if ns.holds(pid) {
				unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// awaitPidfd waits until the process behind pidfd fd has exited, or limit
// passes. A pid namespace's init exits only once every other process of
// the namespace is gone, so for an init this waits for the namespace.
func awaitPidfd(fd int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left.Milliseconds())+1)
		if n > 0 {
			return true
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return false
		}
	}
}

// bwrapInit tracks bubblewrap's pid 1, which --new-session puts outside
// the run's process group. bwrap reports its pid on the info pipe and then
// waits on the block pipe before it starts the program: the harness
// checks that the pid is the outer bwrap's child (so not a pid reused
// after pid 1 died), takes a pidfd on it and its namespace, and only then
// lets the program start. So pid 1 is known for certain however late the
// report is read, and a run killed before that never starts the program.
type bwrapInit struct {
	outer int // the outer bwrap: the harness's child, not reaped before the teardown ends
	info  *os.File
	block *os.File
	done  chan struct{}

	mu       sync.Mutex
	held     bool // the run is being killed: never let the program start
	released bool
	pid      int // pid 1 as bwrap reported it, 0 if it did not
	fd       int // pidfd of pid 1, -1 when not verified
	ns       *pidNS
	err      error // why pid 1 could not be verified, when that may leave it alive
}

// bwrapPipes are the info and block pipes of a bwrap run.
type bwrapPipes struct {
	infoR, infoW *os.File
	// blockW is the harness's end; blockRW, bwrap's, reads the same pipe
	// but is open for writing too, so pid 1 never sees end-of-file: only
	// the harness's byte lets the program start, not the harness's death
	// or a failed handshake.
	blockW, blockRW *os.File
}

func newBwrapPipes() (*bwrapPipes, error) {
	p := &bwrapPipes{}
	var err error
	if p.infoR, p.infoW, err = os.Pipe(); err != nil {
		return nil, err
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		p.close()
		return nil, err
	}
	p.blockW = blockW
	// Reopened through /proc without O_NONBLOCK: a non-blocking read
	// would return at once and let the program start.
	fd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(int(blockR.Fd())), unix.O_RDWR|unix.O_CLOEXEC, 0)
	blockR.Close()
	if err != nil {
		p.close()
		return nil, fmt.Errorf("reopening bwrap's block pipe: %w", err)
	}
	p.blockRW = os.NewFile(uintptr(fd), "bwrap-block")
	return p, nil
}

// childInfo and childBlock are bwrap's ends (nil without bwrap).
func (p *bwrapPipes) childInfo() *os.File {
	if p == nil {
		return nil
	}
	return p.infoW
}

func (p *bwrapPipes) childBlock() *os.File {
	if p == nil {
		return nil
	}
	return p.blockRW
}

// started closes bwrap's ends in the harness once bwrap has them.
func (p *bwrapPipes) started() {
	if p != nil {
		p.infoW.Close()
		p.blockRW.Close()
	}
}

func (p *bwrapPipes) close() {
	for _, f := range []*os.File{p.infoR, p.infoW, p.blockW, p.blockRW} {
		if f != nil {
			f.Close()
		}
	}
}

func watchBwrapInit(outer int, info, block *os.File) *bwrapInit {
	b := &bwrapInit{outer: outer, info: info, block: block, fd: -1, done: make(chan struct{})}
	go b.handshake()
	return b
}

func (b *bwrapInit) handshake() {
	defer close(b.done)
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	// No report means bwrap failed before it made pid 1 (its message is in
	// the output) or was killed first; a pid 1 it had cloned then waits
	// for it forever, before setting up or running anything.
	if json.NewDecoder(b.info).Decode(&info) != nil || info.ChildPID <= 0 {
		return
	}
	b.mu.Lock()
	b.pid = info.ChildPID
	b.mu.Unlock()
	fd, err := unix.PidfdOpen(info.ChildPID, 0)
	if err != nil {
		// Gone and reaped: a namespace's init is reaped only once the
		// namespace is empty.
		return
	}
	if ppid(info.ChildPID) != b.outer {
		// pid 1 was reaped (then its pid may have been reused) or the outer
		// bwrap died before this read. Pid 1 cannot have run the program,
		// which waits for the release below; it is left only if something
		// else killed the outer bwrap.
		unix.Close(fd)
		if sig, ok := killedBy(b.outer); ok {
			b.fail(fmt.Errorf("bubblewrap was killed by %s before its pid 1 (pid %d) could be verified; that process may be left, blocked before the program", unix.SignalName(sig), info.ChildPID))
		}
		return
	}
	ns, nsErr := openPidNS(info.ChildPID)
	// The pidfd still names a process (a zombie at worst), so the pid was
	// not reused while its parent and namespace were read.
	if unix.PidfdSendSignal(fd, 0, nil, 0) != nil {
		unix.Close(fd)
		ns.close()
		return
	}
	if nsErr != nil {
		ns = nil // the pidfd alone still waits for the namespace
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.fd, b.ns = fd, ns
	if !b.held {
		if _, err := b.block.Write([]byte{1}); err == nil {
			b.released = true
		}
	}
}

func (b *bwrapInit) fail(err error) {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
}

// hold stops the program from starting if it has not, and waits for the
// handshake: the outer bwrap must not be killed before pid 1 is known.
func (b *bwrapInit) hold() {
	b.mu.Lock()
	b.held = true
	b.mu.Unlock()
	select {
	case <-b.done:
	case <-time.After(teardownLimit):
		b.info.Close() // stop the decoder
		<-b.done
		b.mu.Lock()
		if b.fd < 0 && b.err == nil {
			b.err = fmt.Errorf("bubblewrap did not report its pid 1 within %v", teardownLimit)
		}
		b.mu.Unlock()
	}
}

// kill sends SIGKILL to pid 1, which takes its whole namespace with it.
func (b *bwrapInit) kill() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fd >= 0 {
		unix.PidfdSendSignal(b.fd, unix.SIGKILL, nil, 0)
	}
}

// finish kills pid 1 and waits until it, and so its namespace, is gone,
// then sweeps the namespace for anything left; the error says what
// survived.
func (b *bwrapInit) finish() error {
	b.hold()
	b.kill()
	b.mu.Lock()
	fd, ns, err, pid := b.fd, b.ns, b.err, b.pid
	b.fd, b.ns = -1, nil
	b.mu.Unlock()
	if fd < 0 {
		return err
	}
	defer unix.Close(fd)
	defer ns.close()
	if !awaitPidfd(fd, teardownLimit) {
		err = fmt.Errorf("bubblewrap's pid 1 (pid %d) was still alive %v after SIGKILL", pid, teardownLimit)
	}
	if ns != nil {
		if left := ns.sweep(teardownLimit); len(left) > 0 {
			err = errors.Join(err, survivorsError(ns, left))
		}
	}
	return err
}

func survivorsError(ns *pidNS, pids []int) error {
	return fmt.Errorf("%d processes of the run (pids %v, %s) were still alive %v after SIGKILL", len(pids), pids, ns, teardownLimit)
}

// ppid is pid's parent as /proc reads it, or 0.
func ppid(pid int) int {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// killedBy reports the signal that ended the harness's child pid, if one
// did, without reaping it.
func killedBy(pid int) (unix.Signal, bool) {
	var info unix.Siginfo
	if unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) != nil {
		return 0, false
	}
	const cldKilled, cldDumped = 2, 3 // si_code values of SIGCHLD
	if info.Code != cldKilled && info.Code != cldDumped {
		return 0, false
	}
	// The kernel's siginfo_t: si_signo, si_errno, si_code, then the union
	// (aligned to a pointer: offset 16 on 64-bit, 12 on 32-bit) whose
	// SIGCHLD member is si_pid, si_uid, si_status.
	union := uintptr(3 * 4)
	if unsafe.Sizeof(uintptr(0)) == 8 {
		union = 4 * 4
	}
	status := *(*int32)(unsafe.Add(unsafe.Pointer(&info), union+8))
	return unix.Signal(status), true
}
