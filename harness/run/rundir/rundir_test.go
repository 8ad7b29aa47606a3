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

func TestExisting(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	first := New(root, time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC))
	p, err := first.Sub("featherbench")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(p, "results-20260704T101530Z.jsonl"), []byte("{}\n"), 0o644))

	for _, path := range []string{filepath.Join(root, "20260704T101530Z"), filepath.Join(root, "latest")} {
		d, err := Existing(path)
		require.NoError(t, err, path)
		assert.Equal(t, "20260704T101530Z", d.Stamp())
		got, err := d.Sub("featherbench")
		require.NoError(t, err)
		assert.Equal(t, p, got)
		assert.FileExists(t, filepath.Join(got, "results-20260704T101530Z.jsonl"), "continuing keeps what is there")
	}
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no new run directory: only the run and latest")

	for _, tc := range []struct{ path, want string }{
		{filepath.Join(root, "nope"), "-resume " + filepath.Join(root, "nope") + ": stat " + filepath.Join(root, "nope") + ": no such file or directory; pass a run directory such as results/20260704T101530Z"},
		{filepath.Join(p, "results-20260704T101530Z.jsonl"), "-resume " + filepath.Join(p, "results-20260704T101530Z.jsonl") + ": not a directory; pass a run directory such as results/20260704T101530Z"},
		{p, "-resume " + p + `: "featherbench" is not a run directory's name (a UTC stamp such as 20260704T101530Z); pass the directory a run printed as "results in …"`},
	} {
		_, err := Existing(tc.path)
		assert.EqualError(t, err, tc.want)
	}
}
