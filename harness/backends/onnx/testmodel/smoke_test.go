package testmodel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/smoke"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// SmokeConfig is the built-in model: testmodel builds the same bytes as
// harness/backends/onnx/smoke, so the reference forward pass checks what
// `make bench` runs, and ORT agrees with it.
func TestSmokeConfigIsTheBuiltinModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "feather-smoke-v3")
	require.NoError(t, smoke.Ensure(dir))
	m, err := testmodel.Build(filepath.Join(t.TempDir(), "same"), testmodel.SmokeConfig())
	require.NoError(t, err)
	b, err := smoke.ReadBuiltin(dir)
	require.NoError(t, err)
	for name := range b.Files {
		want, err := os.ReadFile(filepath.Join(m.Dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		require.NoError(t, err)
		assert.True(t, string(want) == string(got), "%s differs from testmodel's build", name)
	}

	orttest.Require(t)
	s := openSession(t, m, filepath.Join(dir, "onnx", "model.onnx"))
	ids := []int{testmodel.BOSID, 300, 301, 302, 303}
	want := m.Logits(ids)
	got, _ := s.step(t, [][]int64{ids64(ids)}, [][]int64{ones(len(ids))}, [][]int64{seqPositions(0, len(ids))}, nil)
	for p := range ids {
		assert.LessOrEqual(t, maxDiff(want[p], got[0][p]), tol)
	}
}
