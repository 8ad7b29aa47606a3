package llamacpp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// greedyAlone continues prompt for n tokens decoding it alone, directly
// through llamalib, and returns their text: the reference for the
// backend's waves of prompts.
func greedyAlone(t *testing.T, path string, prompt []int, n int) string {
	t.Helper()
	r := ref(t, path)
	cx := r.cx
	var b llamalib.Batch
	for i, tok := range prompt {
		b.Add(int32(tok), i, i == len(prompt)-1, 0)
	}
	var out []int
	for len(out) < n {
		require.NoError(t, cx.Decode(&b))
		row, err := cx.Logits(b.Len()-1, nil)
		require.NoError(t, err)
		best := 0
		for i, x := range row {
			if x > row[best] {
				best = i
			}
		}
		out = append(out, best)
		b.Reset()
		b.Add(int32(best), len(prompt)+len(out)-1, true, 0)
	}
	toks := make([]int32, len(out))
	for i, id := range out {
		toks[i] = int32(id)
	}
	text, err := r.m.Detokenize(toks, false)
	require.NoError(t, err)
	return tokenizer.LossyUTF8([]byte(text))
}

// TestGenerateGreedy: several prompts decoded together, in batches of
// four tokens, continue exactly as each does alone.
func TestGenerateGreedy(t *testing.T) {
	path := smol(t)
	m := open(t, path, llamacpp.Options{Batch: 4})
	prompts := []string{"Question: What is the capital of France?\nAnswer:", "Once upon a time", "A", "Question: What is the capital of Spain?\nAnswer:"}
	var reqs []lm.GenerateRequest
	for _, p := range prompts {
		reqs = append(reqs, lm.GenerateRequest{Prompt: p, MaxNewTokens: 6, Sampling: lm.Greedy()})
	}
	res, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	for i, p := range prompts {
		r := res[i]
		require.NoError(t, r.Err)
		prompt := ids(t, m, p)
		assert.Equal(t, greedyAlone(t, path, prompt, 6), r.Text, "prompt %d", i)
		assert.Equal(t, p, r.PromptSent)
		assert.Equal(t, len(prompt), r.InputTokens, "no BOS: SmolLM's tokenizer adds none")
		assert.Equal(t, 6, r.OutputTokens)
		assert.Equal(t, lm.StopLength, r.StopReason)
		assert.Equal(t, map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": 6}, r.SamplingSent)
		assert.Positive(t, r.TTFT)
		assert.GreaterOrEqual(t, r.Wall, r.TTFT)
	}
}

// TestGenerateStopsAtEOS: a model whose head gives every token the same
// logit picks id 0, SmolLM's <|endoftext|>, and stops there; the stop
// token counts but is not shown.
func TestGenerateStopsAtEOS(t *testing.T) {
	path := fixture(t, "smol-eos", "smollm-135m", gguf.AllF32, func(c *checkpoint.Checkpoint, _ *gguf.Vocab) {
		clear(c.Tensors["lm_head.weight"].Data)
	})
	m := open(t, path, llamacpp.Options{})
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "Hello", MaxNewTokens: 20}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	assert.Equal(t, lm.StopEOS, res[0].StopReason)
	assert.Equal(t, 1, res[0].OutputTokens)
	assert.Empty(t, res[0].Text)
}

// TestGenerateChat renders messages with the GGUF's chat template, whose
// special tokens are read as tokens, and adds no BOS.
func TestGenerateChat(t *testing.T) {
	path := fixture(t, "smol-chat", "smollm-135m", gguf.AllF32, chatML)
	m := open(t, path, llamacpp.Options{})
	assert.True(t, m.Info().Chat)
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Messages: []lm.Message{{Role: "user", Content: "Hi"}}, MaxNewTokens: 2}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	const prompt = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
	assert.Equal(t, prompt, res[0].PromptSent)
	tok, err := tokenizer.Load(testenv.Tokenizer("smollm-135m"))
	require.NoError(t, err)
	want := tok.Encode(prompt, false)
	assert.Equal(t, []int{1, 4093, 198, 26843, 2, 198, 1, 520, 9531, 198}, want, "<|im_start|> and <|im_end|> are tokens 1 and 2")
	assert.Equal(t, len(want), res[0].InputTokens)

	off := open(t, path, llamacpp.Options{Chat: "no"})
	assert.False(t, off.Info().Chat)
	res, err = off.Generate(context.Background(), []lm.GenerateRequest{{Messages: []lm.Message{{Role: "user", Content: "Hi"}}}})
	require.NoError(t, err)
	require.EqualError(t, res[0].Err, "model smol-chat runs without a chat template (chat: no, or its GGUF has no tokenizer.chat_template); send a raw prompt")

	_, err = llamacpp.Open(context.Background(), smol(t), llamacpp.Options{Chat: "yes"})
	require.EqualError(t, err, smol(t)+`: chat is "yes" but the file has no chat template (tokenizer.chat_template); set chat to "no" or "auto", or use a chat model's GGUF`)
}

// TestRawPromptBOS: a raw prompt gets BOS where the vocabulary asks for
// it (Llama 2's), as transformers' tokenizer(prompt) adds it.
func TestRawPromptBOS(t *testing.T) {
	path := fixture(t, "llama2", "llama2", gguf.MostlyQ8_0, nil)
	m := open(t, path, llamacpp.Options{})
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "Hello world", MaxNewTokens: 1}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	tok, err := tokenizer.Load(testenv.NPMTokenizer(t, "llama2"))
	require.NoError(t, err)
	assert.Equal(t, []int{1, 22557, 1526}, tok.Encode("Hello world", true))
	assert.Equal(t, 3, res[0].InputTokens)
	got, err := m.Tokenize("Hello world", true)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 22557, 1526}, got)
}

// TestGenerateErrors: a request the backend cannot serve fails alone,
// saying why; unsupported features wrap lm.ErrUnsupported.
func TestGenerateErrors(t *testing.T) {
	m := open(t, smol(t), llamacpp.Options{Context: 8})
	hot := 0.7
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{
		{Prompt: "a", Messages: []lm.Message{{Role: "user", Content: "b"}}},
		{Prompt: "a", Tools: []lm.Tool{{Name: "f"}}},
		{Prompt: "a", Sampling: lm.Sampling{Temperature: &hot}},
		{Prompt: "a", MaxNewTokens: -1},
		{Prompt: "one two three four five six seven eight nine"},
		{Prompt: ""},
		{Prompt: "a b", MaxNewTokens: 0},
	})
	require.NoError(t, err)
	for i, want := range []string{
		"the request has both messages and a prompt; set one",
		"the llamacpp backend does not support tool calling; run tool tasks on an API model",
		"the llamacpp backend decodes greedily only; the request asks for temperature 0.7 (set temperature 0 or leave it unset)",
		"max_new_tokens is -1; it must be 0 (up to the context) or more",
		"the prompt has 9 tokens, which fills the model's 8-token context",
		"the prompt encodes to no tokens; there is nothing to continue",
	} {
		require.EqualError(t, res[i].Err, want, i)
		assert.Equal(t, lm.StopError, res[i].StopReason)
	}
	assert.True(t, errors.Is(res[1].Err, lm.ErrUnsupported))
	assert.True(t, errors.Is(res[2].Err, lm.ErrUnsupported))
	require.NoError(t, res[6].Err, "MaxNewTokens 0 fills the context")
	assert.Equal(t, 6, res[6].OutputTokens)
	assert.Equal(t, lm.StopLength, res[6].StopReason)
}
