// Package llamacpp runs GGUF models in process with llama.cpp (through
// llamalib): exact log-likelihoods and rolling log-likelihoods
// (lm.Scorer), many sequences per decode, a prefix they share decoded
// once into cache cells that belong to all of them; and greedy generation
// (lm.Generator) with the chat template the GGUF carries, rendered by
// feather's chat package. Text is tokenized by the model's own
// vocabulary, through llama.cpp.
//
// A file is checked by package gguf before llama.cpp reads it, and every
// argument before each call: an abort inside llama.cpp would end the
// whole process.
package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
)

const (
	// DefaultContext caps the context length of a model whose training
	// context is longer, when n_ctx is not set: the KV cache is allocated
	// up front, and a 40k-token cache of a 0.6B model takes 4.7 GB.
	DefaultContext = 4096
	// DefaultBatch is the most tokens one decode carries (llama.cpp's
	// n_ubatch default).
	DefaultBatch = 512
	// sequences is how many sequences one decode may carry.
	sequences = 64
)

// Options choose how a GGUF file is run. The zero value runs it with the
// defaults.
type Options struct {
	// Key and Name label the model in results (Name defaults to the
	// file's name).
	Key, Name string
	// Context is the longest sequence in tokens; 0 takes the model's
	// training context, at most DefaultContext.
	Context int
	// Threads run ggml's CPU kernels; 0 uses every core.
	Threads int
	// Batch is the most tokens one decode carries; 0 means DefaultBatch.
	Batch int
	// Chat is "yes", "no" or "auto" (default: yes when the GGUF has a
	// chat template).
	Chat string
	// Float32 keeps attention in float32: a float32 KV cache and no
	// flash attention (whose graph takes keys and values in float16).
	// llama.cpp's defaults move log-probabilities by about 1e-3; this is
	// for comparisons with an engine that computes in float32.
	Float32 bool
}

// Model is a loaded GGUF file. It implements lm.Model, lm.Generator and
// lm.Scorer and is safe for concurrent use: calls take turns on one
// llama.cpp context.
type Model struct {
	info lm.Info
	file *gguf.File
	lib  *llamalib.Model
	opt  Options
	tmpl *chat.Template // nil unless chat is on

	// prefix starts every scored sequence: BOS, or EOS without a BOS.
	prefix int
	ctxLen int

	mu sync.Mutex
	cx *llamalib.Context // made on first use, so tokenizing alone allocates no cache
}

var (
	_ lm.Model     = (*Model)(nil)
	_ lm.Generator = (*Model)(nil)
	_ lm.Scorer    = (*Model)(nil)
)

// Open loads the GGUF file at path: its header is checked first (package
// gguf), then llama.cpp loads it.
func Open(ctx context.Context, path string, opt Options) (*Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model file: %w", err)
	}
	arch, err := f.Architecture()
	if err != nil {
		return nil, err
	}
	lib, err := llamalib.OpenModel(path)
	if err != nil {
		if strings.Contains(err.Error(), "unknown model architecture") {
			return nil, fmt.Errorf("%s: architecture %q (general.architecture) is not one llama.cpp %s runs, the release feather binds (@node-llama-cpp/linux-x64 %s); convert the model to an architecture it knows, or run it with another backend", path, arch, llamalib.Release, llamalib.PackageVersion)
		}
		return nil, err
	}
	m := &Model{file: f, lib: lib, opt: opt}
	if err := m.setup(path, arch); err != nil {
		lib.Close()
		return nil, err
	}
	return m, nil
}

func (o Options) check() error {
	switch {
	case o.Context < 0:
		return fmt.Errorf("context length %d must be 0 (the model's) or more", o.Context)
	case o.Threads < 0:
		return fmt.Errorf("threads %d must be 0 (all cores) or more", o.Threads)
	case o.Batch < 0:
		return fmt.Errorf("batch %d must be 0 (%d tokens) or more", o.Batch, DefaultBatch)
	}
	switch o.Chat {
	case "", "auto", "yes", "no":
		return nil
	}
	return fmt.Errorf("chat setting %q must be yes, no or auto", o.Chat)
}

// setup reads what the model needs beyond llama.cpp: the context length,
// the scoring prefix, the chat template and the description.
func (m *Model) setup(path, arch string) error {
	train := m.lib.TrainContext()
	switch {
	case m.opt.Context > 0 && train > 0 && m.opt.Context > train:
		return fmt.Errorf("%s: n_ctx %d is longer than the model's training context, %d tokens (%s.context_length); set it to %d or less", path, m.opt.Context, train, arch, train)
	case m.opt.Context > 0:
		m.ctxLen = m.opt.Context
	case train > 0:
		m.ctxLen = min(train, DefaultContext)
	default:
		m.ctxLen = DefaultContext
	}
	prefix, err := m.scoringPrefix(path)
	if err != nil {
		return err
	}
	m.prefix = prefix
	useChat, err := m.loadChat(path)
	if err != nil {
		return err
	}
	name := m.opt.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	var params int64
	for _, t := range m.file.Tensors {
		params += t.Elements()
	}
	m.info = lm.Info{
		Key:           m.opt.Key,
		Name:          name,
		Backend:       Name,
		Path:          path,
		Params:        params,
		ContextLength: m.ctxLen,
		Chat:          useChat,
	}
	return nil
}

