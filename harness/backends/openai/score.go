package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/parallel"
	"github.com/feather-eval/feather/internal/redact"
)

// ScoringModel is an "openai" model that also scores (lm.Scorer), through
// the completions endpoint: the text is sent with echo: true, logprobs: 1,
// max_tokens: 1 and temperature 0, and the echoed prompt tokens' log-probs
// are summed (the one generated token is ignored).
//
// Remote scoring follows the server's tokenizer: the server adds its BOS
// token itself (vLLM does when the tokenizer has one), so the harness adds
// none. Where the server adds no prefix, the text's first token has no
// context and no log-prob, and is not scored.
//
// Where the continuation starts: the server reports each token's character
// offset (text_offset, in code points as Python counts them). Offsets are
// read back from the end of the echoed prompt, so a BOS token's text in the
// offsets does not shift the boundary. Context and continuation are sent as
// one string and tokenised together, so a token can straddle the boundary
// ("foo"+"bar" -> "foobar"); such a token counts toward the continuation,
// because it is the first prediction that involves continuation text.
// Continuations that start with a space, as μBench's do, rarely straddle.
//
// A continuation is greedy when no top_logprobs entry beats any of its
// tokens (a tie counts as greedy).
//
// The server must return one log-prob per prompt token (the first may be
// null). Some servers silently return none, which would score every choice
// alike and give exactly chance; that is an error naming the fix.
type ScoringModel struct{ *Model }

// LogLikelihood scores each continuation given its context.
func (s *ScoringModel) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	out := make([]lm.LLResult, len(reqs))
	parallel.For(len(reqs), s.opts.Concurrency, func(i int) { out[i] = s.logLikelihood(ctx, reqs[i], opt) })
	return out, ctx.Err()
}

// RollingLogLikelihood scores whole texts. A text longer than
// opt.MaxLength tokens is scored in disjoint windows as
// lm-evaluation-harness does: the first window is scored in the full
// request (a causal model's log-probs do not depend on later tokens); each
// later one is its own request holding one token of context before its
// block. Every token is scored once: a window scores the tokens that
// contain any of its block's characters. The whole text must fit the
// server's context, which tells where the tokens are.
func (s *ScoringModel) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	out := make([]lm.RollingResult, len(texts))
	parallel.For(len(texts), s.opts.Concurrency, func(i int) { out[i] = s.rolling(ctx, texts[i], opt) })
	return out, ctx.Err()
}

// echoed is the server's tokenisation of a prompt with its log-probs.
type echoed struct {
	prompt  string
	tokens  []string
	lps     []*float64
	tops    []map[string]float64
	offsets []int
	n       int // prompt tokens, the server's prefix included
}

// end is the offset just past the prompt, in the server's offset space.
func (e *echoed) end() int {
	return e.offsets[e.n-1] + utf8.RuneCountInString(e.tokens[e.n-1])
}

// tokenEnd is the offset just past token i.
func (e *echoed) tokenEnd(i int) int { return e.offsets[i] + utf8.RuneCountInString(e.tokens[i]) }

// firstEndingAfter is the first prompt token that ends after offset, or n.
func (e *echoed) firstEndingAfter(offset int) int {
	for i := 0; i < e.n; i++ {
		if e.tokenEnd(i) > offset {
			return i
		}
	}
	return e.n
}

// sum adds the log-probs of tokens [from, n) and says whether each was the
// top choice.
func (e *echoed) sum(from int) (lp float64, greedy bool, err error) {
	greedy = true
	for i := from; i < e.n; i++ {
		if e.lps[i] == nil {
			if i == 0 {
				return 0, false, errors.New("the text starts at the prompt's first token, which has no log-prob (the server adds no BOS token); give the continuation a non-empty context")
			}
			return 0, false, fmt.Errorf("token %d (%q) came back without a log-prob", i, e.tokens[i])
		}
		lp += *e.lps[i]
		if i >= len(e.tops) || len(e.tops[i]) == 0 {
			return 0, false, fmt.Errorf("token %d (%q) came back without top_logprobs, so greediness is unknown; the server ignores logprobs: 1", i, e.tokens[i])
		}
		for _, v := range e.tops[i] {
			if v > *e.lps[i] {
				greedy = false
			}
		}
	}
	return lp, greedy, nil
}

