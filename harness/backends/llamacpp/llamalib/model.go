package llamalib

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
)

// ErrClosed is returned by a method of a closed Model or Context.
var ErrClosed = errors.New("llamalib: use after Close")

// Model is a GGUF model loaded by llama.cpp with its vocabulary. Its
// methods are safe for concurrent use (llama.cpp's tokenizer is
// thread-safe); Close waits for calls in flight.
type Model struct {
	mu       sync.RWMutex
	path     string
	model    uintptr
	vocab    uintptr
	nVocab   int
	contexts int // open contexts, which use the model
}

// ggufMagic opens every GGUF file.
var ggufMagic = []byte("GGUF")

// OpenModel loads the GGUF file at path (loading the library first). It
// refuses what llama.cpp cannot run as a text decoder with a tokenizer.
func OpenModel(path string) (*Model, error) {
	if err := Init(); err != nil {
		return nil, err
	}
	if err := checkGGUF(path); err != nil {
		return nil, err
	}
	if strings.IndexByte(path, 0) >= 0 {
		return nil, fmt.Errorf("model path %q contains a NUL byte", path)
	}
	p := c.modelDefaults()
	mark := logs.mark()
	h := c.modelLoad(path, p)
	if h == 0 {
		return nil, fmt.Errorf("llama.cpp could not load %s%s", path, logs.since(mark))
	}
	m := &Model{path: path, model: h, vocab: c.modelVocab(h)}
	if err := m.check(); err != nil {
		c.modelFree(h)
		return nil, err
	}
	return m, nil
}

// checkGGUF refuses a path that is not a readable GGUF file before
// llama.cpp sees it, with an error that names the file.
func checkGGUF(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("model file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("model file: %w", err)
	}
	if st.IsDir() {
		return fmt.Errorf("model file %s is a folder; point at the .gguf file", path)
	}
	head := make([]byte, len(ggufMagic))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, ggufMagic) {
		return fmt.Errorf("%s is not a GGUF file: it does not start with the GGUF magic", path)
	}
	return nil
}

// check refuses models whose use could reach an abort: no vocabulary (the
// tokenizer asserts on one), or an encoder (llama_decode would run it as
// the wrong half).
func (m *Model) check() error {
	switch {
	case c.modelHasEncoder(m.model) || !c.modelHasDecoder(m.model):
		return fmt.Errorf("%s is not a decoder-only model (it has an encoder or no decoder); the llama.cpp backend runs text decoders", m.path)
	case c.vocabType(m.vocab) == vocabTypeNone:
		return fmt.Errorf("%s has no tokenizer vocabulary (tokenizer.ggml.model is missing or \"none\")", m.path)
	}
	m.nVocab = int(c.vocabNTokens(m.vocab))
	if m.nVocab <= 0 {
		return fmt.Errorf("%s has an empty vocabulary", m.path)
	}
	return nil
}

// Close frees the model. It fails while contexts made from it are open.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.model == 0 {
		return nil
	}
	if m.contexts > 0 {
		return fmt.Errorf("llamalib: model %s still has %d open contexts; close them first", m.path, m.contexts)
	}
	c.modelFree(m.model)
	m.model, m.vocab = 0, 0
	return nil
}

// Path is the file the model was loaded from.
func (m *Model) Path() string { return m.path }

// VocabSize is the number of token ids, and the length of a logits row.
func (m *Model) VocabSize() int { return m.nVocab }

// TrainContext is the context length the model was trained with.
func (m *Model) TrainContext() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.model == 0 {
		return 0
	}
	return int(c.modelNCtxTrain(m.model))
}

// BOS is the beginning-of-sequence token, -1 when there is none.
func (m *Model) BOS() int32 { return m.special(c.vocabBOS) }

// EOS is the end-of-sequence token, -1 when there is none.
func (m *Model) EOS() int32 { return m.special(c.vocabEOS) }

// EOT is the end-of-turn token, -1 when there is none.
func (m *Model) EOT() int32 { return m.special(c.vocabEOT) }

func (m *Model) special(fn func(uintptr) int32) int32 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.vocab == 0 {
		return tokenNull
	}
	return fn(m.vocab)
}

// AddBOS says whether the model's tokenizer starts a text with BOS
// (tokenizer.ggml.add_bos_token). Tokenize never adds it: the caller does.
func (m *Model) AddBOS() bool { return m.flag(c.vocabAddBOS) }

// AddEOS says whether the model's tokenizer ends a text with EOS
// (tokenizer.ggml.add_eos_token). Tokenize never adds it: the caller does.
func (m *Model) AddEOS() bool { return m.flag(c.vocabAddEOS) }

