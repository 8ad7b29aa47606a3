package llamacpp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/feather-eval/feather/harness/lm"
)

// scoreSeq is a token sequence whose last n tokens are scored.
type scoreSeq struct {
	tokens []int
	n      int
}

// seqScore is a scored sequence's summed log-probability and whether
// every scored token was the argmax.
type seqScore struct {
	logprob float64
	greedy  bool
}

// encodePair tokenizes a context and its continuation so that no token
// spans the boundary, by the onnx backend's rule (lm-eval's, without its
// whitespace move): when the context's own encoding is a prefix of the
// encoding of both, the continuation is the rest, tokenized as the model
// reads the whole text; otherwise the two are encoded apart.
func (m *Model) encodePair(context, continuation string) (ctx, cont []int, err error) {
	if ctx, err = m.encode(context); err != nil {
		return nil, nil, err
	}
	whole, err := m.encode(context + continuation)
	if err != nil {
		return nil, nil, err
	}
	if len(whole) >= len(ctx) && slices.Equal(whole[:len(ctx)], ctx) {
		return ctx, whole[len(ctx):], nil
	}
	cont, err = m.encode(continuation)
	return ctx, cont, err
}

// maxLength is the longest scored sequence, prefix included: the option,
// capped by the model's context.
func (m *Model) maxLength(opt lm.ScoreOptions) int {
	if n := opt.MaxLength; n > 0 && n < m.ctxLen {
		return n
	}
	return m.ctxLen
}

// LogLikelihood scores each continuation given its context, as the onnx
// backend does: the scored sequence is [prefix] + context + continuation
// (prefix: BOS, or EOS when the vocabulary has none); a sequence longer
// than MaxLength (or the model's context) loses its left end and is
// marked Truncated. ContextTokens counts the context tokens the model
// conditioned on, the prefix not included.
func (m *Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	if m.lib == nil {
		return nil, errClosed
	}
	limit := m.maxLength(opt)
	out := make([]lm.LLResult, len(reqs))
	var seqs []scoreSeq
	var owner []int
	for i, r := range reqs {
		res := &out[i]
		c, k, err := m.encodePair(r.Context, r.Continuation)
		if err != nil {
			res.Err = err
			continue
		}
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
		tokens = append(append(append(tokens, m.prefix), c...), k...)
		res.ContextTokens = len(c)
		if len(tokens) > limit {
			tokens = tokens[len(tokens)-limit:]
			res.Truncated = true
			res.ContextTokens = limit - len(k)
		}
		seqs = append(seqs, scoreSeq{tokens: tokens, n: len(k)})
		owner = append(owner, i)
	}
	scores, err := m.scoreSeqs(ctx, seqs, opt.Progress)
	if err != nil {
		return nil, err
	}
	for j, s := range scores {
		res := &out[owner[j]]
		res.LogProb, res.IsGreedy = s.logprob, s.greedy
		res.Err = checkFinite(s)
	}
	return out, nil
}

// RollingLogLikelihood scores every token of each text exactly once, the
// first given only the prefix, in lm.RollingWindows' windows of at most
// MaxLength (or the model's context) tokens.
func (m *Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	if m.lib == nil {
		return nil, errClosed
	}
	window := m.maxLength(opt)
	out := make([]lm.RollingResult, len(texts))
	var seqs []scoreSeq
	var owner []int
	for i, text := range texts {
		res := &out[i]
		res.Bytes = len(text)
		if window < 2 {
			res.Err = fmt.Errorf("a %d-token window cannot score anything; MaxLength must be at least 2", window)
			continue
		}
		tokens, err := m.encode(text)
		if err != nil {
			res.Err = err
			continue
		}
		res.Tokens = len(tokens)
		for _, w := range lm.RollingWindows(tokens, m.prefix, window) {
			seqs = append(seqs, scoreSeq{tokens: w.Tokens, n: w.Scored})
			owner = append(owner, i)
			res.Windows++
		}
	}
	scores, err := m.scoreSeqs(ctx, seqs, opt.Progress)
	if err != nil {
		return nil, err
	}
	for j, s := range scores {
		res := &out[owner[j]]
		res.LogProb += s.logprob
		if err := checkFinite(s); err != nil {
			res.Err = err
		}
	}
	return out, nil
}

// errNaN reports a model that produced NaN logits for a scored token.
var errNaN = errors.New("the model produced NaN log-probabilities (broken weights)")

func checkFinite(s seqScore) error {
	if math.IsNaN(s.logprob) {
		return errNaN
	}
	return nil
}
