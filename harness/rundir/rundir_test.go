package rundir

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunDirsNeverCollide(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	now := time.Date(2026, 7, 4, 10, 15, 30, 0, time.FixedZone("x", 3600))

	a := New(root, now)
	pa, err := a.Path()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "20260704T091530Z"), pa, "stamps are UTC")
	require.NoError(t, os.WriteFile(filepath.Join(pa, "keep.txt"), []byte("first"), 0o644))

	b := New(root, now)
	pb, err := b.Path()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "20260704T091530Z-2"), pb)
	assert.Equal(t, "20260704T091530Z-2", b.Stamp())

	got, err := os.ReadFile(filepath.Join(pa, "keep.txt"))
	require.NoError(t, err)
	assert.Equal(t, "first", string(got), "an earlier run's files are untouched")

	target, err := os.Readlink(filepath.Join(root, "latest"))
	require.NoError(t, err)
	assert.Equal(t, "20260704T091530Z-2", target)

	sub, err := b.Sub("featherweight")
	require.NoError(t, err)
	assert.DirExists(t, sub)
}

func TestUnusedRunDirIsNotCreated(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	d := New(root, time.Now())
	assert.False(t, d.Created())
	assert.NoDirExists(t, root)
}
