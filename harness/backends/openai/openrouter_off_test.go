//go:build !openrouter

package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
)

// Without the tag, openrouter entries still parse but do not open.
func TestOpenRouterUnavailableWithoutItsTag(t *testing.T) {
	e, err := parseEntry(`"model": "a/b", "provider_order": ["a"]`)
	require.NoError(t, err)
	_, err = catalog.Open(context.Background(), e)
	assert.ErrorIs(t, err, catalog.ErrUnavailable)
	assert.EqualError(t, err, `model "m": backend unavailable in this build: live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY`)
}
