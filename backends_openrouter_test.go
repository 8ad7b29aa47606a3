//go:build openrouter

package feather_test

import (
	"context"

	"github.com/feather-eval/feather/harness/backend"
	"github.com/feather-eval/feather/harness/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/openai"
)

// Live OpenRouter calls: built only with -tags openrouter, so a plain
// `go test` never spends money or needs a key. The key is read from
// OPENROUTER_API_KEY at each call.
func init() {
	backend.Register(catalog.OpenRouter, func(_ context.Context, e catalog.Entry) (lm.Model, error) {
		return openai.Open(e, apiOptions())
	})
}
