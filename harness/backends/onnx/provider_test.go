//go:build !cuda

package onnx

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
)

func TestCUDANeedsTheTag(t *testing.T) {
	orttest.Require(t)
	_, err := Open(context.Background(), fixture(t, "llama-gqa").Dir, Options{Provider: ProviderCUDA})
	assert.EqualError(t, err, "provider \"cuda\" needs a build with CUDA support: run with `go test -tags cuda` (and point ONNXRUNTIME_LIB at a GPU build of ONNX Runtime)")
}
