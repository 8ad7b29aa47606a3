//go:build cuda

package onnx

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// TestCUDAProvider runs the designed model on the GPU when the loaded ONNX
// Runtime has the CUDA provider, and otherwise checks the message that
// says how to get one.
func TestCUDAProvider(t *testing.T) {
	orttest.Require(t)
	bg := bigram(t)
	m, err := Open(context.Background(), bg.Dir, Options{Provider: ProviderCUDA})
	if err != nil {
		lib, _ := ortlib.Loaded()
		require.True(t, strings.HasPrefix(err.Error(), "the ONNX Runtime library "+lib+" has no usable CUDA execution provider ("), err.Error())
		assert.True(t, strings.HasSuffix(err.Error(), "the onnxruntime-node build `make deps` provisions is CPU-only: point ONNXRUNTIME_LIB at libonnxruntime.so.1 from a GPU build of ONNX Runtime >= 1.24 (with libonnxruntime_providers_cuda.so beside it) and make sure CUDA and cuDNN are installed"), err.Error())
		return
	}
	defer m.Close()
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: chainPrompt, MaxNewTokens: 5}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	assert.Equal(t, m.tok.Decode(chainTokens, true), res[0].Text)
	ll, err := m.LogLikelihood(context.Background(), llCases, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, req := range llCases {
		ctx, cont := encodePair(t, m, req.Context, req.Continuation)
		want, _ := bg.ContinuationLogProb(append([]int{m.prefix}, ctx...), cont)
		assert.InDelta(t, want, ll[i].LogProb, designedTol, "request %d", i)
	}
}
