package respcache_test

import (
	"encoding/json"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/lm"
)

func ptr[T any](v T) *T { return &v }

// goldenEntry and goldenRequest are fixed inputs whose key is pinned: a
// change to either's key means every stored entry is lost.
func goldenEntry() catalog.Entry {
	return catalog.Entry{
		Key: "fable", Backend: openai.OpenRouterName, Enabled: true, Name: "Claude Fable 5",
		MaxTokens: 4096, Sampling: &lm.Sampling{Temperature: ptr(0.7), Seed: ptr(42)},
		Settings: &openai.OpenRouterSettings{
			Model: "anthropic/claude-fable-5", ProviderOrder: []string{"anthropic", "google-vertex"},
			Effort: "high", StructuredOutputs: true,
		},
	}
}

// goldenSettings are goldenEntry's settings, to change.
func goldenSettings(e *catalog.Entry) *openai.OpenRouterSettings {
	return e.Settings.(*openai.OpenRouterSettings)
}

func goldenRequest() lm.GenerateRequest {
	return lm.GenerateRequest{
		Messages: []lm.Message{
			{Role: "system", Content: "Answer briefly."},
			{Role: "user", Content: "Is 2 < 3 && 3 > 2? Reply \"yes\" or \"no\"."},
		},
		Tools: []lm.Tool{{
			Name: "lookup", Description: "Look a word up.",
			Parameters: json.RawMessage(`{ "type": "object", "properties": { "word": {"type": "string"} }, "required": ["word"] }`),
		}},
		MaxNewTokens:   256,
		Sampling:       lm.Greedy(),
		ResponseFormat: json.RawMessage(`{"title": "verdict", "type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "number"}}}`),
	}
}
