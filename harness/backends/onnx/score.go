package onnx

import (
	"context"
	"fmt"
	"slices"

	"github.com/feather-eval/feather/harness/lm"
)

// encodePair tokenizes a context and its continuation so that no token
// spans the boundary. The rule (lm-eval's, without its whitespace move):
// encode context+continuation whole; when the context's own encoding is a
// prefix of that, the continuation is the rest, so it is tokenized exactly
// as the model reads the whole text. Otherwise a token would straddle the
// boundary, and the two are encoded separately and concatenated. Neither
// gets special tokens: the scoring prefix is added explicitly.
func (m *Model) encodePair(context, continuation string) (ctx, cont []int) {
	ctx = m.tok.Encode(context, false)
	whole := m.tok.Encode(context+continuation, false)
	if len(whole) >= len(ctx) && slices.Equal(whole[:len(ctx)], ctx) {
		return ctx, whole[len(ctx):]
	}
	return ctx, m.tok.Encode(continuation, false)
}

// maxLength is the longest scored sequence, prefix included: the
// option, capped by the model's context.
func (m *Model) maxLength(opt lm.ScoreOptions) int {
	n := opt.MaxLength
	if n <= 0 || (m.ctxLen > 0 && n > m.ctxLen) {
		n = m.ctxLen
	}
	return n
}

// LogLikelihood scores each continuation given its context. The scored
// sequence is [prefix] + context + continuation (prefix: BOS, or EOS
// when the tokenizer has none); when it is longer than MaxLength (or the
// model's context) its left end is cut and Truncated set. ContextTokens
// counts the context tokens the model conditioned on, the prefix not
// included.
func (m *Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	if len(m.runners) == 0 {
		return nil, errClosed
	}
	limit := m.maxLength(opt)
	out := make([]lm.LLResult, len(reqs))
	var seqs []scoreSeq
	var owner []int
	encoded := map[[2]string][2][]int{}
	for i, r := range reqs {
		key := [2]string{r.Context, r.Continuation}
		pair, ok := encoded[key]
		if !ok {
			c, k := m.encodePair(r.Context, r.Continuation)
			pair = [2][]int{c, k}
			encoded[key] = pair
		}
		c, k := pair[0], pair[1]
		res := &out[i]
		res.ContinuationTokens = len(k)
		if len(k) == 0 {
			res.Err = fmt.Errorf("the continuation %q encodes to no tokens; there is nothing to score", r.Continuation)
			continue
		}
		if len(k) > limit-1 {
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
// first given only the prefix. A text longer than a window (MaxLength or
// the model's context) is cut into lm-eval's disjoint windows: each window
// scores the next run of tokens, conditioned on as many preceding tokens as
// fit.
func (m *Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	if len(m.runners) == 0 {
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
		tokens := m.tok.Encode(text, false)
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
