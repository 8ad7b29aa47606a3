package llamacpp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// TestOpen: what a loaded file reports about itself.
func TestOpen(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{Key: "k"})
	assert.Equal(t, lm.Info{Key: "k", Name: "smol", Backend: "llamacpp", Path: path, Params: 3_168_992, ContextLength: 2048}, m.Info())
	named := open(t, path, llamacpp.Options{Name: "SmolLM-shaped", Context: 512})
	assert.Equal(t, "SmolLM-shaped", named.Info().Name)
	assert.Equal(t, 512, named.Info().ContextLength)

	require.NoError(t, m.Close())
	_, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "a"}})
	require.EqualError(t, err, "the model is closed")
	_, err = m.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a", Continuation: " b"}}, lm.ScoreOptions{})
	require.EqualError(t, err, "the model is closed")
	_, err = m.RollingLogLikelihood(context.Background(), []string{"a"}, lm.ScoreOptions{})
	require.EqualError(t, err, "the model is closed")
	_, err = m.Tokenize("a", false)
	require.EqualError(t, err, "the model is closed")
	require.NoError(t, m.Close(), "closing twice is fine")
}

// TestOpenRefuses: a file llama.cpp cannot run is an error that names
// it and says what is wrong, checked before llama.cpp reads it where
// feather can tell.
func TestOpenRefuses(t *testing.T) {
	good := smol(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.gguf")
	require.NoError(t, os.WriteFile(text, []byte("these are notes, not a model\n"), 0o644))
	data, err := os.ReadFile(good)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.gguf")
	require.NoError(t, os.WriteFile(cut, data[:len(data)-1000], 0o644))
	v, err := gguf.LoadVocab(testenv.Tokenizer("smollm-135m"), "")
	require.NoError(t, err)
	ck, err := checkpoint.Random(checkpoint.Llama, checkpoint.Shape{Vocab: len(v.Tokens), Hidden: 32, Heads: 2}, 1)
	require.NoError(t, err)
	b, err := gguf.FromCheckpoint(ck, v, gguf.MostlyQ8_0)
	require.NoError(t, err)
	b.Set("general.architecture", "feathernet")
	alien := filepath.Join(dir, "alien.gguf")
	require.NoError(t, b.WriteFile(alien))

	for _, tc := range []struct {
		name, path string
		opt        llamacpp.Options
		err        string
	}{
		{"not GGUF", text, llamacpp.Options{}, "model file: " + text + `: not a GGUF file (it starts with "thes", not "GGUF")`},
		{"missing", filepath.Join(dir, "nope.gguf"), llamacpp.Options{}, "model file: open " + filepath.Join(dir, "nope.gguf") + ": no such file or directory"},
		{"folder", dir, llamacpp.Options{}, "model file: " + dir + " is a folder, not a GGUF file"},
		{"unknown architecture", alien, llamacpp.Options{}, alien + `: architecture "feathernet" (general.architecture) is not one llama.cpp v0.4.0 runs, the release feather binds (@node-llama-cpp/linux-x64 3.21.1); convert the model to an architecture it knows, or run it with another backend`},
		{"context too long", good, llamacpp.Options{Context: 4096}, good + ": n_ctx 4096 is longer than the model's training context, 2048 tokens (llama.context_length); set it to 2048 or less"},
		{"chat", good, llamacpp.Options{Chat: "maybe"}, `chat setting "maybe" must be yes, no or auto`},
		{"negative context", good, llamacpp.Options{Context: -1}, "context length -1 must be 0 (the model's) or more"},
		{"negative batch", good, llamacpp.Options{Batch: -1}, "batch -1 must be 0 (512 tokens) or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llamacpp.Open(context.Background(), tc.path, tc.opt)
			require.EqualError(t, err, tc.err)
			assert.Nil(t, m)
		})
	}
	t.Run("truncated", func(t *testing.T) {
		_, err := llamacpp.Open(context.Background(), cut, llamacpp.Options{})
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "model file: "+cut+": truncated: tensor "), err)
		assert.True(t, strings.HasSuffix(err.Error(), "; the file is incomplete: download or convert it again"), err)
	})
	t.Run("no library", func(t *testing.T) {
		empty := t.TempDir()
		t.Setenv(llamalib.Env, empty)
		_, err := llamacpp.Open(context.Background(), good, llamacpp.Options{})
		require.EqualError(t, err, "LLAMA_CPP_LIB="+empty+" holds neither libllama.v0.4.0.so nor libllama.so. Point LLAMA_CPP_LIB at the folder holding llama.cpp v0.4.0's libraries (libllama, libggml, libggml-base and the libggml-cpu-*.so variants), or unset it and run `make deps`")
	})
}
