// Package llamatest is the tests' way to ask for llama.cpp: it loads the
// library or skips (fails under make test's FEATHER_REQUIRE_DEPS) with the
// loader's instructions, as orttest does for ONNX Runtime.
package llamatest

import (
	"testing"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/internal/testenv"
)

// Require loads llama.cpp or skips (fails) the test saying why.
func Require(t testing.TB) {
	t.Helper()
	if err := llamalib.Init(); err != nil {
		testenv.Missing(t, "llama.cpp unavailable: %v", err)
	}
}
