//go:build !openrouter

package feather_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backends"
	"github.com/feather-eval/feather/harness/backends/catalog"
)

func init() {
	backends.Unavailable("openrouter", "live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY")
}

func TestOpenRouterNeedsItsTag(t *testing.T) {
	_, err := backends.Open(context.Background(), catalog.Entry{Key: "fable-5", Backend: catalog.OpenRouter, Model: "anthropic/claude-fable-5"})
	assert.ErrorIs(t, err, backends.ErrUnavailable)
	assert.EqualError(t, err, `model "fable-5": backend unavailable in this build: live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY`)
}
