package hugepage

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// size is a transparent huge page (x86-64 and arm64 with 4 KiB base pages).
const size = 2 << 20

// minResident is the share of a mapping that must be resident for it to
// be collapsed: collapsing fills every page of the range, which would
// turn a sparse reservation (the Go heap's arenas, thread stacks) into
// memory in use.
const minResident = 0.9

// Collapse advises MADV_HUGEPAGE on each private anonymous mapping of the
// process of at least one huge page that is almost all resident and not
// yet huge, except the one a fresh Go allocation lands in (the Go heap,
// where it grows; an older heap mapping elsewhere would be taken), then
// collapses it now (MADV_COLLAPSE, Linux 6.1) rather than whenever the
// kernel's background collapser reaches it.
func Collapse() Result {
	heap := goHeapAddr() // before smaps is read: the heap may grow for it
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return Result{Err: err}
	}
	defer f.Close()
	maps, err := parse(f)
	if err != nil {
		return Result{Err: err}
	}
	var r Result
	for _, m := range maps {
		start, end := (m.start+size-1)&^(size-1), m.end&^(size-1)
		if !m.eligible() || end <= start || m.start <= heap && heap < m.end {
			continue
		}
		n := end - start
		r.Advised += int64(n)
		if err := madvise(start, n, unix.MADV_HUGEPAGE); err != nil {
			r.note(fmt.Errorf("MADV_HUGEPAGE: %w", err))
			continue
		}
		if err := madvise(start, n, unix.MADV_COLLAPSE); err != nil {
			r.note(fmt.Errorf("MADV_COLLAPSE: %w", err))
			continue
		}
		r.Collapsed += int64(n)
	}
	return r
}

// goHeapAddr is an address inside the Go heap, where it grows. The Go
// heap is the Go runtime's to page: its scavenger returns memory in pieces
// far smaller than a huge page. Advising it also cost time for nothing:
// in the benchmark process that had just built the SmolLM2-shaped fixture
// (a 1.6 GB heap) opening the model took 9.8-10.0 s with the heap
// collapsed and 6.4-7.0 s without (decoding the perf fixture no faster),
// and on the perf fixture MADV_COLLAPSE refused a 172 MB heap (EINVAL) in
// 8 of 13 runs.
func goHeapAddr() uintptr {
	b := make([]byte, 1<<20) // beyond what the compiler puts on a goroutine's stack
	return uintptr(unsafe.Pointer(&b[0]))
}

func (r *Result) note(err error) {
	if r.Err == nil {
		r.Err = err
	}
}

func madvise(addr, n uintptr, advice int) error {
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, n, uintptr(advice)); errno != 0 {
		return errno
	}
	return nil
}

// mapping is one entry of /proc/self/smaps.
type mapping struct {
	start, end    uintptr
	perms, path   string
	inode         string
	rss, anonHuge int64 // bytes
}

// eligible: private, writable, anonymous (or the brk heap), at least one
// huge page, almost all resident, not already huge.
func (m mapping) eligible() bool {
	anon := m.inode == "0" && (m.path == "" || m.path == "[heap]")
	length := int64(m.end - m.start)
	return anon && m.perms == "rw-p" && length >= size &&
		float64(m.rss) >= minResident*float64(length) && m.anonHuge < m.rss
}

// parse reads smaps: a header line per mapping ("start-end perms offset
// dev inode [path]") followed by "Key:   value kB" lines.
func parse(r io.Reader) ([]mapping, error) {
	var out []mapping
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if key, ok := strings.CutSuffix(fields[0], ":"); ok && len(out) > 0 {
			if len(fields) < 2 {
				continue
			}
			v, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				continue // VmFlags and other non-numeric lines
			}
			switch key {
			case "Rss":
				out[len(out)-1].rss = v << 10
			case "AnonHugePages":
				out[len(out)-1].anonHuge = v << 10
			}
			continue
		}
		if len(fields) < 5 {
			return nil, fmt.Errorf("smaps: unexpected line %q", line)
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("smaps: unexpected line %q", line)
		}
		m := mapping{start: uintptr(start), end: uintptr(end), perms: fields[1], inode: fields[4]}
		if len(fields) > 5 {
			m.path = strings.Join(fields[5:], " ")
		}
		out = append(out, m)
	}
	return out, sc.Err()
}
