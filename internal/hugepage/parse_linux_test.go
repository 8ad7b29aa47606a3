package hugepage

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smaps is /proc/self/smaps as Linux 6 writes it, trimmed to the keys
// parse reads plus a few it skips (VmFlags is not numeric).
const smaps = `55d0c0000000-55d0c0800000 rw-p 00000000 00:00 0 
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:         0 kB
VmFlags: rd wr mr mw me ac
55d0c1000000-55d0c1400000 rw-p 00000000 00:00 0                          [heap]
Size:               4096 kB
Rss:                4000 kB
AnonHugePages:         0 kB
7f0000000000-7f0004000000 rw-p 00000000 00:00 0 
Size:              65536 kB
Rss:                1024 kB
AnonHugePages:         0 kB
7f1000000000-7f1000400000 rw-p 00000000 00:00 0 
Size:               4096 kB
Rss:                4096 kB
AnonHugePages:      4096 kB
7f2000000000-7f2000800000 r--p 00001000 08:01 1234                       /usr/lib/libonnxruntime.so.1
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:         0 kB
7f3000000000-7f3000800000 rw-p 00000000 08:01 99                         /tmp/model.onnx (deleted)
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:         0 kB
7f4000000000-7f4000100000 rw-p 00000000 00:00 0 
Size:               1024 kB
Rss:                1024 kB
AnonHugePages:         0 kB
7ffd00000000-7ffd00800000 rw-p 00000000 00:00 0                          [stack]
Size:               8192 kB
Rss:                8192 kB
AnonHugePages:         0 kB
`

func TestParseAndEligible(t *testing.T) {
	maps, err := parse(strings.NewReader(smaps))
	require.NoError(t, err)
	require.Len(t, maps, 8)
	assert.Equal(t, mapping{start: 0x55d0c0000000, end: 0x55d0c0800000, perms: "rw-p", inode: "0", rss: 8192 << 10}, maps[0])
	assert.Equal(t, "/tmp/model.onnx (deleted)", maps[5].path)
	for i, want := range []struct {
		eligible bool
		why      string
	}{
		{true, "private anonymous, resident, small pages"},
		{true, "the brk heap, 98% resident"},
		{false, "a sparse reservation: collapsing would fill it"},
		{false, "already huge"},
		{false, "a library's read-only text"},
		{false, "a file mapping"},
		{false, "smaller than a huge page"},
		{false, "a thread stack"},
	} {
		assert.Equal(t, want.eligible, maps[i].eligible(), "mapping %d: %s", i, want.why)
	}
}

func TestParseRefusesGarbage(t *testing.T) {
	_, err := parse(strings.NewReader("not smaps at all\n"))
	assert.EqualError(t, err, `smaps: unexpected line "not smaps at all"`)
}
