package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "summary.md")
	require.NoError(t, Write(p, []byte("first")))
	require.NoError(t, Write(p, []byte("second")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "second", string(got))
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	require.NoError(t, Write(p, []byte("old")))
	// A directory in the way makes the rename fail.
	target := filepath.Join(dir, "taken")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(target, "x"), nil, 0o644))
	err := Write(target, []byte("new"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writing "+target)
	got, _ := os.ReadFile(p)
	assert.Equal(t, "old", string(got))
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 2, "the temporary file is removed")
}
