//go:build openrouter

package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/lm"
)

// With the tag, openrouter entries open (nothing is sent until a request,
// so no key is needed here) and only generate.
func TestOpenRouterAvailableWithItsTag(t *testing.T) {
	t.Setenv(openai.OpenRouterBaseURLEnv, "")
	e, err := parseEntry(`"model": "a/b", "provider_order": ["a"]`)
	require.NoError(t, err)
	m, err := catalog.Open(context.Background(), e)
	require.NoError(t, err)
	defer m.Close()
	require.IsType(t, &openai.Model{}, m)
	assert.Equal(t, openai.OpenRouterBaseURL, m.(*openai.Model).BaseURL())
	_, scores := m.(lm.Scorer)
	assert.False(t, scores)
}
