package onnx

import (
	"context"

	"github.com/feather-eval/feather/harness/lm"
)

// Generate continues each request greedily (local.Model.Generate).
// Messages go through the chat template with the generation prompt and
// are encoded without special tokens (the template already wrote BOS, if
// the model uses one); a raw Prompt is encoded with the tokenizer's own
// special-token rule, as transformers' tokenizer(prompt) does:
// Llama-style tokenizers add BOS, GPT-2's adds nothing. Generation stops
// at any EOS id of config.json and generation_config.json (the
// tokenizer's EOS when they name none), at MaxNewTokens, or when the
// model's context is full; MaxNewTokens 0 means no cap but the context.
// TTFT and Wall are measured from the start of the request's batch.
// OutputTokens counts every generated token, a stopping EOS included;
// Text leaves special tokens out.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return m.requests().Generate(ctx, reqs)
}
