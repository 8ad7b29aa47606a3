package onnx

import (
	"context"
	"errors"
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
)

var errClosed = errors.New("the model is closed")

// Generate continues each request greedily. Messages go through the chat
// template with the generation prompt and are encoded without special
// tokens (the template already wrote BOS, if the model uses one); a raw
// Prompt is encoded with the tokenizer's own special-token rule, as
// transformers' tokenizer(prompt) does: Llama-style tokenizers add BOS,
// GPT-2's adds nothing. Generation stops at any EOS id of config.json and
// generation_config.json (the tokenizer's EOS when they name none), at
// MaxNewTokens, or when the model's context is full; MaxNewTokens 0 means
// no cap but the context. TTFT and Wall are measured from the start of
// the request's batch. OutputTokens counts every generated token, a
// stopping EOS included; Text leaves special tokens out.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	if len(m.runners) == 0 {
		return nil, errClosed
	}
	out := make([]lm.GenerateResult, len(reqs))
	var seqs []genSeq
	var owner []int
	for i, req := range reqs {
		res := &out[i]
		prompt, ids, err := m.prompt(req)
		res.PromptSent = prompt
		res.InputTokens = len(ids)
		if err == nil {
			err = greedyOnly(req.Sampling)
		}
		if err == nil && len(req.Tools) > 0 {
			err = lm.Unsupported("the onnx backend does not support tool calling; run tool tasks on an API model")
		}
		if err == nil && len(ids) == 0 {
			err = errors.New("the prompt encodes to no tokens; there is nothing to continue")
		}
		room := m.ctxLen - len(ids)
		if err == nil && room <= 0 {
			err = fmt.Errorf("the prompt has %d tokens, which fills the model's %d-token context", len(ids), m.ctxLen)
		}
		if err == nil && req.MaxNewTokens < 0 {
			err = fmt.Errorf("max_new_tokens is %d; it must be 0 (up to the context) or more", req.MaxNewTokens)
		}
		if err != nil {
			res.StopReason, res.Err = lm.StopError, err
			continue
		}
		maxNew := room
		if req.MaxNewTokens > 0 && req.MaxNewTokens < room {
			maxNew = req.MaxNewTokens
		}
		res.SamplingSent = map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": maxNew}
		seqs = append(seqs, genSeq{prompt: ids, maxNew: maxNew})
		owner = append(owner, i)
	}
	gens, err := m.decodeSeqs(ctx, seqs, nil)
	if err != nil {
		return nil, err
	}
	for j, g := range gens {
		res := &out[owner[j]]
		res.Text = m.tok.Decode(g.tokens, true)
		res.OutputTokens = len(g.tokens)
		res.StopReason = g.stop
		res.TTFT, res.Wall = g.ttft, g.wall
	}
	return out, nil
}

// prompt returns the exact text the model sees and its tokens.
func (m *Model) prompt(req lm.GenerateRequest) (string, []int, error) {
	switch {
	case len(req.Messages) > 0 && req.Prompt != "":
		return "", nil, errors.New("the request has both messages and a prompt; set one")
	case len(req.Messages) > 0:
		if m.tmpl == nil {
			return "", nil, fmt.Errorf("model %s runs without a chat template (chat: no, or its tokenizer config has none); send a raw prompt", m.info.Name)
		}
		text, err := m.tmpl.Render(req.Messages, chat.Options{AddGenerationPrompt: true})
		if err != nil {
			return "", nil, fmt.Errorf("rendering the chat template: %w", err)
		}
		return text, m.tok.Encode(text, false), nil
	}
	return req.Prompt, m.tok.Encode(req.Prompt, true), nil
}

// greedyOnly rejects sampling the backend would not apply: it decodes
// greedily, which any temperature 0 or top_k 1 request also asks for.
func greedyOnly(s lm.Sampling) error {
	if s.Temperature == nil || *s.Temperature == 0 || (s.TopK != nil && *s.TopK == 1) {
		return nil
	}
	return lm.Unsupported("the onnx backend decodes greedily only; the request asks for temperature %g (set temperature 0 or leave it unset)", *s.Temperature)
}
