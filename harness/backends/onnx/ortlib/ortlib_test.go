package ortlib

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLocateNonexistentOverride(t *testing.T) {
	t.Setenv("FEATHER_CACHE", "/cache")
	_, err := Locate(env(map[string]string{Env: "/nonexistent"}))
	require.Error(t, err)
	assert.Equal(t, "ONNXRUNTIME_LIB=/nonexistent: no such file. Point ONNXRUNTIME_LIB at libonnxruntime.so.1 from ONNX Runtime >= 1.24, or unset it to use the library `make deps` provisions at /cache/onnxruntime/1.24.3/libonnxruntime.so.1", err.Error())
}

func TestLocateDirectoryOverride(t *testing.T) {
	dir := t.TempDir()
	_, err := Locate(env(map[string]string{Env: dir}))
	require.Error(t, err)
	assert.Equal(t, "ONNXRUNTIME_LIB="+dir+" is a directory; it must name the library file itself (…/libonnxruntime.so.1)", err.Error())
}

func TestLocateMissingCache(t *testing.T) {
	t.Setenv("FEATHER_CACHE", "/empty-cache")
	_, err := Locate(env(nil))
	require.Error(t, err)
	assert.Equal(t, "ONNX Runtime library not found at /empty-cache/onnxruntime/1.24.3/libonnxruntime.so.1. Run `make deps` (it unpacks it from the onnxruntime-node 1.24.3 npm package), or set ONNXRUNTIME_LIB to libonnxruntime.so.1 from ONNX Runtime >= 1.24", err.Error())
}

func TestLocateOverrideWins(t *testing.T) {
	f := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o644))
	p, err := Locate(env(map[string]string{Env: f}))
	require.NoError(t, err)
	assert.Equal(t, f, p)
}

// TestInitRejectsNonLibrary loads a file that is not a shared library: the
// error must say what is wrong and how to fix it, and a later Init with a
// good path must still work (failures are not cached).
func TestInitRejectsNonLibrary(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	require.NoError(t, os.WriteFile(bad, []byte("not an ELF file"), 0o644))
	t.Setenv(Env, bad)
	err := Init()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot load "+bad+" as ONNX Runtime")
	assert.Contains(t, err.Error(), "Point ONNXRUNTIME_LIB at libonnxruntime.so.1, or unset it and run `make deps`")

	t.Setenv(Env, "")
	if _, err := Locate(os.Getenv); err != nil {
		t.Skipf("no provisioned library to retry with: %v", err)
	}
	require.NoError(t, Init())
	p, v := Loaded()
	assert.Equal(t, DefaultPath(), p)
	assert.Equal(t, PackageVersion, v)
}
