package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/logsoftmax"
)

// Generate continues each request greedily, as the onnx backend does.
// Messages go through the GGUF's chat template with the generation
// prompt and are tokenized without adding BOS (the template writes it
// when the model uses one); a raw Prompt gets BOS (and EOS) where the
// vocabulary asks for them (add_bos_token, add_eos_token). Generation
// stops at an end-of-generation token (EOS, end of turn and the others
// llama.cpp counts), at MaxNewTokens, or when the model's context is
// full; MaxNewTokens 0 means no cap but the context. TTFT and Wall are
// measured from the start of the request's wave. OutputTokens counts
// every generated token, a stopping one included; Text leaves control
// tokens out.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	if m.lib == nil {
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
			err = lm.Unsupported("the llamacpp backend does not support tool calling; run tool tasks on an API model")
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
	gens, err := m.decodeSeqs(ctx, seqs)
	if err != nil {
		return nil, err
	}
	for j, g := range gens {
		res := &out[owner[j]]
		if res.Text, err = m.detokenize(g.tokens); err != nil {
			res.StopReason, res.Err = lm.StopError, err
			continue
		}
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
			return "", nil, fmt.Errorf("model %s runs without a chat template (chat: no, or its GGUF has no tokenizer.chat_template); send a raw prompt", m.info.Name)
		}
		text, err := m.tmpl.Render(req.Messages, chat.Options{AddGenerationPrompt: true})
		if err != nil {
			return "", nil, fmt.Errorf("rendering the chat template: %w", err)
		}
		ids, err := m.encode(text)
		return text, ids, err
	}
	ids, err := m.Tokenize(req.Prompt, true)
	return req.Prompt, ids, err
}

// detokenize is the text of generated tokens, control tokens left out,
// invalid UTF-8 (a character cut by the token limit) replaced as Hugging
// Face decoders replace it.
func (m *Model) detokenize(ids []int) (string, error) {
	toks := make([]int32, len(ids))
	for i, id := range ids {
		toks[i] = int32(id)
	}
	text, err := m.lib.Detokenize(toks, false)
	if err != nil {
		return "", err
	}
	return tokenizer.LossyUTF8([]byte(text)), nil
}

// greedyOnly rejects sampling the backend would not apply: it decodes
// greedily, which any temperature 0 or top_k 1 request also asks for.
func greedyOnly(s lm.Sampling) error {
	if s.Temperature == nil || *s.Temperature == 0 || (s.TopK != nil && *s.TopK == 1) {
		return nil
	}
	return lm.Unsupported("the llamacpp backend decodes greedily only; the request asks for temperature %g (set temperature 0 or leave it unset)", *s.Temperature)
}

// genSeq is one prompt to continue greedily for at most maxNew tokens.
type genSeq struct {
	prompt []int
	maxNew int
}

// genOut is what greedy decoding produced for one prompt.
type genOut struct {
	tokens     []int // generated tokens, the stopping one included
	stop       string
	ttft, wall time.Duration
}

// cells is the KV cache a prompt's decoding fills: its prompt and every
// generated token but the last, which is never decoded.
func (s genSeq) cells() int { return len(s.prompt) + s.maxNew - 1 }

// decodeSeqs decodes greedily in waves of as many prompts as the cache
// and the context's sequences hold.
func (m *Model) decodeSeqs(ctx context.Context, seqs []genSeq) ([]genOut, error) {
	out := make([]genOut, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	cx, err := m.context()
	if err != nil {
		return nil, err
	}
	var wave []int
	cells := 0
	for i, s := range seqs {
		if len(wave) == cx.Sequences() || (len(wave) > 0 && cells+s.cells() > cx.Size()) {
			if err := m.decodeWave(ctx, cx, wave, seqs, out); err != nil {
				return nil, err
			}
			wave, cells = wave[:0], 0
		}
		wave = append(wave, i)
		cells += s.cells()
	}
	if err := m.decodeWave(ctx, cx, wave, seqs, out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeWave prefills a wave's prompts, each in its own sequence, then
// decodes one token per unfinished prompt per batch until all stop.
func (m *Model) decodeWave(ctx context.Context, cx *llamalib.Context, wave []int, seqs []genSeq, out []genOut) error {
	start := time.Now()
	if err := cx.Clear(); err != nil {
		return err
	}
	var live []int // positions in wave still decoding
	f := &feeder{ctx: ctx, cx: cx, read: func(k int, logits []float32) error {
		i := wave[k]
		tok := logsoftmax.Argmax(logits)
		o := &out[i]
		now := time.Since(start)
		if len(o.tokens) == 0 {
			o.ttft = now
		}
		o.tokens = append(o.tokens, tok)
		switch {
		case m.lib.IsEOG(int32(tok)):
			o.stop, o.wall = lm.StopEOS, now
		case len(o.tokens) >= seqs[i].maxNew:
			o.stop, o.wall = lm.StopLength, now
		default:
			live = append(live, k)
		}
		return nil
	}}
	for k, i := range wave {
		p := seqs[i].prompt
		for pos, tok := range p {
			owner := -1
			if pos == len(p)-1 {
				owner = k
			}
			if err := f.add(tok, pos, owner, k); err != nil {
				return err
			}
		}
	}
	for {
		if err := f.flush(); err != nil {
			return err
		}
		if len(live) == 0 {
			return nil
		}
		step := live
		live = nil
		for _, k := range step {
			o := &out[wave[k]]
			pos := len(seqs[wave[k]].prompt) + len(o.tokens) - 1
			if err := f.add(o.tokens[len(o.tokens)-1], pos, k, k); err != nil {
				return err
			}
		}
	}
}
