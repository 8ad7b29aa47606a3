package local_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
)

// TestGenerate: a raw prompt gets the tokenizer's BOS, a chat request
// the template's text as it is; each may take the rest of the context,
// at most MaxNewTokens; a request that cannot run fails alone, saying
// why, with lm.ErrUnsupported for what the backend does not do.
func TestGenerate(t *testing.T) {
	tmpl, err := chat.New("{% for m in messages %}{{ m.content }}{% endfor %}", "<bos>", "")
	require.NoError(t, err)
	e := &engine{}
	m := model(e, 8)
	m.Template = tmpl
	hot, cold, one := 0.7, 0.0, 1
	user := func(text string) []lm.Message { return []lm.Message{{Role: "user", Content: text}} }
	reqs := []lm.GenerateRequest{
		{Prompt: "The cat", MaxNewTokens: 1},
		{Messages: user("<bos>The cat sat"), Sampling: lm.Sampling{Temperature: &cold}},
		{Prompt: "The", MaxNewTokens: 9, Sampling: lm.Sampling{Temperature: &hot, TopK: &one}},
		{Prompt: "The cat", Messages: user("The")},
		{Prompt: "The", Sampling: lm.Sampling{Temperature: &hot}},
		{Prompt: "The", Tools: []lm.Tool{{Name: "f"}}},
		{Messages: user("")},
		{Prompt: "The cat sat on the mat mat"},
		{Prompt: "The", MaxNewTokens: -1},
		{Prompt: "dog"},
		{Prompt: "The rug"},
	}
	res, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	assert.Equal(t, []local.GenSeq{
		{Prompt: []int{0, 1, 4}, MaxNew: 1},
		{Prompt: []int{0, 1, 4, 5}, MaxNew: 4},
		{Prompt: []int{0, 1}, MaxNew: 6},
		{Prompt: []int{0, 1, 10}, MaxNew: 5},
	}, e.decoded)

	sent := func(n int) map[string]any {
		return map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": n}
	}
	ms, twoMS := time.Millisecond, 2*time.Millisecond
	fail := func(prompt string, tokens int, msg string) lm.GenerateResult {
		return lm.GenerateResult{PromptSent: prompt, InputTokens: tokens, StopReason: lm.StopError, Err: errors.New(msg)}
	}
	want := []lm.GenerateResult{
		{Text: " mat", PromptSent: "The cat", SamplingSent: sent(1), StopReason: lm.StopLength, InputTokens: 3, OutputTokens: 1, TTFT: ms, Wall: twoMS},
		{Text: " mat hat", PromptSent: "<bos>The cat sat", SamplingSent: sent(4), StopReason: lm.StopEOS, InputTokens: 4, OutputTokens: 2, TTFT: ms, Wall: twoMS},
		{Text: " mat hat", PromptSent: "The", SamplingSent: sent(6), StopReason: lm.StopEOS, InputTokens: 2, OutputTokens: 2, TTFT: ms, Wall: twoMS},
		fail("", 0, "the request has both messages and a prompt; set one"),
		fail("The", 2, "the toy backend decodes greedily only; the request asks for temperature 0.7 (set temperature 0 or leave it unset)"),
		fail("The", 2, "the toy backend does not support tool calling; run tool tasks on an API model"),
		fail("", 0, "the prompt encodes to no tokens; there is nothing to continue"),
		fail("The cat sat on the mat mat", 8, "the prompt has 8 tokens, which fills the model's 8-token context"),
		fail("The", 2, "max_new_tokens is -1; it must be 0 (up to the context) or more"),
		fail("dog", 0, `toy: no piece starts "dog"`),
		{PromptSent: "The rug", SamplingSent: sent(5), StopReason: lm.StopError, InputTokens: 3, Err: errors.New("toy: no token 99")},
	}
	require.Len(t, res, len(want))
	for i := range reqs {
		assert.Equal(t, i == 4 || i == 5, errors.Is(res[i].Err, lm.ErrUnsupported), "request %d", i)
	}
	for i := range want {
		if want[i].Err == nil {
			assert.Equal(t, want[i], res[i], "request %d", i)
			continue
		}
		assert.EqualError(t, res[i].Err, want[i].Err.Error(), "request %d", i)
		res[i].Err, want[i].Err = nil, nil
		assert.Equal(t, want[i], res[i], "request %d", i)
	}
}

// TestGenerateFailures: a chat request to a model without a template
// says why it has none; a closed model and an engine that fails fail the
// whole call.
func TestGenerateFailures(t *testing.T) {
	res, err := model(&engine{}, 8).Generate(context.Background(), []lm.GenerateRequest{{Messages: []lm.Message{{Role: "user", Content: "The"}}}})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, "model tiny runs without a chat template (chat: no, or it has none); send a raw prompt")

	closed := model(&engine{}, 8)
	closed.Closed = true
	_, err = closed.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "The"}})
	assert.ErrorIs(t, err, local.ErrClosed)

	_, err = model(&engine{err: errors.New("engine down")}, 8).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "The"}})
	assert.EqualError(t, err, "engine down")
}
