package hugepage

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// region finds the mapping that starts at addr in the process's smaps.
func region(t *testing.T, addr uintptr) mapping {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	maps, err := parse(f)
	require.NoError(t, err)
	for _, m := range maps {
		if m.start <= addr && addr < m.end {
			return m
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return mapping{}
}

// TestCollapse maps a resident region and a sparse one: the first ends up
// on huge pages, the second keeps what was resident, no more.
func TestCollapse(t *testing.T) {
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	// Each region sits between inaccessible huge pages of its own: the
	// kernel merges adjacent anonymous mappings of the same protection
	// into one, and a dense region merged with the sparse one (or another
	// neighbour) would be too little resident to be collapsed, as the
	// test saw once in CI.
	alloc := func(n int) []byte {
		b, err := unix.Mmap(-1, 0, n+2*size, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		require.NoError(t, err)
		t.Cleanup(func() { unix.Munmap(b) })
		b = b[size : size+n]
		require.NoError(t, unix.Mprotect(b, unix.PROT_READ|unix.PROT_WRITE))
		return b
	}
	dense, sparse := alloc(16*size), alloc(16*size)
	for i := range dense {
		dense[i] = byte(i)
	}
	sparse[0] = 1
	d, s := uintptr(unsafe.Pointer(&dense[0])), uintptr(unsafe.Pointer(&sparse[0]))
	require.Zero(t, region(t, d).anonHuge, "the kernel gave huge pages unasked")

	r := Collapse()
	if region(t, d).anonHuge == 0 {
		if errors.Is(r.Err, unix.EINVAL) {
			t.Skip("this kernel has no MADV_COLLAPSE (Linux 6.1)")
		}
		t.Fatalf("the dense region was not collapsed: %+v", r)
	}
	assert.GreaterOrEqual(t, r.Collapsed, int64(14*size), "the dense region's whole huge pages")
	assert.GreaterOrEqual(t, region(t, d).anonHuge, int64(14*size))
	assert.LessOrEqual(t, region(t, s).rss, int64(size), "the sparse region is not filled")
	for i := 0; i < len(dense); i += 4096 {
		require.Equal(t, byte(i), dense[i], "contents survive at %d", i)
	}
}

// TestCollapseLeavesGoHeap: resident memory of the Go heap, which
// Collapse would otherwise take, keeps its small pages.
func TestCollapseLeavesGoHeap(t *testing.T) {
	if mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages are off here (%q, %v)", mode, err)
	}
	heap := make([]byte, 128<<20)
	for i := range heap {
		heap[i] = byte(i)
	}
	a := uintptr(unsafe.Pointer(&heap[0]))
	before := region(t, a)
	require.True(t, before.eligible(), "the heap's mapping is one Collapse would take, but for being the heap: %+v", before)

	Collapse()
	assert.Equal(t, before.anonHuge, region(t, a).anonHuge, "the Go heap's huge pages")
	runtime.KeepAlive(heap)
}
