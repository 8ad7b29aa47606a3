package llamacpp

import (
	"context"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/lm"
)

// requests is the model as package local prepares its requests: scoring
// and generation follow its rules, with the model's vocabulary and this
// engine.
func (m *Model) requests() local.Model {
	return local.Model{
		Backend: Name, Name: m.info.Name, Closed: m.lib == nil,
		Tokenizer: localTokenizer{m}, Prefix: m.prefix, Context: m.ctxLen,
		Template: m.tmpl, NoTemplate: "its GGUF has no tokenizer.chat_template",
		ScoreSeqs: m.scoreSeqs, DecodeSeqs: m.decodeSeqs,
	}
}

// localTokenizer is the model's vocabulary, through llama.cpp, as
// package local uses it: text is encoded without BOS or EOS
// (special-token text read as those tokens), a raw prompt with the ones
// the vocabulary asks for, and decoded text leaves control tokens out.
type localTokenizer struct{ m *Model }

func (v localTokenizer) Encode(text string) ([]int, error)       { return v.m.encode(text) }
func (v localTokenizer) EncodePrompt(text string) ([]int, error) { return v.m.Tokenize(text, true) }
func (v localTokenizer) Decode(ids []int) (string, error)        { return v.m.detokenize(ids) }

// LogLikelihood scores each continuation given its context by package
// local's rule (local.Model.LogLikelihood), as the onnx backend does:
// [prefix] + context + continuation, the prefix BOS (EOS when the
// vocabulary has none), left-truncated to MaxLength or the model's
// context.
func (m *Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	return m.requests().LogLikelihood(ctx, reqs, opt)
}

// RollingLogLikelihood scores every token of each text exactly once, in
// lm.RollingWindows' windows (local.Model.RollingLogLikelihood).
func (m *Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	return m.requests().RollingLogLikelihood(ctx, texts, opt)
}