func (s *ScoringModel) logLikelihood(ctx context.Context, req lm.LLRequest, opt lm.ScoreOptions) lm.LLResult {
	fail := func(err error) lm.LLResult { return lm.LLResult{Err: fmt.Errorf("%s: %w", s.where(), err)} }
	if req.Continuation == "" {
		return fail(errors.New("the continuation is empty: there is nothing to score"))
	}
	contLen := utf8.RuneCountInString(req.Continuation)
	ctxText := req.Context
	truncated := false
	for cuts := 0; ; cuts++ {
		full := ctxText + req.Continuation
		e, err := s.echo(ctx, full)
		if err != nil {
			return fail(err)
		}
		end := e.end()
		first := e.firstEndingAfter(end - contLen)
		if opt.MaxLength > 0 && e.n > opt.MaxLength {
			if cuts == 3 {
				return fail(fmt.Errorf("still %d tokens after cutting the context three times to fit %d", e.n, opt.MaxLength))
			}
			// Drop the context's first tokens: cut the text where the
			// first kept token starts and ask again.
			textStart := end - utf8.RuneCountInString(full)
			prefix := e.firstEndingAfter(textStart)
			keep := prefix + e.n - opt.MaxLength
			if keep > first {
				return fail(fmt.Errorf("the continuation alone is %d tokens with the server's prefix; it cannot fit the maximum length %d", e.n-first+prefix, opt.MaxLength))
			}
			cut := e.offsets[keep] - textStart
			if cut < 0 || cut > utf8.RuneCountInString(ctxText) {
				return fail(fmt.Errorf("the server's text offsets do not match the prompt (token %d at offset %d); cannot truncate", keep, e.offsets[keep]))
			}
			ctxText = dropRunes(ctxText, cut)
			truncated = true
			continue
		}
		if first == e.n {
			return fail(fmt.Errorf("no token of the echoed prompt covers the continuation %q; the server's text offsets do not match the prompt", req.Continuation))
		}
		lp, greedy, err := e.sum(first)
		if err != nil {
			return fail(err)
		}
		return lm.LLResult{LogProb: lp, IsGreedy: greedy, ContextTokens: first, ContinuationTokens: e.n - first, Truncated: truncated}
	}
}

func (s *ScoringModel) rolling(ctx context.Context, text string, opt lm.ScoreOptions) lm.RollingResult {
	res := lm.RollingResult{Bytes: len(text)}
	fail := func(err error) lm.RollingResult {
		res.Err = fmt.Errorf("%s: %w", s.where(), err)
		return res
	}
	if text == "" {
		return fail(errors.New("the text is empty: there is nothing to score"))
	}
	e, err := s.echo(ctx, text)
	if err != nil {
		return fail(err)
	}
	textStart := e.end() - utf8.RuneCountInString(text)
	prefix := e.firstEndingAfter(textStart)
	// The first token has no log-prob when the server adds no prefix.
	from := prefix
	if from < e.n && e.lps[from] == nil {
		from++
	}
	last := e.n // the first window's end
	if opt.MaxLength > 0 && e.n > opt.MaxLength {
		last = opt.MaxLength
		if last <= from {
			return fail(fmt.Errorf("the maximum length %d leaves no room after the server's %d prefix tokens", opt.MaxLength, prefix))
		}
	}
	head := *e
	head.n = last
	lp, _, err := head.sum(from)
	if err != nil {
		return fail(err)
	}
	res.LogProb, res.Tokens, res.Windows = lp, last-from, 1
	block := opt.MaxLength - prefix - 1
	for start := last; start < e.n; start += block {
		if block < 1 {
			return fail(fmt.Errorf("the maximum length %d leaves no room for a window after the server's %d prefix tokens", opt.MaxLength, prefix))
		}
		stop := min(start+block, e.n)
		// Characters of the window: one context token, then the block.
		winFrom := e.offsets[start-1] - textStart
		blockFrom := e.offsets[start] - textStart
		winTo := e.tokenEnd(stop-1) - textStart
		if winFrom < 0 || blockFrom < winFrom || winTo < blockFrom {
			return fail(fmt.Errorf("the server's text offsets do not match the text (tokens %d..%d)", start, stop))
		}
		piece := runeSlice(text, winFrom, winTo)
		w, err := s.echo(ctx, piece)
		if err != nil {
			return fail(fmt.Errorf("window %d: %w", res.Windows+1, err))
		}
		wStart := w.end() - utf8.RuneCountInString(piece)
		first := w.firstEndingAfter(wStart + blockFrom - winFrom)
		wlp, _, err := w.sum(first)
		if err != nil {
			return fail(fmt.Errorf("window %d: %w", res.Windows+1, err))
		}
		res.LogProb += wlp
		res.Tokens += w.n - first
		res.Windows++
	}
	return res
}

