package lm_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
)

func ptr[T any](v T) *T { return &v }

func TestDefaultsApply(t *testing.T) {
	d := lm.Defaults{MaxNewTokens: 256, Sampling: lm.Sampling{Temperature: ptr(0.7), Seed: ptr(1234)}}
	tests := []struct {
		name string
		req  lm.GenerateRequest
		want lm.GenerateRequest
	}{
		{"fills what is unset", lm.GenerateRequest{Prompt: "q"},
			lm.GenerateRequest{Prompt: "q", MaxNewTokens: 256, Sampling: lm.Sampling{Temperature: ptr(0.7), Seed: ptr(1234)}}},
		{"keeps what the request declares", lm.GenerateRequest{Prompt: "q", MaxNewTokens: 20, Sampling: lm.Greedy()},
			lm.GenerateRequest{Prompt: "q", MaxNewTokens: 20, Sampling: lm.Sampling{Temperature: ptr(0.0), TopP: ptr(1.0), Seed: ptr(1234)}}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, d.Apply(tt.req), tt.name)
	}
	assert.Equal(t, lm.GenerateRequest{Prompt: "q"}, lm.Defaults{}.Apply(lm.GenerateRequest{Prompt: "q"}), "no defaults, no change")
}

func TestWithDefaults(t *testing.T) {
	m := &fake.Model{Reply: fake.Text("A"), LogProb: func(lm.LLRequest) lm.LLResult { return lm.LLResult{LogProb: -1} }}
	assert.Same(t, m, lm.WithDefaults(m, lm.Defaults{}), "nothing declared: the model itself")

	w := lm.WithDefaults(m, lm.Defaults{MaxNewTokens: 64})
	_, scores := w.(lm.Scorer)
	assert.True(t, scores, "a Scorer stays a Scorer")
	_, err := w.(lm.Generator).Generate(context.Background(), []lm.GenerateRequest{{Prompt: "a"}, {Prompt: "b", MaxNewTokens: 5}})
	require.NoError(t, err)
	got := m.Calls().Generate
	require.Len(t, got, 2)
	assert.Equal(t, 64, got[0].MaxNewTokens)
	assert.Equal(t, 5, got[1].MaxNewTokens)

	genOnly := struct {
		lm.Model
		lm.Generator
	}{m, m}
	_, scores = lm.WithDefaults(genOnly, lm.Defaults{MaxNewTokens: 64}).(lm.Scorer)
	assert.False(t, scores, "a generator alone gains no scoring")

	scoreOnly := struct {
		lm.Model
		lm.Scorer
	}{m, m}
	assert.Equal(t, lm.Model(scoreOnly), lm.WithDefaults(scoreOnly, lm.Defaults{MaxNewTokens: 64}), "nothing to apply to a model that cannot generate")
}

func TestTrial(t *testing.T) {
	ctx := context.Background()
	assert.Equal(t, 1, lm.Trial(ctx), "a request outside any trial is the first")
	assert.Equal(t, 3, lm.Trial(lm.WithTrial(ctx, 3)))
	assert.Equal(t, 2, lm.Trial(lm.WithTrial(lm.WithTrial(ctx, 3), 2)), "the innermost mark wins")
}
