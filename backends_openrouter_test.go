//go:build openrouter

package feather_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/lm"
)

// With -tags openrouter the backend opens; nothing is sent until a
// request, so this needs no key.
func TestOpenRouterOpensWithItsTag(t *testing.T) {
	m, err := catalog.Open(context.Background(), catalog.Entry{Key: "fable-5", Backend: openai.OpenRouterName,
		Settings: &openai.OpenRouterSettings{Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic"}}})
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, lm.Info{Key: "fable-5", Backend: "openrouter", Path: "anthropic/claude-fable-5", Chat: true}, m.Info())
	_, scores := m.(lm.Scorer)
	assert.False(t, scores, "OpenRouter's providers return no prompt log-probs")
}
