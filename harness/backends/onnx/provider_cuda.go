//go:build cuda

package onnx

import (
	"fmt"
	"strconv"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
)

// useProvider configures the execution provider; this build adds CUDA.
// The caches and logits stay in host memory, so every call copies them
// across; that keeps one code path for both providers.
func useProvider(so *ort.SessionOptions, provider string, deviceID int) error {
	switch provider {
	case "", ProviderCPU:
		return nil
	case ProviderCUDA:
	default:
		return fmt.Errorf("unknown provider %q; use %q or %q", provider, ProviderCPU, ProviderCUDA)
	}
	lib, _ := ortlib.Loaded()
	opts, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return noCUDA(lib, err)
	}
	defer opts.Destroy()
	// Update is where ONNX Runtime first loads the provider library.
	if err := opts.Update(map[string]string{"device_id": strconv.Itoa(deviceID)}); err != nil {
		return noCUDA(lib, err)
	}
	if err := so.AppendExecutionProviderCUDA(opts); err != nil {
		return noCUDA(lib, err)
	}
	return nil
}

func noCUDA(lib string, err error) error {
	return fmt.Errorf("the ONNX Runtime library %s has no usable CUDA execution provider (%v); the onnxruntime-node build `make deps` provisions is CPU-only: point %s at libonnxruntime.so.1 from a GPU build of ONNX Runtime >= 1.24 (with libonnxruntime_providers_cuda.so beside it) and make sure CUDA and cuDNN are installed", lib, err, ortlib.Env)
}
