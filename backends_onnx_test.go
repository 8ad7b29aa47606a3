package feather_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// TestONNXBackendIsRegistered opens the built-in smoke model through the
// registry, as the suites do, and uses both capabilities once.
func TestONNXBackendIsRegistered(t *testing.T) {
	orttest.Require(t)
	t.Setenv("FEATHER_CACHE", t.TempDir())
	m, err := catalog.Open(context.Background(), catalog.Entry{Key: "smoke", Backend: onnx.Name, Settings: &onnx.Settings{Builtin: "smoke"}})
	require.NoError(t, err)
	defer m.Close()
	assert.True(t, m.Info().Smoke)
	assert.Equal(t, onnx.Name, m.Info().Backend)

	gen, err := m.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "Answer: ", MaxNewTokens: 3, Sampling: lm.Greedy()}})
	require.NoError(t, err)
	require.NoError(t, gen[0].Err)
	assert.Equal(t, "Answer: ", gen[0].PromptSent)

	ll, err := m.(lm.Scorer).LogLikelihood(context.Background(), []lm.LLRequest{{Context: "The sky is", Continuation: " blue"}}, lm.ScoreOptions{MaxLength: 512})
	require.NoError(t, err)
	require.NoError(t, ll[0].Err)
	assert.Less(t, ll[0].LogProb, 0.0)
}
