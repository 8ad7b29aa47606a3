//go:build openrouter

package feather_test

import (
	"context"

	"github.com/feather-eval/feather/harness/backends"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/lm"
)

// Live OpenRouter calls: built only with -tags openrouter, so a plain
// `go test` never spends money or needs a key. The key is read from
// OPENROUTER_API_KEY at each call.
func init() {
	backends.Register(catalog.OpenRouter, func(_ context.Context, e catalog.Entry) (lm.Model, error) {
		return openai.Open(e, apiOptions())
	})
}
