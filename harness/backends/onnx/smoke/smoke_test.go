package smoke_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/smoke"
	"github.com/feather-eval/feather/internal/cachedir"
)

// The smoke model's files never change within a version: a cached folder
// of that version must be what this code would build. A change here needs
// a new smoke.Version.
func TestFilesArePinned(t *testing.T) {
	want := map[string]string{
		"config.json":             "dfaf1440ffe136719f01d81f5007e822417c61d2d4fc5d67a9c2cf4d8eced711",
		"feather_builtin.json":    "2262deb77f0b715c697de4fc309657f1d2aef946d547ddcb3fc62307d19d9c14",
		"generation_config.json":  "5b6926b315ba13b8d02529e464924be305cc1ebbed1bed6df2f3017e35babb0b",
		"onnx/model.onnx":         "1480c56e3bf8bd6127c0e35e1f603ad37b3a31c7b90017ae4d0339343f28e95e",
		"special_tokens_map.json": "7420fb1004148bc44feb9cba3a72ee140f9bfa9ffa79a5e2e6d5c1612266f4ac",
		"tokenizer.json":          "ec134fe100a7030c6de1866c99240774f644245ce0e8262d2a3bf369fdae0bca",
		"tokenizer_config.json":   "a1a772380ca364c1aabb2ce26cba1772bfd90926cb0c33391e2f47f1882f2cc1",
	}
	dir := filepath.Join(t.TempDir(), "feather-smoke-v3")
	require.NoError(t, smoke.Ensure(dir))
	got := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		got[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return err
	}))
	assert.Equal(t, want, got)
}

func TestDir(t *testing.T) {
	t.Setenv(cachedir.Env, "/cache")
	assert.Equal(t, "/cache/models/feather-smoke-v3", smoke.Dir())
}

func TestEnsureBuildsOnceAndCompletely(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models", "feather-smoke-v3")
	require.NoError(t, smoke.Ensure(dir))

	b, err := smoke.ReadBuiltin(dir)
	require.NoError(t, err)
	require.NotNil(t, b)
	assert.Equal(t, "feather-smoke", b.Name)
	assert.Equal(t, 3, b.Version)
	assert.True(t, b.Smoke)
	var names []string
	for n := range b.Files {
		names = append(names, n)
	}
	assert.ElementsMatch(t, []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "onnx/model.onnx"}, names)
	ents, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no temporary folder is left beside the model")

	// A second call finds it complete and writes nothing.
	model := filepath.Join(dir, "onnx", "model.onnx")
	st, err := os.Stat(model)
	require.NoError(t, err)
	past := time.Unix(1_000_000_000, 0)
	require.NoError(t, os.Chtimes(model, past, past))
	require.NoError(t, smoke.Ensure(dir))
	st2, err := os.Stat(model)
	require.NoError(t, err)
	assert.Equal(t, past, st2.ModTime())
	assert.Equal(t, st.Size(), st2.Size())
}

func TestEnsureRefusesAnIncompleteFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "feather-smoke-v3")
	require.NoError(t, smoke.Ensure(dir))
	// A corrupted file makes the folder incomplete; Ensure says so and
	// leaves the folder alone rather than deleting what is there.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644))
	err := smoke.Ensure(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exists but is not a complete feather-smoke v3 model")
	assert.Contains(t, err.Error(), "remove the folder and run again")
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))

	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, smoke.Ensure(dir), "rebuilds after removal")
}

func TestReadBuiltinOfOrdinaryFolder(t *testing.T) {
	b, err := smoke.ReadBuiltin(t.TempDir())
	assert.NoError(t, err)
	assert.Nil(t, b)
}

// Building the smoke model from nothing (what `make bench` pays once).
func BenchmarkEnsureBuild(b *testing.B) {
	for b.Loop() {
		if err := smoke.Ensure(filepath.Join(b.TempDir(), "smoke")); err != nil {
			b.Fatal(err)
		}
	}
}

// Finding the smoke model already built: every later run.
func BenchmarkEnsureCached(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "smoke")
	if err := smoke.Ensure(dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := smoke.Ensure(dir); err != nil {
			b.Fatal(err)
		}
	}
}
