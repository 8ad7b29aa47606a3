//go:build !cuda

package onnx

import (
	"fmt"

	ort "github.com/yalue/onnxruntime_go"
)

// useProvider configures the execution provider. This build has the CPU
// provider only.
func useProvider(_ *ort.SessionOptions, provider string, _ int) error {
	switch provider {
	case "", ProviderCPU:
		return nil
	case ProviderCUDA:
		return fmt.Errorf("provider %q needs a build with CUDA support: run with `go test -tags cuda` (and point ONNXRUNTIME_LIB at a GPU build of ONNX Runtime)", provider)
	}
	return fmt.Errorf("unknown provider %q; use %q or %q", provider, ProviderCPU, ProviderCUDA)
}
