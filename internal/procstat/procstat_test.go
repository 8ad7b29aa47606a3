package procstat_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/procstat"
)

var sink []byte

// TestRSSSeesMemoryTouched: 64 MiB written rises the resident size by
// about as much, read for this process and by pid.
func TestRSSSeesMemoryTouched(t *testing.T) {
	debug.FreeOSMemory() // what earlier tests freed leaves the count
	before, err := procstat.RSS(procstat.Self)
	require.NoError(t, err)
	sink = make([]byte, 64<<20)
	for i := range sink {
		sink[i] = 1
	}
	after, err := procstat.RSS(os.Getpid())
	require.NoError(t, err)
	assert.InDelta(t, 64<<20, after-before, 8<<20)
	sink = nil

	_, err = procstat.RSS(1 << 30)
	assert.Error(t, err, "no such process")
}

func TestOpenFilesCountsDescriptors(t *testing.T) {
	before, err := procstat.OpenFiles(procstat.Self)
	require.NoError(t, err)
	f, err := os.Create(filepath.Join(t.TempDir(), "x"))
	require.NoError(t, err)
	n, err := procstat.OpenFiles(procstat.Self)
	require.NoError(t, err)
	assert.Equal(t, before+1, n)
	require.NoError(t, f.Close())
	n, err = procstat.OpenFiles(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, before, n)
}

// TestSamplerFollowsAChild: readings of another process come with the
// run's progress, and end with an error when that process exits.
func TestSamplerFollowsAChild(t *testing.T) {
	cmd := exec.Command("sleep", "0.3")
	require.NoError(t, cmd.Start())
	var progress atomic.Int64
	s := procstat.Start(cmd.Process.Pid, 20*time.Millisecond, func() int { return int(progress.Add(1)) })
	require.NoError(t, cmd.Wait())
	time.Sleep(60 * time.Millisecond)
	series, err := s.Stop()
	assert.Error(t, err, "the process is gone")
	require.GreaterOrEqual(t, len(series), 5)
	for i, x := range series {
		assert.Equal(t, i+1, x.Progress)
		assert.Positive(t, x.RSS)
		if i > 0 {
			assert.Greater(t, x.At, series[i-1].At)
		}
	}
}

func TestSeries(t *testing.T) {
	mb := int64(1 << 20)
	flat := procstat.Series{{Progress: 0, RSS: 40 * mb}, {Progress: 10, RSS: 50 * mb}, {Progress: 20, RSS: 45 * mb}, {Progress: 30, RSS: 52 * mb},
		{Progress: 40, RSS: 47 * mb}, {Progress: 50, RSS: 51 * mb}, {Progress: 60, RSS: 46 * mb}, {Progress: 70, RSS: 53 * mb}}
	assert.Equal(t, 53*mb, flat.Peak())
	assert.Equal(t, 13*mb, flat.Growth(), "the last quarter's peak over the first quarter's low")
	assert.Equal(t, flat[3:], flat.From(25))
	assert.Nil(t, flat.From(100))
	assert.Zero(t, flat.From(60).Growth(), "too few readings to tell")
}
