package featherbench

// The backends the catalogs here name register themselves when linked in.
import (
	_ "github.com/feather-eval/feather/harness/backends/httpapi"
	_ "github.com/feather-eval/feather/harness/backends/onnx"
	_ "github.com/feather-eval/feather/harness/backends/openai"
)
