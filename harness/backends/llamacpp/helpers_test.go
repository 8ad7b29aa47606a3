package llamacpp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/internal/testenv"
)

// fixtureDir holds the GGUF files the tests share, made once.
var fixtureDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llamacpp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureDir = dir
	code := m.Run()
	for _, r := range refs {
		r.cx.Close()
		r.m.Close()
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// smolVocab is SmolLM's vocabulary (49,152 tokens and its [PAD]):
// <|endoftext|> (id 0) is BOS and EOS, <|im_start|> 1, <|im_end|> 2.
const smolVocab = 49153

var (
	fixtureMu sync.Mutex
	fixtures  = map[string]string{}
)

// fixture is the path of a random two-layer model written as GGUF with
// a test tokenizer's vocabulary, built once per name: edit may change
// the checkpoint and the vocabulary before conversion.
func fixture(t *testing.T, name, tok string, ft gguf.FileType, edit func(*checkpoint.Checkpoint, *gguf.Vocab)) string {
	t.Helper()
	llamatest.Require(t)
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if p, ok := fixtures[name]; ok {
		return p
	}
	dir := testenv.Tokenizer(tok)
	if _, ok := testenv.NPMTokenizers[tok]; ok {
		dir = testenv.NPMTokenizer(t, tok)
	}
	v, err := gguf.LoadVocab(dir, "")
	require.NoError(t, err)
	ck, err := checkpoint.Random(checkpoint.Llama, checkpoint.Shape{Vocab: len(v.Tokens), Hidden: 32, Heads: 2, KVHeads: 1}, 11)
	require.NoError(t, err)
	if edit != nil {
		edit(ck, v)
	}
	b, err := gguf.FromCheckpoint(ck, v, ft)
	require.NoError(t, err)
	p := filepath.Join(fixtureDir, name+".gguf")
	require.NoError(t, b.WriteFile(p))
	fixtures[name] = p
	return p
}

// smol is the plain SmolLM-vocabulary fixture.
func smol(t *testing.T) string { return fixture(t, "smol", "smollm-135m", gguf.AllF32, nil) }

// chatML gives the fixture ChatML's template, as SmolLM-Instruct has.
func chatML(_ *checkpoint.Checkpoint, v *gguf.Vocab) { v.ChatTemplate = testmodel.ChatML }

// open opens path with exact arithmetic and one thread, closed when the
// test ends.
func open(t *testing.T, path string, opt llamacpp.Options) *llamacpp.Model {
	t.Helper()
	opt.Float32, opt.Threads = true, 1
	m, err := llamacpp.Open(context.Background(), path, opt)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// reference is a file opened directly through llamalib, with a context
// of one sequence computing in float32.
type reference struct {
	m  *llamalib.Model
	cx *llamalib.Context
}

// refs are the references made so far, one per file.
var refs = map[string]reference{}

// ref is path's reference, its context emptied.
func ref(t *testing.T, path string) reference {
	t.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	r, ok := refs[path]
	if !ok {
		m, err := llamalib.OpenModel(path)
		require.NoError(t, err)
		cx, err := m.NewContext(llamalib.ContextOptions{Size: 256, Batch: 256, Threads: 1, F32Cache: true, NoFlashAttention: true})
		require.NoError(t, err)
		r = reference{m, cx}
		refs[path] = r
	}
	require.NoError(t, r.cx.Clear())
	return r
}

// alone decodes tokens as one sequence in an empty cache, directly
// through llamalib, and returns the log-probability its last n tokens
// get: the reference the backend's batching, sharing and waves must meet.
func alone(t *testing.T, path string, tokens []int, n int) float64 {
	t.Helper()
	cx := ref(t, path).cx
	var b llamalib.Batch
	for i, tok := range tokens[:len(tokens)-1] {
		b.Add(int32(tok), i, i >= len(tokens)-1-n, 0)
	}
	require.NoError(t, cx.Decode(&b))
	lp := 0.0
	for j := len(tokens) - n; j < len(tokens); j++ {
		row, err := cx.Logits(j-1, nil)
		require.NoError(t, err)
		lp += testmodel.LogSoftmax(row)[tokens[j]]
	}
	return lp
}

// ids tokenizes text with path's vocabulary through llama.cpp.
func ids(t *testing.T, m *llamacpp.Model, text string) []int {
	t.Helper()
	out, err := m.Tokenize(text, false)
	require.NoError(t, err)
	return out
}
