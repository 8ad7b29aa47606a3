package local

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/feather-eval/feather/harness/lm"
)

// ScoreSeq is a token sequence whose last N tokens are scored, each
// given everything before it. Tokens[0] (the prefix) is never scored,
// so N < len(Tokens).
type ScoreSeq struct {
	Tokens []int
	N      int
}

// SeqScore is a scored sequence's summed log-probability and whether
// every scored token was the argmax.
type SeqScore struct {
	LogProb float64
	Greedy  bool
}

// ErrNaN reports a model that produced NaN logits for a scored token.
var ErrNaN = errors.New("the model produced NaN log-probabilities (broken weights, or float16 overflow)")

func checkFinite(s SeqScore) error {
	if math.IsNaN(s.LogProb) {
		return ErrNaN
	}
	return nil
}

// EncodePair tokenizes a context and its continuation so that no token
// spans the boundary. The rule (lm-eval's, without its whitespace move):
// encode context+continuation whole; when the context's own encoding is
// a prefix of that, the continuation is the rest, so it is tokenized
// exactly as the model reads the whole text. Otherwise a token would
// straddle the boundary, and the two are encoded separately. Neither
// gets special tokens: the scoring prefix is added explicitly.
func EncodePair(tok Tokenizer, context, continuation string) (ctx, cont []int, err error) {
	if ctx, err = tok.Encode(context); err != nil {
		return nil, nil, err
	}
	whole, err := tok.Encode(context + continuation)
	if err != nil {
		return nil, nil, err
	}
	if len(whole) >= len(ctx) && slices.Equal(whole[:len(ctx)], ctx) {
		return ctx, whole[len(ctx):], nil
	}
	cont, err = tok.Encode(continuation)
	return ctx, cont, err
}

// MaxLength is the longest scored sequence, prefix included: the
// option, capped by the model's context (when it has one).
func (m Model) MaxLength(opt lm.ScoreOptions) int {
	n := opt.MaxLength
	if n <= 0 || (m.Context > 0 && n > m.Context) {
		n = m.Context
	}
	return n
}

// LogLikelihood scores each continuation given its context. The scored
// sequence is [prefix] + context + continuation, split by EncodePair;
// when it is longer than MaxLength (or the model's context) its left end
// is cut and Truncated set. ContextTokens counts the context tokens the
// model conditioned on, the prefix not included.
func (m Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	if m.Closed {
		return nil, ErrClosed
	}
	limit := m.MaxLength(opt)
	out := make([]lm.LLResult, len(reqs))
	var seqs []ScoreSeq
	var owner []int
	type pair struct {
		ctx, cont []int
		err       error
	}
	encoded := map[[2]string]pair{} // μBench repeats a context for each choice
	for i, r := range reqs {
		key := [2]string{r.Context, r.Continuation}
		p, ok := encoded[key]
		if !ok {
			p.ctx, p.cont, p.err = EncodePair(m.Tokenizer, r.Context, r.Continuation)
			encoded[key] = p
		}
		res := &out[i]
		if p.err != nil {
			res.Err = p.err
			continue
		}
		c, k := p.ctx, p.cont
		res.ContinuationTokens = len(k)
		switch {
		case len(k) == 0:
			res.Err = fmt.Errorf("the continuation %q encodes to no tokens; there is nothing to score", r.Continuation)
			continue
		case len(k) > limit-1:
			res.Err = fmt.Errorf("the continuation has %d tokens but at most %d fit in a %d-token sequence with its context; raise MaxLength or shorten it", len(k), limit-1, limit)
			continue
		}
		tokens := make([]int, 0, 1+len(c)+len(k))
		tokens = append(append(append(tokens, m.Prefix), c...), k...)
		res.ContextTokens = len(c)
		if len(tokens) > limit {
			tokens = tokens[len(tokens)-limit:]
			res.Truncated = true
			res.ContextTokens = limit - len(k)
		}
		seqs = append(seqs, ScoreSeq{Tokens: tokens, N: len(k)})
		owner = append(owner, i)
	}
	scores, err := m.ScoreSeqs(ctx, seqs, opt.Progress)
	if err != nil {
		return nil, err
	}
	for j, s := range scores {
		res := &out[owner[j]]
		res.LogProb, res.IsGreedy = s.LogProb, s.Greedy
		res.Err = checkFinite(s)
	}
	return out, nil
}

// RollingLogLikelihood scores every token of each text exactly once, the
// first given only the prefix. A text longer than a window (MaxLength or
// the model's context) is cut into lm.RollingWindows' disjoint windows:
// each window scores the next run of tokens, conditioned on as many
// preceding tokens as fit.
func (m Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	if m.Closed {
		return nil, ErrClosed
	}
	window := m.MaxLength(opt)
	out := make([]lm.RollingResult, len(texts))
	var seqs []ScoreSeq
	var owner []int
	for i, text := range texts {
		res := &out[i]
		res.Bytes = len(text)
		if window < 2 {
			res.Err = fmt.Errorf("a %d-token window cannot score anything; MaxLength must be at least 2", window)
			continue
		}
		tokens, err := m.Tokenizer.Encode(text)
		if err != nil {
			res.Err = err
			continue
		}
		res.Tokens = len(tokens)
		for _, w := range lm.RollingWindows(tokens, m.Prefix, window) {
			seqs = append(seqs, ScoreSeq{Tokens: w.Tokens, N: w.Scored})
			owner = append(owner, i)
			res.Windows++
		}
	}
	scores, err := m.ScoreSeqs(ctx, seqs, opt.Progress)
	if err != nil {
		return nil, err
	}
	for j, s := range scores {
		res := &out[owner[j]]
		res.LogProb += s.LogProb
		if err := checkFinite(s); err != nil {
			res.Err = err
		}
	}
	return out, nil
}
