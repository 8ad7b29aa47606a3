// Package local is what feather's local backends (onnx, llamacpp) share
// between the lm contract and their engines: how a scoring request
// becomes a token sequence (context and continuation split so that no
// token spans the boundary, the BOS prefix, left truncation, rolling
// windows) and a generation request a prompt (chat template or raw text,
// the token limit), how the engine's results become lm results; also
// the identity fields both backends' settings begin with, and the token
// order both engines find shared prefixes in. A backend brings its
// tokenizer and its engine; the rules a reader checks to trust a number
// are written once, here.
package local

import (
	"context"
	"errors"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
)

// ErrClosed is every call's error once the model is closed.
var ErrClosed = errors.New("the model is closed")

// Tokenizer is a model's vocabulary as requests use it.
type Tokenizer interface {
	// Encode tokenizes text as the model reads it, adding no BOS or EOS.
	Encode(text string) ([]int, error)
	// EncodePrompt tokenizes a raw prompt with the special tokens the
	// tokenizer adds to a text (BOS where the model uses one), as
	// transformers' tokenizer(prompt) does.
	EncodePrompt(text string) ([]int, error)
	// Decode is the text of generated tokens, special tokens left out.
	Decode(ids []int) (string, error)
}

// Model is a local model as its requests reach it: what the backend
// knows of it, and its engine.
type Model struct {
	// Backend (the catalog name) and Name (the model's) label messages.
	Backend, Name string
	// Closed makes every call fail with ErrClosed.
	Closed    bool
	Tokenizer Tokenizer
	// Prefix starts every scored sequence: BOS, or EOS when the
	// vocabulary has none.
	Prefix int
	// Context is the longest sequence in tokens, the prefix included.
	Context int
	// Template renders chat requests; nil when the model runs without
	// one, which NoTemplate says why ("its tokenizer config has none").
	Template   *chat.Template
	NoTemplate string
	// ScoreSeqs returns one result per sequence; progress, when set,
	// hears of the sequences done (lm.ScoreOptions.Progress).
	ScoreSeqs func(ctx context.Context, seqs []ScoreSeq, progress func(done, total int)) ([]SeqScore, error)
	// DecodeSeqs continues each prompt greedily.
	DecodeSeqs func(ctx context.Context, seqs []GenSeq) ([]GenOut, error)
}
