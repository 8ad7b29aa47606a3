package orttest

import (
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// Optimized is the graph ONNX Runtime runs for model (its fusions, with
// every optimization on), read back without weights: what tests check a
// graph's form against.
func Optimized(t testing.TB, model []byte, inputs, outputs []string) *onnxpb.Graph {
	t.Helper()
	Require(t)
	so, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer so.Destroy()
	path := filepath.Join(t.TempDir(), "optimized.onnx")
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		t.Fatal(err)
	}
	if err := so.SetOptimizedModelFilePath(path); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(model, inputs, outputs, so)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Destroy(); err != nil {
		t.Fatal(err)
	}
	m, err := onnxpb.ReadFile(path, onnxpb.ReadOptions{SkipData: true})
	if err != nil {
		t.Fatal(err)
	}
	return m.Graph
}