func (m *Model) flag(fn func(uintptr) bool) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.vocab != 0 && fn(m.vocab)
}

// IsEOG reports whether token ends generation (EOS, EOT and the other
// end-of-generation tokens the GGUF lists).
func (m *Model) IsEOG(token int32) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.vocab != 0 && c.vocabIsEOG(m.vocab, token)
}

// Meta returns the GGUF metadata value of key as llama.cpp prints it
// (e.g. "general.architecture", "tokenizer.chat_template"), and whether
// the key is there. Array values are not available this way.
func (m *Model) Meta(key string) (string, bool, error) {
	if strings.IndexByte(key, 0) >= 0 {
		return "", false, fmt.Errorf("llamalib: metadata key %q contains a NUL byte", key)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.model == 0 {
		return "", false, ErrClosed
	}
	buf := make([]byte, 256)
	for {
		n := c.modelMetaStr(m.model, key, &buf[0], uintptr(len(buf)))
		if n < 0 {
			return "", false, nil
		}
		if int(n) < len(buf) {
			return string(buf[:n]), true, nil
		}
		buf = make([]byte, int(n)+1) // snprintf said how long the value is
	}
}

// Tokenize encodes text with the model's tokenizer. parseSpecial makes
// special-token text (e.g. "<|endoftext|>") one token; otherwise it is
// encoded as plain text. No BOS or EOS is added (see AddBOS).
func (m *Model) Tokenize(text string, parseSpecial bool) ([]int32, error) {
	if len(text) >= math.MaxInt32 {
		return nil, fmt.Errorf("llamalib: text of %d bytes is too long to tokenize", len(text))
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.vocab == 0 {
		return nil, ErrClosed
	}
	in := append([]byte(text), 0) // never empty, so &in[0] is valid
	out := make([]int32, len(text)+2)
	for {
		n := c.tokenize(m.vocab, &in[0], int32(len(text)), &out[0], int32(len(out)), false, parseSpecial)
		switch {
		case n == math.MinInt32:
			return nil, fmt.Errorf("llamalib: tokenizing %d bytes overflows llama.cpp's token count", len(text))
		case n < 0:
			out = make([]int32, -n) // llama.cpp said how many tokens it needs
		default:
			return out[:n], nil
		}
	}
}

// checkTokens refuses ids outside the vocabulary: llama.cpp looks them up
// with std::vector::at, whose exception would abort the process.
func (m *Model) checkTokens(tokens []int32) error {
	for i, t := range tokens {
		if t < 0 || int(t) >= m.nVocab {
			return fmt.Errorf("llamalib: token %d (at %d) is outside the vocabulary [0, %d)", t, i, m.nVocab)
		}
	}
	return nil
}

// Detokenize decodes tokens to text. renderSpecial writes special tokens
// as their text; otherwise they are left out.
func (m *Model) Detokenize(tokens []int32, renderSpecial bool) (string, error) {
	if len(tokens) == 0 {
		return "", nil
	}
	if len(tokens) >= math.MaxInt32 {
		return "", fmt.Errorf("llamalib: %d tokens are too many to detokenize", len(tokens))
	}
	if err := m.checkTokens(tokens); err != nil {
		return "", err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.vocab == 0 {
		return "", ErrClosed
	}
	buf := make([]byte, 8*len(tokens)+16)
	for {
		n := c.detokenize(m.vocab, &tokens[0], int32(len(tokens)), &buf[0], int32(len(buf)), false, renderSpecial)
		if n >= 0 {
			return string(buf[:n]), nil
		}
		if n == math.MinInt32 {
			return "", fmt.Errorf("llamalib: detokenizing %d tokens overflows llama.cpp's text length", len(tokens))
		}
		buf = make([]byte, -n)
	}
}

// Piece is one token's text (its bytes, which need not be valid UTF-8 on
// their own). renderSpecial writes a special token's text; otherwise a
// special token's piece is empty.
func (m *Model) Piece(token int32, renderSpecial bool) (string, error) {
	if err := m.checkTokens([]int32{token}); err != nil {
		return "", err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.vocab == 0 {
		return "", ErrClosed
	}
	buf := make([]byte, 64)
	for {
		n := c.tokenToPiece(m.vocab, token, &buf[0], int32(len(buf)), 0, renderSpecial)
		if n >= 0 {
			return string(buf[:n]), nil
		}
		buf = make([]byte, -n)
	}
}
