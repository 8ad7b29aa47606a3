// Package orttest is the tests' way to ask for ONNX Runtime: it loads the
// library or skips (fails under make test's FEATHER_REQUIRE_DEPS) with the
// loader's instructions. It lives beside ortlib so that internal/testenv,
// which every package's tests may use, depends on no backend.
package orttest

import (
	"testing"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
	"github.com/feather-eval/feather/internal/testenv"
)

// Require loads ONNX Runtime or skips (fails) the test saying why.
func Require(t testing.TB) {
	t.Helper()
	if err := ortlib.Init(); err != nil {
		testenv.Missing(t, "ONNX Runtime unavailable: %v", err)
	}
}
