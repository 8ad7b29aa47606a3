package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// tinyGGUF writes a random two-layer model with SmolLM's vocabulary and
// ChatML's template as a Q8_0 GGUF file.
func tinyGGUF(t *testing.T) string {
	t.Helper()
	llamatest.Require(t)
	v, err := gguf.LoadVocab(testenv.Tokenizer("smollm-135m"), "")
	require.NoError(t, err)
	v.ChatTemplate = testmodel.ChatML
	ck, err := checkpoint.Random(checkpoint.Llama, checkpoint.Shape{Vocab: len(v.Tokens), Hidden: 32, Heads: 2, TiedEmbeddings: true}, 5)
	require.NoError(t, err)
	b, err := gguf.FromCheckpoint(ck, v, gguf.MostlyQ8_0)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "tiny-Q8_0.gguf")
	require.NoError(t, b.WriteFile(path))
	return path
}

func run(args []string, stdin string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// TestGGUFCommands: score, generate and tokenize take a .gguf file as
// --model and answer as the llamacpp backend does.
func TestGGUFCommands(t *testing.T) {
	path := tinyGGUF(t)
	ctx := context.Background()
	m, err := llamacpp.Open(ctx, path, llamacpp.Options{Chat: "no"})
	require.NoError(t, err)
	defer m.Close()

	reqs := []lm.LLRequest{{Context: "The cat sat on the", Continuation: " mat"}, {Context: "", Continuation: "Hello"}}
	want, err := m.LogLikelihood(ctx, reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	var in strings.Builder
	for _, r := range reqs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		in.Write(append(b, '\n'))
	}
	code, out, errOut := run([]string{"score", "--model", path}, in.String())
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	for i, line := range lines {
		var got scoreLine
		require.NoError(t, json.Unmarshal([]byte(line), &got))
		assert.Equal(t, scoreLine{LogProb: want[i].LogProb, IsGreedy: want[i].IsGreedy, ContextTokens: want[i].ContextTokens, ContinuationTokens: want[i].ContinuationTokens}, got)
	}

	gen, err := m.Generate(ctx, []lm.GenerateRequest{{Prompt: "Once upon a time", MaxNewTokens: 5}})
	require.NoError(t, err)
	code, out, errOut = run([]string{"generate", "--model", path, "--max-new-tokens", "5", "Once upon a time"}, "")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, gen[0].Text+"\n", out)
	assert.Contains(t, errOut, "feather generate: 4 prompt tokens, 5 new tokens, stop length, first token ")

	code, out, errOut = run([]string{"generate", "--model", path, "--chat", "--max-new-tokens", "1", "--json", "Hi"}, "")
	require.Equal(t, 0, code, errOut)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", res["prompt_sent"], "the GGUF's chat template")

	tok, err := tokenizer.Load(testenv.Tokenizer("smollm-135m"))
	require.NoError(t, err)
	code, out, errOut = run([]string{"tokenize", "--model", path}, `["Hello world", "<|im_start|>user"]`)
	require.Equal(t, 0, code, errOut)
	ids, err := json.Marshal([][]int{tok.Encode("Hello world", true), tok.Encode("<|im_start|>user", true)})
	require.NoError(t, err)
	assert.Equal(t, string(ids)+"\n", out, "llama.cpp tokenizes as the model's own tokenizer")
	assert.Equal(t, "[[19556,905],[1,4093]]\n", out)
}

// TestGGUFCommandErrors: options that do not apply to a GGUF file, and a
// file that is not one, are refused with the reason.
func TestGGUFCommandErrors(t *testing.T) {
	path := tinyGGUF(t)
	fake := filepath.Join(t.TempDir(), "fake.gguf")
	require.NoError(t, os.WriteFile(fake, []byte("not a model at all"), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--model", path, "--variant", "q4", "hi"}, "feather generate: --variant picks an ONNX file of a folder; " + path + " is a GGUF file, one quantization already (pull another with feather pull --file)\n"},
		{[]string{"generate", "--model", path, "--provider", "cuda", "hi"}, "feather generate: --provider cuda runs ONNX models; llama.cpp runs GGUF files on the CPU\n"},
		{[]string{"generate", "--model", fake, "hi"}, "feather generate: model file: " + fake + `: not a GGUF file (it starts with "not ", not "GGUF")` + "\n"},
		{[]string{"tokenize", "--model", fake}, "feather tokenize: model file: " + fake + `: not a GGUF file (it starts with "not ", not "GGUF")` + "\n"},
	} {
		stdin := ""
		if tc.args[0] == "tokenize" {
			stdin = `["a"]`
		}
		code, out, errOut := run(tc.args, stdin)
		assert.NotEqual(t, 0, code, tc.args)
		assert.Empty(t, out)
		assert.Equal(t, tc.want, errOut, tc.args)
	}
}

// TestPullGGUFFile: pull --file fetches the one GGUF file and prints its
// path, which the commands and a catalog's "path" take.
func TestPullGGUFFile(t *testing.T) {
	path := tinyGGUF(t)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lib, err := llamalib.Locate(os.Getenv)
	require.NoError(t, err)
	t.Setenv(llamalib.Env, lib) // pullEnv moves HOME, where `make deps` put it
	h := fakehub.New(t)
	commit := h.Add("org/tiny-GGUF", map[string][]byte{"README.md": []byte("# tiny\n"), "tiny-Q8_0.gguf": data, "tiny-F16.gguf": []byte("GGUF, some other day")})
	cache := pullEnv(t, h)

	code, out, errOut := runPullCmd("org/tiny-GGUF", "--file", "*Q8_0.gguf")
	require.Equal(t, 0, code, errOut)
	pulled := filepath.Join(cache, "models--org--tiny-GGUF", "snapshots", commit, "tiny-Q8_0.gguf")
	assert.Equal(t, pulled+"\n", out)
	assert.Equal(t, map[string]int{"tiny-Q8_0.gguf": 1}, h.Downloads())
	code, out, errOut = run([]string{"generate", "--model", pulled, "--max-new-tokens", "2", "Hello"}, "")
	require.Equal(t, 0, code, errOut)
	assert.NotEmpty(t, out)

	code, out, errOut = runPullCmd("org/tiny-GGUF", "--file", "*Q8_0.gguf", "--variant", "q4")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "feather pull: --variant picks an ONNX file and --file a GGUF file; give one of them\n", errOut)
	code, _, errOut = runPullCmd("org/tiny-GGUF", "--file", "[")
	assert.Equal(t, 2, code)
	assert.Equal(t, "feather pull: --file: \"[\" is not a glob (syntax error in pattern); use * and ? as in \"*Q8_0.gguf\"\n", errOut)
}
