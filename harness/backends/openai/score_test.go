package openai_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

func scorer(t *testing.T, s *fakeserver.Server) lm.Scorer {
	t.Helper()
	m, err := openai.Open(s.Entry("base", "smollm2-135m"), openai.Options{Getenv: env()})
	require.NoError(t, err)
	return m.(lm.Scorer)
}

// The fake server's toy model: tokens split before spaces, BOS "<s>" first,
// log-prob -len/4 per token, runner-up " the" at -1 everywhere.
func TestLogLikelihood(t *testing.T) {
	tests := []struct {
		name string
		req  lm.LLRequest
		want lm.LLResult
	}{
		{"greedy word", lm.LLRequest{Context: "The cat", Continuation: " sat"},
			lm.LLResult{LogProb: -1.0, IsGreedy: true, ContextTokens: 3, ContinuationTokens: 1}},
		{"not greedy", lm.LLRequest{Context: "The capital of France is", Continuation: " Paris"},
			lm.LLResult{LogProb: -1.5, IsGreedy: false, ContextTokens: 6, ContinuationTokens: 1}},
		{"several tokens", lm.LLRequest{Context: "Answer:", Continuation: " a b"},
			lm.LLResult{LogProb: -1.0, IsGreedy: true, ContextTokens: 2, ContinuationTokens: 2}},
		// "foo"+"bar baz" tokenises as "foobar", " baz": the straddling
		// token counts toward the continuation.
		{"straddling token", lm.LLRequest{Context: "foo", Continuation: "bar baz"},
			lm.LLResult{LogProb: -2.5, IsGreedy: false, ContextTokens: 1, ContinuationTokens: 2}},
		// Offsets count code points, as Python does.
		{"unicode", lm.LLRequest{Context: "Café ☕", Continuation: " crème"},
			lm.LLResult{LogProb: -1.5, IsGreedy: false, ContextTokens: 3, ContinuationTokens: 1}},
		{"empty context scores from BOS", lm.LLRequest{Context: "", Continuation: "Hi"},
			lm.LLResult{LogProb: -0.5, IsGreedy: true, ContextTokens: 1, ContinuationTokens: 1}},
	}
	s := fakeserver.Start(t, nil)
	sc := scorer(t, s)
	var reqs []lm.LLRequest
	for _, tt := range tests {
		reqs = append(reqs, tt.req)
	}
	got, err := sc.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, got[i].Err)
			assert.Equal(t, tt.want, got[i])
		})
	}
	r := s.Requests()[0]
	assert.Equal(t, "/v1/completions", r.Path)
	body := decode(t, r.Body)
	delete(body, "prompt")
	assert.Equal(t, map[string]any{"model": "smollm2-135m", "echo": true, "logprobs": 1.0, "max_tokens": 1.0, "temperature": 0.0}, body)
}

func TestLogLikelihoodTruncatesTheContext(t *testing.T) {
	s := fakeserver.Start(t, nil)
	got, err := scorer(t, s).LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a b c d e", Continuation: " f"}}, lm.ScoreOptions{MaxLength: 4})
	require.NoError(t, err)
	require.NoError(t, got[0].Err)
	// <s> a " b" " c" " d" " e" " f" is 7 tokens; keeping 4 cuts "a b c".
	assert.Equal(t, lm.LLResult{LogProb: -0.5, IsGreedy: true, ContextTokens: 3, ContinuationTokens: 1, Truncated: true}, got[0])
	reqs := s.Requests()
	require.Len(t, reqs, 2)
	assert.Equal(t, "a b c d e f", reqs[0].Prompt)
	assert.Equal(t, " d e f", reqs[1].Prompt)

	got, err = scorer(t, s).LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a", Continuation: " b c d e"}}, lm.ScoreOptions{MaxLength: 3})
	require.NoError(t, err)
	assert.ErrorContains(t, got[0].Err, "the continuation alone is 5 tokens with the server's prefix; it cannot fit the maximum length 3")
}

func TestRollingLogLikelihood(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		max      int
		want     lm.RollingResult
		wantReqs []string
	}{
		{"one window", "The cat sat", 0,
			lm.RollingResult{LogProb: -2.75, Tokens: 3, Bytes: 11, Windows: 1}, []string{"The cat sat"}},
		// 7 text tokens after BOS, 4 per request: the first window holds 3,
		// each later one a context token and 2 new ones.
		{"windows", "a b c d e f g", 4,
			lm.RollingResult{LogProb: -3.25, Tokens: 7, Bytes: 13, Windows: 3}, []string{"a b c d e f g", " c d e", " e f g"}},
		{"bytes are UTF-8", "naïve café", 0,
			lm.RollingResult{LogProb: -2.5, Tokens: 2, Bytes: 12, Windows: 1}, []string{"naïve café"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fakeserver.Start(t, nil)
			got, err := scorer(t, s).RollingLogLikelihood(context.Background(), []string{tt.text}, lm.ScoreOptions{MaxLength: tt.max})
			require.NoError(t, err)
			require.NoError(t, got[0].Err)
			assert.Equal(t, tt.want, got[0])
			var prompts []string
			for _, r := range s.Requests() {
				prompts = append(prompts, r.Prompt)
			}
			assert.Equal(t, tt.wantReqs, prompts)
		})
	}
}

func TestScoringCustomLogProbs(t *testing.T) {
	// A script can make any continuation likely, e.g. to pin a μBench answer.
	s := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{LogProb: func(prev []string, tok string) float64 {
			if tok == " B" && prev[len(prev)-1] == " Answer:" {
				return -0.125
			}
			return -3
		}}
	})
	got, err := scorer(t, s).LogLikelihood(context.Background(), []lm.LLRequest{
		{Context: "Q: x Answer:", Continuation: " A"},
		{Context: "Q: x Answer:", Continuation: " B"},
	}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.Equal(t, -3.0, got[0].LogProb)
	assert.Equal(t, -0.125, got[1].LogProb)
	assert.True(t, got[1].IsGreedy)
}

func TestDroppedPromptLogProbsFailLoudly(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{DropPromptLogprobs: true}))
	sc := scorer(t, s)
	ll, err := sc.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "The capital of France is", Continuation: " Paris"}}, lm.ScoreOptions{})
	require.NoError(t, err)
	require.Error(t, ll[0].Err)
	assert.Equal(t, `openai model "smollm2-135m" at `+s.URL+`: `+s.URL+`/completions returned 1 token(s), 1 with a log-prob, for a 7-token prompt `+
		`(echo: true, logprobs: 1; tokens [" the"]): the server dropped the prompt's log-probs, and scoring without them would give every choice the same score (exactly chance). `+
		`Score with a server that returns prompt log-probs: vLLM does (start it with --max-logprobs 1 or more; it also takes prompt_logprobs); ollama and LM Studio do not`,
		ll[0].Err.Error())

	rr, err := sc.RollingLogLikelihood(context.Background(), []string{"some text"}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.ErrorContains(t, rr[0].Err, "dropped the prompt's log-probs")
}

func TestScoringErrors(t *testing.T) {
	s := fakeserver.Start(t, fakeserver.Sequence(fakeserver.Reply{Status: 400, ErrorMessage: "This model's maximum context length is 2048 tokens"}))
	sc := scorer(t, s)
	ll, err := sc.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "a", Continuation: ""}, {Context: "a", Continuation: " b"}}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.ErrorContains(t, ll[0].Err, "the continuation is empty")
	assert.ErrorContains(t, ll[1].Err, "HTTP 400 Bad Request: This model's maximum context length is 2048 tokens")
}
