package diskfull_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/diskfull"
)

// TestDiskFillsUp: files share the room; the write that does not fit
// writes what does and fails with ENOSPC naming its file; truncating and
// growing make room again.
func TestDiskFillsUp(t *testing.T) {
	dir := t.TempDir()
	d := diskfull.New(10)
	a, err := d.OpenAppend(filepath.Join(dir, "a"))
	require.NoError(t, err)
	defer a.Close()
	b, err := d.OpenAppend(filepath.Join(dir, "b"))
	require.NoError(t, err)
	defer b.Close()

	n, err := a.Write([]byte("123456"))
	require.NoError(t, err)
	assert.Equal(t, 6, n)
	assert.Equal(t, int64(4), d.Free())

	n, err = b.Write([]byte("abcdef"))
	assert.Equal(t, 4, n, "what fits is written")
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "write", pe.Op)
	assert.Equal(t, b.Name(), pe.Path)
	assert.True(t, errors.Is(err, syscall.ENOSPC))
	assert.EqualError(t, err, "write "+b.Name()+": no space left on device", "as os.File says it")
	assert.Zero(t, d.Free())

	require.NoError(t, b.Truncate(1))
	assert.Equal(t, int64(3), d.Free(), "truncating frees what it cuts")
	n, err = b.Write([]byte("xyz!"))
	assert.Equal(t, 3, n)
	assert.ErrorIs(t, err, syscall.ENOSPC)

	d.Grow(100)
	_, err = b.Write([]byte("!"))
	require.NoError(t, err)
	got, err := os.ReadFile(b.Name())
	require.NoError(t, err)
	assert.Equal(t, "axyz!", string(got))
	assert.Equal(t, int64(99), d.Free())

	require.NoError(t, a.Truncate(10))
	assert.Equal(t, int64(95), d.Free(), "growing a file takes room")
	assert.ErrorIs(t, a.Truncate(1000), syscall.ENOSPC)
	assert.Equal(t, int64(95), d.Free(), "a growth that does not fit takes nothing")
}
