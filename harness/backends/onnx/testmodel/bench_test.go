package testmodel_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

func BenchmarkPerfFixtureBuild(b *testing.B) {
	for b.Loop() {
		dir := filepath.Join(b.TempDir(), "perf")
		m, err := testmodel.Build(dir, testmodel.PerfFixture())
		if err != nil {
			b.Fatal(err)
		}
		st, err := os.Stat(m.File)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(m.ParamCount()), "params")
		b.ReportMetric(float64(st.Size())/1e6, "MB")
	}
}

// The reference forward pass on the smoke shape, 64 tokens.
func BenchmarkReferenceLogits(b *testing.B) {
	m, err := testmodel.Build(filepath.Join(b.TempDir(), "m"), testmodel.SmokeConfig())
	if err != nil {
		b.Fatal(err)
	}
	ids := make([]int, 64)
	for i := range ids {
		ids[i] = (i*37 + 5) % m.Config.Vocab
	}
	for b.Loop() {
		m.Logits(ids)
	}
}
