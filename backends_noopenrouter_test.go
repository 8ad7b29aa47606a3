//go:build !openrouter

package feather_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
)

func TestOpenRouterNeedsItsTag(t *testing.T) {
	_, err := catalog.Open(context.Background(), catalog.Entry{Key: "fable-5", Backend: openai.OpenRouterName,
		Settings: &openai.OpenRouterSettings{Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic"}}})
	assert.ErrorIs(t, err, catalog.ErrUnavailable)
	assert.EqualError(t, err, `model "fable-5": backend unavailable in this build: live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY`)
}
