package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/lm"
)

func TestScoreCommand(t *testing.T) {
	dir, _ := designedModel(t)
	reqs := []lm.LLRequest{
		{Context: "The cat sat on the", Continuation: " mat"},
		{Context: "The cat sat on the", Continuation: " hat"},
		{Context: "", Continuation: "Once upon a time"},
		{Context: "Hello", Continuation: ""},
		{Context: "A long context that will not fit in twelve tokens, not by a long way", Continuation: " ok"},
	}
	var in strings.Builder
	for _, r := range reqs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		in.Write(b)
		in.WriteString("\n\n") // blank lines are skipped
	}
	var out, errb bytes.Buffer
	code := dispatch([]string{"score", "--model", dir, "--max-length", "12"}, strings.NewReader(in.String()), &out, &errb)
	assert.Equal(t, 1, code, "one request cannot be scored")
	assert.Equal(t, "feather score: request 4: the continuation \"\" encodes to no tokens; there is nothing to score\n", errb.String())

	m, err := onnx.Open(context.Background(), dir, onnx.Options{Chat: "no"})
	require.NoError(t, err)
	defer m.Close()
	want, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{MaxLength: 12})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, len(reqs))
	for i, line := range lines {
		var got scoreLine
		require.NoError(t, json.Unmarshal([]byte(line), &got))
		w := want[i]
		if w.Err != nil {
			require.Equal(t, 3, i, "only the empty continuation fails")
			assert.Equal(t, scoreLine{Error: w.Err.Error()}, got)
			assert.Equal(t, `{"logprob":0,"is_greedy":false,"context_tokens":0,"continuation_tokens":0,"truncated":false,"error":"the continuation \"\" encodes to no tokens; there is nothing to score"}`, line)
			continue
		}
		assert.Equal(t, scoreLine{LogProb: w.LogProb, IsGreedy: w.IsGreedy, ContextTokens: w.ContextTokens,
			ContinuationTokens: w.ContinuationTokens, Truncated: w.Truncated}, got, "line %d", i+1)
	}
	assert.Contains(t, lines[4], `"truncated":true`)
}

func TestScoreCommandErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		stderr string
	}{
		{"no model", nil, "", "feather score: --model DIR|FILE.gguf is required\n"},
		{"stray argument", []string{"--model", "m", "file.jsonl"}, "", "feather score: unexpected argument \"file.jsonl\"; requests are read from stdin\n"},
		{"bad JSON", []string{"--model", "m"}, "{\"context\": \"a\", \"continuation\": \"b\"}\n{\"context\": \"a\",}\n",
			"feather score: stdin:2: invalid character '}' looking for beginning of object key string; each line must be {\"context\": \"...\", \"continuation\": \"...\"}\n"},
		{"unknown field", []string{"--model", "m"}, `{"context": "a", "continuation": "b", "gold": 1}`,
			"feather score: stdin:1: json: unknown field \"gold\"; each line must be {\"context\": \"...\", \"continuation\": \"...\"}\n"},
		{"missing field", []string{"--model", "m"}, `{"context": "a"}`,
			"feather score: stdin:1: \"context\" and \"continuation\" are both required (strings)\n"},
		{"empty input", []string{"--model", "m"}, "\n",
			"feather score: stdin has no requests; write one {\"context\": \"...\", \"continuation\": \"...\"} object per line\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"score"}, tt.args...), strings.NewReader(tt.stdin), &out, &errb)
			assert.Equal(t, 2, code)
			assert.Equal(t, tt.stderr, errb.String())
			assert.Empty(t, out.String())
		})
	}
}
