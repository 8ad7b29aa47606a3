package testmodel_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/cachedir"
	"github.com/feather-eval/feather/harness/onnx/testmodel"
	"github.com/feather-eval/feather/harness/testenv"
)

func TestSmokeDir(t *testing.T) {
	t.Setenv(cachedir.Env, "/cache")
	assert.Equal(t, "/cache/models/feather-smoke-v1", testmodel.SmokeDir())
}

func TestSmokeBuildsOnceAndCompletely(t *testing.T) {
	testenv.ORT(t)
	dir := filepath.Join(t.TempDir(), "models", "feather-smoke-v1")
	require.NoError(t, testmodel.Smoke(dir))

	b, err := testmodel.ReadBuiltin(dir)
	require.NoError(t, err)
	require.NotNil(t, b)
	assert.Equal(t, "feather-smoke", b.Name)
	assert.Equal(t, 1, b.Version)
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
	st, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx"))
	require.NoError(t, err)
	past := time.Unix(1_000_000_000, 0)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "onnx", "model.onnx"), past, past))
	require.NoError(t, testmodel.Smoke(dir))
	st2, err := os.Stat(filepath.Join(dir, "onnx", "model.onnx"))
	require.NoError(t, err)
	assert.Equal(t, past, st2.ModTime())
	assert.Equal(t, st.Size(), st2.Size())

	// It is the model SmokeConfig describes, and ORT runs it.
	m, err := testmodel.Build(filepath.Join(t.TempDir(), "same"), testmodel.SmokeConfig())
	require.NoError(t, err)
	s := openSession(t, m, filepath.Join(dir, "onnx", "model.onnx"))
	ids := []int{testmodel.BOSID, 300, 301, 302, 303}
	want := m.Logits(ids)
	got, _ := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(len(ids))}, [][]int64{seqPositions(0, len(ids))}, nil)
	for p := range ids {
		assert.LessOrEqual(t, maxDiff(want[p], got[0][p]), tol)
	}
}

func TestSmokeRefusesAnIncompleteFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "feather-smoke-v1")
	require.NoError(t, testmodel.Smoke(dir))
	// A corrupted file makes the folder incomplete; Smoke says so and
	// leaves the folder alone rather than deleting what is there.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte("{}"), 0o644))
	err := testmodel.Smoke(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exists but is not a complete feather-smoke v1 model")
	assert.Contains(t, err.Error(), "remove the folder and run again")
	data, err := os.ReadFile(filepath.Join(dir, "tokenizer.json"))
	require.NoError(t, err)
	assert.Equal(t, "{}", string(data))

	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, testmodel.Smoke(dir), "rebuilds after removal")
}

func TestReadBuiltinOfOrdinaryFolder(t *testing.T) {
	b, err := testmodel.ReadBuiltin(t.TempDir())
	assert.NoError(t, err)
	assert.Nil(t, b)
}