// echo sends one prompt to the completions endpoint and checks that the
// prompt's log-probs came back.
func (m *Model) echo(ctx context.Context, prompt string) (*echoed, error) {
	header, secrets, err := m.credentials()
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{
		"model": m.model, "prompt": prompt,
		"echo": true, "logprobs": 1, "max_tokens": 1, "temperature": 0,
	})
	if err != nil {
		return nil, err
	}
	url := m.baseURL + "/completions"
	var raw []byte
	_, err = m.retry(ctx, attempt{header: header, secrets: secrets}, func(actx context.Context, a *attempt) error {
		req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&doer{client: m.http}).Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode/100 != 2 {
			return m.statusError(resp.StatusCode, errorMessage(a.secrets, data))
		}
		raw = data
		return nil
	})
	if err != nil {
		return nil, secrets.Err(err)
	}
	e, err := m.parseEcho(prompt, raw, secrets)
	return e, secrets.Err(err)
}

// parseEcho reads log-probs as float64 with nulls kept: go-openai's types
// hold them as float32 (losing precision a long sum accumulates) and read
// null as 0, which would hide exactly the dropped log-probs checked here.
func (m *Model) parseEcho(prompt string, raw []byte, secrets redact.Secrets) (*echoed, error) {
	var r struct {
		Choices []struct {
			Logprobs *struct {
				Tokens        []string             `json:"tokens"`
				TokenLogprobs []*float64           `json:"token_logprobs"`
				TopLogprobs   []map[string]float64 `json:"top_logprobs"`
				TextOffset    []int                `json:"text_offset"`
			} `json:"logprobs"`
		} `json:"choices"`
		Usage *wireUsage `json:"usage"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s/completions answered with something other than a completion: %v: %s", m.baseURL, err, secrets.Snippet(raw))
	}
	if len(r.Choices) == 0 {
		return nil, fmt.Errorf("%s/completions returned no choices: %s", m.baseURL, secrets.Snippet(raw))
	}
	e := &echoed{prompt: prompt}
	if lp := r.Choices[0].Logprobs; lp != nil {
		e.tokens, e.lps, e.tops, e.offsets = lp.Tokens, lp.TokenLogprobs, lp.TopLogprobs, lp.TextOffset
	}
	// max_tokens is 1: all but the last token are the prompt when the
	// server reports no usage.
	e.n = len(e.tokens) - 1
	if r.Usage != nil && r.Usage.PromptTokens > 0 {
		e.n = r.Usage.PromptTokens
	}
	nonNull := 0
	for _, v := range e.lps {
		if v != nil {
			nonNull++
		}
	}
	complete := e.n > 0 && len(e.tokens) >= e.n && len(e.lps) >= e.n && len(e.offsets) >= e.n
	if complete {
		for i := 1; i < e.n; i++ {
			if e.lps[i] == nil {
				complete = false
			}
		}
	}
	if !complete {
		got := e.tokens
		if len(got) > 8 {
			got = got[:8]
		}
		return nil, fmt.Errorf("%s/completions returned %d token(s), %d with a log-prob, for a %d-token prompt (echo: true, logprobs: 1; tokens %q): "+
			"the server dropped the prompt's log-probs, and scoring without them would give every choice the same score (exactly chance). "+
			"Score with a server that returns prompt log-probs: vLLM does (start it with --max-logprobs 1 or more; it also takes prompt_logprobs); "+
			"ollama and LM Studio do not", m.baseURL, len(e.tokens), nonNull, e.n, got)
	}
	for i := 1; i < e.n; i++ {
		if e.offsets[i] < e.offsets[i-1] {
			return nil, fmt.Errorf("%s/completions returned text offsets that go backwards at token %d (%d after %d)", m.baseURL, i, e.offsets[i], e.offsets[i-1])
		}
	}
	if e.end() < utf8.RuneCountInString(prompt) {
		return nil, fmt.Errorf("%s/completions echoed %d characters of a %d-character prompt", m.baseURL, e.end(), utf8.RuneCountInString(prompt))
	}
	return e, nil
}

// errorMessage reads an error body: OpenAI's {"error": {"message"}}, vLLM's
// {"message"} or the text itself.
func errorMessage(secrets redact.Secrets, body []byte) string {
	var r struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &r) == nil {
		if r.Error != nil && r.Error.Message != "" {
			return r.Error.Message
		}
		if r.Message != "" {
			return r.Message
		}
	}
	return secrets.Snippet(body)
}

func dropRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[i:]
		}
		n--
	}
	return ""
}

func runeSlice(s string, from, to int) string { return string([]rune(s)[from:to]) }
