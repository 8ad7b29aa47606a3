package onnx

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/local"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

// The designed bigram model's log P(next | prev) is a known table, so
// scores are checked against exact values (1e-5), not against another run.

const designedTol = 1e-5

var llCases = []lm.LLRequest{
	{Context: "The cat sat on the", Continuation: " mat"},
	{Context: "The cat sat on the", Continuation: " mat, and then it slept for a while"},
	{Context: "The cat sat on the", Continuation: " hat"},
	{Context: "", Continuation: "Once upon a time"},
	{Context: "Numbers: 1, 2, 3,", Continuation: " 4"},
	{Context: "Unicode: café,", Continuation: " naïve — déjà vu"},
}

func TestLogLikelihoodDesigned(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	require.Equal(t, testmodel.BOSID, m.prefix)
	res, err := m.LogLikelihood(context.Background(), llCases, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, req := range llCases {
		ctx, cont := encodePair(t, m, req.Context, req.Continuation)
		want, greedy := bg.ContinuationLogProb(append([]int{testmodel.BOSID}, ctx...), cont)
		require.NoError(t, res[i].Err)
		assert.InDelta(t, want, res[i].LogProb, designedTol, "request %d", i)
		assert.Equal(t, greedy, res[i].IsGreedy, "request %d", i)
		assert.Equal(t, len(ctx), res[i].ContextTokens)
		assert.Equal(t, len(cont), res[i].ContinuationTokens)
		assert.False(t, res[i].Truncated)
	}
}

func TestLogLikelihoodGreedyChain(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	p := m.tok.Encode(chainPrompt, false)
	start := p[len(p)-1]
	seq := append(append([]int{m.prefix}, p...), chainTokens...)
	got, err := m.scoreSeqs(context.Background(), []local.ScoreSeq{
		{Tokens: seq, N: len(chainTokens)},
		{Tokens: append(slices.Clone(seq[:len(seq)-1]), testmodel.EOSID), N: 2},
	}, nil)
	require.NoError(t, err)
	want := bg.LogProb(start, chainTokens[0]) + bg.LogProb(chainTokens[0], chainTokens[1])
	assert.InDelta(t, want, got[0].LogProb, designedTol)
	assert.True(t, got[0].Greedy, "the designed chain is the argmax path")
	assert.InDelta(t, bg.LogProb(start, chainTokens[0])+bg.LogProb(chainTokens[0], testmodel.EOSID), got[1].LogProb, designedTol)
	assert.False(t, got[1].Greedy)
}

func TestLogLikelihoodTruncation(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	req := lm.LLRequest{Context: "The cat sat on the mat, and then it slept for a while.", Continuation: " The end"}
	ctx, cont := encodePair(t, m, req.Context, req.Continuation)
	require.Greater(t, len(ctx), 6)
	const maxLen = 6
	res, err := m.LogLikelihood(context.Background(), []lm.LLRequest{req}, lm.ScoreOptions{MaxLength: maxLen})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	// A bigram model sees only the previous token, so cutting the left end
	// leaves the value alone; what changes is the bookkeeping.
	want, greedy := bg.ContinuationLogProb(ctx, cont)
	assert.InDelta(t, want, res[0].LogProb, designedTol)
	assert.Equal(t, greedy, res[0].IsGreedy)
	assert.True(t, res[0].Truncated)
	assert.Equal(t, maxLen-len(cont), res[0].ContextTokens)
	assert.Equal(t, len(cont), res[0].ContinuationTokens)

	// A limit that leaves no room for the continuation is that request's
	// error; the others are still scored.
	res, err = m.LogLikelihood(context.Background(), []lm.LLRequest{req, {Context: "a", Continuation: " b"}}, lm.ScoreOptions{MaxLength: len(cont)})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, fmt.Sprintf("the continuation has %d tokens but at most %d fit in a %d-token sequence with its context; raise MaxLength or shorten it", len(cont), len(cont)-1, len(cont)))
	assert.NoError(t, res[1].Err)
	// The model's own context caps MaxLength.
	assert.Equal(t, bg.Config.MaxPositions, m.requests().MaxLength(lm.ScoreOptions{MaxLength: 1 << 20}))
	assert.Equal(t, bg.Config.MaxPositions, m.requests().MaxLength(lm.ScoreOptions{}))
}

func TestLogLikelihoodEmptyContinuation(t *testing.T) {
	m := open(t, bigram(t).Dir, Options{})
	res, err := m.LogLikelihood(context.Background(), []lm.LLRequest{{Context: "Hello", Continuation: ""}, {Context: "Hello", Continuation: " you"}}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, `the continuation "" encodes to no tokens; there is nothing to score`)
	assert.NoError(t, res[1].Err)
	assert.Less(t, res[1].LogProb, 0.0)
}

