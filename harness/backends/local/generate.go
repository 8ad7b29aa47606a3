package local

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
)

// GenSeq is one prompt to continue greedily for at most MaxNew tokens.
type GenSeq struct {
	Prompt []int
	MaxNew int
}

// GenOut is what greedy decoding produced for one prompt.
type GenOut struct {
	Tokens     []int // generated tokens, the stopping one included
	Stop       string
	TTFT, Wall time.Duration
}

// Generate continues each request greedily. Messages go through the
// chat template with the generation prompt and are encoded without
// special tokens (the template writes BOS where the model uses one); a
// raw Prompt is encoded with the tokenizer's own special-token rule
// (Tokenizer.EncodePrompt). Each prompt may take the rest of the model's
// context, at most MaxNewTokens (0: no cap but the context); where the
// engine stops before that is its own (lm.StopEOS, lm.StopLength).
// OutputTokens counts every generated token, a stopping one included;
// Text is Tokenizer.Decode's.
func (m Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	if m.Closed {
		return nil, ErrClosed
	}
	out := make([]lm.GenerateResult, len(reqs))
	var seqs []GenSeq
	var owner []int
	for i, req := range reqs {
		res := &out[i]
		prompt, ids, err := m.prompt(req)
		res.PromptSent = prompt
		res.InputTokens = len(ids)
		if err == nil {
			err = m.greedyOnly(req.Sampling)
		}
		if err == nil && len(req.Tools) > 0 {
			err = lm.Unsupported("the %s backend does not support tool calling; run tool tasks on an API model", m.Backend)
		}
		if err == nil && len(ids) == 0 {
			err = errors.New("the prompt encodes to no tokens; there is nothing to continue")
		}
		room := m.Context - len(ids)
		if err == nil && room <= 0 {
			err = fmt.Errorf("the prompt has %d tokens, which fills the model's %d-token context", len(ids), m.Context)
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
		seqs = append(seqs, GenSeq{Prompt: ids, MaxNew: maxNew})
		owner = append(owner, i)
	}
	gens, err := m.DecodeSeqs(ctx, seqs)
	if err != nil {
		return nil, err
	}
	for j, g := range gens {
		res := &out[owner[j]]
		if res.Text, err = m.Tokenizer.Decode(g.Tokens); err != nil {
			res.StopReason, res.Err = lm.StopError, err
			continue
		}
		res.OutputTokens = len(g.Tokens)
		res.StopReason = g.Stop
		res.TTFT, res.Wall = g.TTFT, g.Wall
	}
	return out, nil
}

// prompt returns the exact text the model sees and its tokens.
func (m Model) prompt(req lm.GenerateRequest) (string, []int, error) {
	switch {
	case len(req.Messages) > 0 && req.Prompt != "":
		return "", nil, errors.New("the request has both messages and a prompt; set one")
	case len(req.Messages) > 0:
		if m.Template == nil {
			return "", nil, fmt.Errorf("model %s runs without a chat template (chat: no, or %s); send a raw prompt", m.Name, m.NoTemplate)
		}
		text, err := m.Template.Render(req.Messages, chat.Options{AddGenerationPrompt: true})
		if err != nil {
			return "", nil, fmt.Errorf("rendering the chat template: %w", err)
		}
		ids, err := m.Tokenizer.Encode(text)
		return text, ids, err
	}
	ids, err := m.Tokenizer.EncodePrompt(req.Prompt)
	return req.Prompt, ids, err
}

// greedyOnly rejects sampling the backend would not apply: it decodes
// greedily, which any temperature 0 or top_k 1 request also asks for.
func (m Model) greedyOnly(s lm.Sampling) error {
	if s.Temperature == nil || *s.Temperature == 0 || (s.TopK != nil && *s.TopK == 1) {
		return nil
	}
	return lm.Unsupported("the %s backend decodes greedily only; the request asks for temperature %g (set temperature 0 or leave it unset)", m.Backend, *s.Temperature)
}