// scoringPrefix is the μBench prefix: the tokenizer's BOS, or its EOS
// when it has none. It is read from the file, not from llama.cpp, which
// fills in a default BOS for a vocabulary that names none.
func (m *Model) scoringPrefix(path string) (int, error) {
	for _, key := range []string{"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"} {
		v, ok := m.file.Get(key)
		if !ok {
			continue
		}
		id, isInt := v.(uint32)
		if !isInt || int(id) >= m.lib.VocabSize() {
			return 0, fmt.Errorf("%s: %s is %v; it must be a token id below the vocabulary size %d", path, key, v, m.lib.VocabSize())
		}
		return int(id), nil
	}
	return 0, fmt.Errorf("%s: the vocabulary names no BOS or EOS token (tokenizer.ggml.bos_token_id, tokenizer.ggml.eos_token_id); scoring needs one to start every sequence", path)
}

// loadChat applies the chat setting to tokenizer.chat_template: yes needs
// a template, auto uses one when the file has it, no never does.
func (m *Model) loadChat(path string) (bool, error) {
	if m.opt.Chat == "no" {
		return false, nil
	}
	v, ok := m.file.Get("tokenizer.chat_template")
	src, isStr := v.(string)
	switch {
	case ok && !isStr:
		return false, fmt.Errorf("%s: tokenizer.chat_template must be a string", path)
	case !ok || src == "":
		if m.opt.Chat == "yes" {
			return false, fmt.Errorf("%s: chat is \"yes\" but the file has no chat template (tokenizer.chat_template); set chat to \"no\" or \"auto\", or use a chat model's GGUF", path)
		}
		return false, nil
	}
	bos, err := m.specialText("tokenizer.ggml.bos_token_id")
	if err != nil {
		return false, err
	}
	eos, err := m.specialText("tokenizer.ggml.eos_token_id")
	if err != nil {
		return false, err
	}
	t, err := chat.New(src, bos, eos)
	if err != nil {
		return false, fmt.Errorf("%s: tokenizer.chat_template: %w", path, err)
	}
	m.tmpl = t
	return true, nil
}

// specialText is the text of the special token key names, "" when the
// file names none (the template then sees it undefined, as transformers
// leaves it).
func (m *Model) specialText(key string) (string, error) {
	v, ok := m.file.Get(key)
	id, isInt := v.(uint32)
	if !ok || !isInt {
		return "", nil
	}
	return m.lib.Piece(int32(id), true)
}

// Info describes the model for results files.
func (m *Model) Info() lm.Info { return m.info }

// Close frees the context and the model. The model must not be in use.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	if m.cx != nil {
		errs = append(errs, m.cx.Close())
		m.cx = nil
	}
	if m.lib != nil {
		errs = append(errs, m.lib.Close())
		m.lib = nil
	}
	return errors.Join(errs...)
}

// context returns the llama.cpp context, made on first use; m.mu is held.
// Its KV cache holds the sequences decoded together: at least one
// sequence of the context length, at least DefaultContext tokens.
func (m *Model) context() (*llamalib.Context, error) {
	if m.lib == nil {
		return nil, local.ErrClosed
	}
	if m.cx != nil {
		return m.cx, nil
	}
	batch := m.opt.Batch
	if batch == 0 {
		batch = DefaultBatch
	}
	cx, err := m.lib.NewContext(llamalib.ContextOptions{
		Size:             max(m.ctxLen, DefaultContext),
		Batch:            batch,
		Sequences:        min(sequences, batch), // llama.cpp needs a batch to hold an output per sequence
		Threads:          m.opt.Threads,
		F32Cache:         m.opt.Float32,
		NoFlashAttention: m.opt.Float32,
	})
	if err != nil {
		return nil, err
	}
	m.cx = cx
	return cx, nil
}

// encode tokenizes text with the model's vocabulary, special-token text
// (such as a chat template's <|im_start|>) read as those tokens, as
// Hugging Face tokenizers read it; no BOS or EOS is added.
func (m *Model) encode(text string) ([]int, error) {
	ids, err := m.lib.Tokenize(text, true)
	if err != nil {
		return nil, err
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out, nil
}

// Tokenize encodes text with the model's vocabulary; special adds BOS
// and EOS where the vocabulary asks for them (tokenizer.ggml.add_bos_token
// and add_eos_token), as add_special_tokens=True does.
func (m *Model) Tokenize(text string, special bool) ([]int, error) {
	if m.lib == nil {
		return nil, local.ErrClosed
	}
	ids, err := m.encode(text)
	if err != nil {
		return nil, err
	}
	if !special {
		return ids, nil
	}
	if m.lib.AddBOS() {
		if bos := m.lib.BOS(); bos >= 0 {
			ids = append([]int{int(bos)}, ids...)
		}
	}
	if m.lib.AddEOS() {
		if eos := m.lib.EOS(); eos >= 0 {
			ids = append(ids, int(eos))
		}
	}
	return ids, nil
}
