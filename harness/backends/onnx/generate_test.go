package onnx

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

func TestGenerateDesigned(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	prompt := m.tok.Encode(chainPrompt, true)
	require.Equal(t, testmodel.BOSID, prompt[0], "the test tokenizer adds BOS to raw prompts")
	chainText := m.tok.Decode(chainTokens, true)

	reqs := []lm.GenerateRequest{
		{Prompt: chainPrompt, MaxNewTokens: 10, Sampling: lm.Greedy()},
		{Prompt: chainPrompt, MaxNewTokens: 2},
		{Prompt: chainPrompt}, // no cap: runs to EOS
		{Prompt: "Something else", MaxNewTokens: 4},
	}
	res, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	for i := range res {
		require.NoError(t, res[i].Err, "request %d", i)
		assert.Equal(t, reqs[i].Prompt, res[i].PromptSent)
		assert.Positive(t, res[i].TTFT)
		assert.GreaterOrEqual(t, res[i].Wall, res[i].TTFT)
	}

	assert.Equal(t, chainText, res[0].Text, "EOS ends the text and is not shown")
	assert.Equal(t, lm.StopEOS, res[0].StopReason)
	assert.Equal(t, len(prompt), res[0].InputTokens)
	assert.Equal(t, 3, res[0].OutputTokens, "two chain tokens and the EOS")
	assert.Equal(t, map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": 10}, res[0].SamplingSent)

	assert.Equal(t, chainText, res[1].Text)
	assert.Equal(t, lm.StopLength, res[1].StopReason)
	assert.Equal(t, 2, res[1].OutputTokens)

	assert.Equal(t, res[0].Text, res[2].Text)
	assert.Equal(t, lm.StopEOS, res[2].StopReason)
	assert.Equal(t, map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": bg.Config.MaxPositions - len(prompt)}, res[2].SamplingSent)

	other := m.tok.Encode("Something else", true)
	want := bg.Greedy(other[len(other)-1], 4)
	assert.Equal(t, m.tok.Decode(want, true), res[3].Text)
	assert.Equal(t, len(want), res[3].OutputTokens)
}

func TestGenerateStopsAtContext(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	long := ""
	for len(m.tok.Encode(long, true)) < bg.Config.MaxPositions-3 {
		long += " and"
	}
	ids := m.tok.Encode(long, true)
	room := bg.Config.MaxPositions - len(ids)
	tooLong := long + " and and and and"
	n := len(m.tok.Encode(tooLong, true))
	require.GreaterOrEqual(t, n, bg.Config.MaxPositions)
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: long, MaxNewTokens: 50}, {Prompt: tooLong}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	want := bg.Greedy(ids[len(ids)-1], room)
	assert.Equal(t, len(want), res[0].OutputTokens)
	if len(want) == room && want[room-1] != testmodel.EOSID {
		assert.Equal(t, lm.StopLength, res[0].StopReason, "generation stops when the context is full")
	} else {
		assert.Equal(t, lm.StopEOS, res[0].StopReason)
	}
	assert.EqualError(t, res[1].Err, fmt.Sprintf("the prompt has %d tokens, which fills the model's 64-token context", n))
	assert.Equal(t, lm.StopError, res[1].StopReason)
}

func TestGenerateChat(t *testing.T) {
	fx := fixture(t, "chat")
	m := open(t, fx.Dir, Options{})
	assert.True(t, m.Info().Chat, "auto: the tokenizer config has a template")
	msgs := []lm.Message{{Role: "user", Content: "Hi there"}}
	res, err := m.Generate(context.Background(), []lm.GenerateRequest{{Messages: msgs, MaxNewTokens: 3}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	assert.Equal(t, "<|begin_of_text|>user: Hi there\nassistant:", res[0].PromptSent)
	ids := m.tok.Encode(res[0].PromptSent, false)
	assert.Equal(t, testmodel.BOSID, ids[0])
	assert.NotEqual(t, testmodel.BOSID, ids[1], "the template's BOS is the only one")
	assert.Equal(t, len(ids), res[0].InputTokens)

	// The same text as a raw prompt gets the tokenizer's BOS on top.
	raw, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: res[0].PromptSent, MaxNewTokens: 3}})
	require.NoError(t, err)
	assert.Equal(t, len(ids)+1, raw[0].InputTokens)

	off := open(t, fx.Dir, Options{Chat: "no"})
	assert.False(t, off.Info().Chat)
	res, err = off.Generate(context.Background(), []lm.GenerateRequest{{Messages: msgs}})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, "model chat runs without a chat template (chat: no, or its tokenizer config has none); send a raw prompt")
}

func TestGenerateRequestErrors(t *testing.T) {
	m := open(t, bigram(t).Dir, Options{})
	temp := 0.7
	tests := []struct {
		req         lm.GenerateRequest
		want        string
		unsupported bool // a capability mismatch (lm.ErrUnsupported), not a bad request
	}{
		{lm.GenerateRequest{Prompt: "x", Messages: []lm.Message{{Role: "user", Content: "y"}}}, "the request has both messages and a prompt; set one", false},
		{lm.GenerateRequest{Messages: []lm.Message{{Role: "user", Content: "y"}}}, "model bigram runs without a chat template (chat: no, or its tokenizer config has none); send a raw prompt", false},
		{lm.GenerateRequest{Prompt: "x", Sampling: lm.Sampling{Temperature: &temp}}, "the onnx backend decodes greedily only; the request asks for temperature 0.7 (set temperature 0 or leave it unset)", true},
		{lm.GenerateRequest{Prompt: "x", Tools: []lm.Tool{{Name: "f"}}}, "the onnx backend does not support tool calling; run tool tasks on an API model", true},
		{lm.GenerateRequest{Prompt: "x", MaxNewTokens: -1}, "max_new_tokens is -1; it must be 0 (up to the context) or more", false},
	}
	var reqs []lm.GenerateRequest
	for _, tt := range tests {
		reqs = append(reqs, tt.req)
	}
	reqs = append(reqs, lm.GenerateRequest{Prompt: chainPrompt, MaxNewTokens: 5})
	res, err := m.Generate(context.Background(), reqs)
	require.NoError(t, err)
	for i, tt := range tests {
		assert.EqualError(t, res[i].Err, tt.want)
		assert.Equal(t, tt.unsupported, errors.Is(res[i].Err, lm.ErrUnsupported), tt.want)
		assert.Equal(t, lm.StopError, res[i].StopReason)
	}
	ok := res[len(tests)]
	require.NoError(t, ok.Err, "one bad request does not spoil the batch")
	assert.Equal(t, lm.StopEOS, ok.StopReason)
}

func TestClosedModel(t *testing.T) {
	m := open(t, bigram(t).Dir, Options{})
	require.NoError(t, m.Close())
	_, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "x"}})
	assert.EqualError(t, err, "the model is closed")
	_, err = m.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "x", Continuation: "y"}}, lm.ScoreOptions{})
	assert.EqualError(t, err, "the model is closed")
	assert.NoError(t, m.Close(), "closing twice is harmless")
}

func TestCancelledContext(t *testing.T) {
	m := open(t, bigram(t).Dir, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := m.LogLikelihood(ctx, []lm.LLRequest{{Context: "x", Continuation: " y"}}, lm.ScoreOptions{})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = m.Generate(ctx, []lm.GenerateRequest{{Prompt: "x"}})
	assert.ErrorIs(t, err, context.Canceled)
}
