package onnx

import (
	"context"
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/smoke"
)

// openBuiltin opens a model feather builds itself. "smoke" is a tiny
// deterministic model, written to the cache on first use: its numbers
// measure the harness, not a language model.
func openBuiltin(ctx context.Context, name string, opt Options) (*Model, error) {
	if name != "smoke" {
		return nil, fmt.Errorf("unknown builtin %q; the onnx backend has \"smoke\"", name)
	}
	dir := smoke.Dir()
	if err := smoke.Ensure(dir); err != nil {
		return nil, fmt.Errorf("building the smoke model in %s: %w", dir, err)
	}
	if opt.Name == "" {
		opt.Name = "smoke (built-in test model)"
	}
	m, err := Open(ctx, dir, opt)
	if err != nil {
		return nil, err
	}
	m.info.Smoke = true
	return m, nil
}
