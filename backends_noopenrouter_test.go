//go:build !openrouter

package feather_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backend"
	"github.com/feather-eval/feather/harness/catalog"
)

func init() {
	backend.Unavailable("openrouter", "live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY")
}

func TestOpenRouterNeedsItsTag(t *testing.T) {
	_, err := backend.Open(context.Background(), catalog.Entry{Key: "fable-5", Backend: catalog.OpenRouter, Model: "anthropic/claude-fable-5"})
	assert.ErrorIs(t, err, backend.ErrUnavailable)
	assert.EqualError(t, err, `model "fable-5": backend unavailable in this build: live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY`)
}
