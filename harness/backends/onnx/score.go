package onnx

import (
	"context"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
)

// requests is the model as package local prepares its requests: scoring
// and generation follow its rules, with the model's tokenizer and this
// engine.
func (m *Model) requests() local.Model {
	return local.Model{
		Backend: Name, Name: m.info.Name, Closed: len(m.runners) == 0,
		Tokenizer: localTokenizer{m.tok}, Prefix: m.prefix, Context: m.ctxLen,
		Template: m.tmpl, NoTemplate: "its tokenizer config has none",
		ScoreSeqs: m.scoreSeqs,
		DecodeSeqs: func(ctx context.Context, seqs []local.GenSeq) ([]local.GenOut, error) {
			return m.decodeSeqs(ctx, seqs, nil)
		},
	}
}

// localTokenizer is the model's Hugging Face tokenizer as package local
// uses it: text is encoded without special tokens, a raw prompt with the
// tokenizer's own, and decoded text leaves them out.
type localTokenizer struct{ tok *tokenizer.Tokenizer }

func (v localTokenizer) Encode(text string) ([]int, error) {
	return v.tok.Encode(text, false), nil
}

func (v localTokenizer) EncodePrompt(text string) ([]int, error) {
	return v.tok.Encode(text, true), nil
}

func (v localTokenizer) Decode(ids []int) (string, error) {
	return v.tok.Decode(ids, true), nil
}

// LogLikelihood scores each continuation given its context by package
// local's rule (local.Model.LogLikelihood): [prefix] + context +
// continuation, the prefix BOS (EOS when the tokenizer has none),
// left-truncated to MaxLength or the model's context.
func (m *Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	return m.requests().LogLikelihood(ctx, reqs, opt)
}

// RollingLogLikelihood scores every token of each text exactly once, in
// lm.RollingWindows' windows (local.Model.RollingLogLikelihood).
func (m *Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	return m.requests().RollingLogLikelihood(ctx, texts, opt)
}
