package llamacpp

import (
	"context"
	"time"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/logsoftmax"
)

// Generate continues each request greedily (local.Model.Generate), as
// the onnx backend does. Messages go through the GGUF's chat template
// with the generation prompt and are tokenized without adding BOS (the
// template writes it when the model uses one); a raw Prompt gets BOS
// (and EOS) where the vocabulary asks for them (add_bos_token,
// add_eos_token). Generation stops at an end-of-generation token (EOS,
// end of turn and the others llama.cpp counts), at MaxNewTokens, or when
// the model's context is full; MaxNewTokens 0 means no cap but the
// context. TTFT and Wall are measured from the start of the request's
// wave. OutputTokens counts every generated token, a stopping one
// included; Text leaves control tokens out.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return m.requests().Generate(ctx, reqs)
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

// cacheCells is the KV cache a prompt's decoding fills: its prompt and every
// generated token but the last, which is never decoded.
func cacheCells(s local.GenSeq) int { return len(s.Prompt) + s.MaxNew - 1 }

// decodeSeqs decodes greedily in waves of as many prompts as the cache
// and the context's sequences hold.
func (m *Model) decodeSeqs(ctx context.Context, seqs []local.GenSeq) ([]local.GenOut, error) {
	out := make([]local.GenOut, len(seqs))
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
		if len(wave) == cx.Sequences() || (len(wave) > 0 && cells+cacheCells(s) > cx.Size()) {
			if err := m.decodeWave(ctx, cx, wave, seqs, out); err != nil {
				return nil, err
			}
			wave, cells = wave[:0], 0
		}
		wave = append(wave, i)
		cells += cacheCells(s)
	}
	if err := m.decodeWave(ctx, cx, wave, seqs, out); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeWave prefills a wave's prompts, each in its own sequence, then
// decodes one token per unfinished prompt per batch until all stop.
func (m *Model) decodeWave(ctx context.Context, cx *llamalib.Context, wave []int, seqs []local.GenSeq, out []local.GenOut) error {
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
		if len(o.Tokens) == 0 {
			o.TTFT = now
		}
		o.Tokens = append(o.Tokens, tok)
		switch {
		case m.lib.IsEOG(int32(tok)):
			o.Stop, o.Wall = lm.StopEOS, now
		case len(o.Tokens) >= seqs[i].MaxNew:
			o.Stop, o.Wall = lm.StopLength, now
		default:
			live = append(live, k)
		}
		return nil
	}}
	for k, i := range wave {
		p := seqs[i].Prompt
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
			pos := len(seqs[wave[k]].Prompt) + len(o.Tokens) - 1
			if err := f.add(o.Tokens[len(o.Tokens)-1], pos, k, k); err != nil {
				return err
			}
		}
	}
}
