package main

// The backends catalogs may name register themselves when linked in.
import (
	_ "github.com/feather-eval/feather/harness/backends/httpapi"
	_ "github.com/feather-eval/feather/harness/backends/llamacpp"
	_ "github.com/feather-eval/feather/harness/backends/onnx"
	_ "github.com/feather-eval/feather/harness/backends/openai"
)
