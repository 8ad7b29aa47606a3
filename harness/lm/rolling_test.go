package lm_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
)

func TestRollingWindows(t *testing.T) {
	const P = 100 // the prefix token
	tests := []struct {
		name   string
		tokens []int
		window int
		want   []lm.Window
	}{
		{"empty", nil, 4, nil},
		{"fits", []int{1, 2, 3}, 4, []lm.Window{{Tokens: []int{P, 1, 2, 3}, Scored: 3}}},
		{"exactly one more", []int{1, 2, 3, 4}, 4, []lm.Window{
			{Tokens: []int{P, 1, 2, 3}, Scored: 3},
			{Tokens: []int{1, 2, 3, 4}, Scored: 1},
		}},
		{"several", []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 4, []lm.Window{
			{Tokens: []int{P, 1, 2, 3}, Scored: 3},
			{Tokens: []int{3, 4, 5, 6}, Scored: 3},
			{Tokens: []int{6, 7, 8, 9}, Scored: 3},
			{Tokens: []int{7, 8, 9, 10}, Scored: 1},
		}},
		{"window of two", []int{1, 2, 3}, 2, []lm.Window{
			{Tokens: []int{P, 1}, Scored: 1},
			{Tokens: []int{1, 2}, Scored: 1},
			{Tokens: []int{2, 3}, Scored: 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := lm.RollingWindows(tt.tokens, P, tt.window)
			assert.Equal(t, tt.want, got)
		})
	}
	// Every token is scored exactly once, in order, and no window is longer
	// than asked.
	tokens := make([]int, 1000)
	for i := range tokens {
		tokens[i] = i
	}
	for _, window := range []int{2, 3, 7, 512, 999, 1000, 1001, 4096} {
		var scored []int
		for _, w := range lm.RollingWindows(tokens, -1, window) {
			require.LessOrEqual(t, len(w.Tokens), window)
			require.Less(t, w.Scored, len(w.Tokens))
			scored = append(scored, w.Tokens[len(w.Tokens)-w.Scored:]...)
		}
		assert.Equal(t, tokens, scored, "window %d", window)
	}
}