func TestRollingLogLikelihoodDesigned(t *testing.T) {
	bg := bigram(t)
	m := open(t, bg.Dir, Options{})
	texts := []string{
		"",
		"Short.",
		"A longer text that needs several windows when the window is small, and one when it is not.",
	}
	for _, maxLen := range []int{0, 2, 8, 17} {
		res, err := m.RollingLogLikelihood(context.Background(), texts, lm.ScoreOptions{MaxLength: maxLen})
		require.NoError(t, err)
		window := maxLen
		if window == 0 {
			window = bg.Config.MaxPositions
		}
		for i, text := range texts {
			toks := m.tok.Encode(text, false)
			require.NoError(t, res[i].Err)
			want := bg.SequenceLogProb(append([]int{testmodel.BOSID}, toks...))
			assert.InDelta(t, want, res[i].LogProb, designedTol, "text %d, max length %d", i, maxLen)
			assert.Equal(t, len(toks), res[i].Tokens)
			assert.Equal(t, len(text), res[i].Bytes)
			assert.Equal(t, len(lm.RollingWindows(toks, 0, window)), res[i].Windows)
		}
	}
	res, err := m.RollingLogLikelihood(context.Background(), texts[1:2], lm.ScoreOptions{MaxLength: 1})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, "a 1-token window cannot score anything; MaxLength must be at least 2")
}

// TestEOSPrefixWithoutBOS removes BOS from a copy of the designed model's
// folder: every sequence must then start with EOS, still unscored.
func TestEOSPrefixWithoutBOS(t *testing.T) {
	bg := bigram(t)
	dir := copyFolder(t, bg.Dir)
	editJSON(t, filepath.Join(dir, "tokenizer_config.json"), func(v map[string]any) {
		v["bos_token"] = nil
		v["add_bos_token"] = false
	})
	editJSON(t, filepath.Join(dir, "special_tokens_map.json"), func(v map[string]any) { delete(v, "bos_token") })
	for _, f := range []string{"config.json", "generation_config.json"} {
		editJSON(t, filepath.Join(dir, f), func(v map[string]any) { v["bos_token_id"] = nil })
	}
	m := open(t, dir, Options{})
	_, hasBOS := m.tok.BOS()
	require.False(t, hasBOS)
	require.Equal(t, testmodel.EOSID, m.prefix)

	res, err := m.LogLikelihood(context.Background(), llCases, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, req := range llCases {
		ctx, cont := encodePair(t, m, req.Context, req.Continuation)
		want, greedy := bg.ContinuationLogProb(append([]int{testmodel.EOSID}, ctx...), cont)
		assert.InDelta(t, want, res[i].LogProb, designedTol, "request %d", i)
		assert.Equal(t, greedy, res[i].IsGreedy)
	}
	text := "EOS starts this one."
	roll, err := m.RollingLogLikelihood(context.Background(), []string{text}, lm.ScoreOptions{MaxLength: 4})
	require.NoError(t, err)
	toks := m.tok.Encode(text, false)
	assert.InDelta(t, bg.SequenceLogProb(append([]int{testmodel.EOSID}, toks...)), roll[0].LogProb, designedTol)

	// Without BOS an empty raw prompt has nothing to continue.
	gen, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: ""}, {Prompt: chainPrompt, MaxNewTokens: 5}})
	require.NoError(t, err)
	assert.EqualError(t, gen[0].Err, "the prompt encodes to no tokens; there is nothing to continue")
	assert.Equal(t, m.tok.Encode(chainPrompt, false), m.tok.Encode(chainPrompt, true), "no BOS added to raw prompts")
	assert.Equal(t, m.tok.Decode(chainTokens, true), gen[1].Text)
}

func TestEncodePair(t *testing.T) {
	m := open(t, bigram(t).Dir, Options{})
	enc := func(s string) []int { return m.tok.Encode(s, false) }

	// Whole-text split: the context's tokens are a prefix of the whole's.
	ctx, cont := encodePair(t, m, "The cat sat on the", " mat")
	require.Equal(t, enc("The cat sat on the"), ctx)
	whole := enc("The cat sat on the mat")
	require.Equal(t, ctx, whole[:len(ctx)], "fixture: this pair splits cleanly")
	assert.Equal(t, whole[len(ctx):], cont)

	// A token would straddle the boundary ("Th" + "e cat" reads "The"
	// whole): both halves are encoded on their own.
	ctx, cont = encodePair(t, m, "Th", "e cat")
	whole = enc("The cat")
	require.NotEqual(t, enc("Th"), whole[:min(len(whole), len(enc("Th")))], "fixture: this pair does not split cleanly")
	assert.Equal(t, enc("Th"), ctx)
	assert.Equal(t, enc("e cat"), cont)
}

// encodePair is how the model splits a request: local.EncodePair with its
// tokenizer.
func encodePair(t *testing.T, m *Model, context, continuation string) (ctx, cont []int) {
	t.Helper()
	ctx, cont, err := local.EncodePair(localTokenizer{m.tok}, context, continuation)
	require.NoError(t, err)
	return ctx, cont
}

func copyFolder(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	require.NoError(t, err)
	return dst
}

func editJSON(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	v := map[string]any{}
	require.NoError(t, json.Unmarshal(data, &v))
	edit(v)
	data, err = json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}
