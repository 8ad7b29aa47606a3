package faultmix_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver/faultmix"
)

// answer has ten content pieces and known counts.
func answer(fakeserver.Request) fakeserver.Reply {
	return fakeserver.Reply{Text: "one two three four five six seven eight nine ten", PromptTokens: 12, CompletionTokens: 10}
}

func request(i, attempt int) fakeserver.Request {
	return fakeserver.Request{Path: "/v1/chat/completions", Body: []byte(fmt.Sprintf(`{"n": %d}`, i)), Attempt: attempt}
}

func mix(shares ...faultmix.Share) *faultmix.Mix {
	return &faultmix.Mix{Seed: 7, Shares: shares, Answer: answer, Pace: 10 * time.Millisecond, Drip: 100 * time.Millisecond,
		RetryAfter: time.Second, Backoff: 750 * time.Millisecond, Timeout: 3 * time.Second}
}

// TestEachKind: the reply each kind gives, and the least time it costs.
func TestEachKind(t *testing.T) {
	clean := answer(fakeserver.Request{})
	halfCut := []string{"one", " two", " three", " four", " five"}
	tests := []struct {
		kind faultmix.Kind
		want fakeserver.Reply
		cost time.Duration
	}{
		{faultmix.RateLimit, fakeserver.Reply{Status: 429, RetryAfter: "1", ErrorMessage: "rate limited: slow down"}, time.Second},
		{faultmix.Status500, fakeserver.Reply{Status: 500, ErrorMessage: "internal server error"}, 750 * time.Millisecond},
		{faultmix.Status503, fakeserver.Reply{Status: 503, RetryAfter: "1", ErrorMessage: "overloaded"}, time.Second},
		{faultmix.Reset, fakeserver.Reply{Text: clean.Text, Chunks: halfCut, PromptTokens: 12, CompletionTokens: 10, Truncate: true, Reset: true}, 50 * time.Millisecond},
		{faultmix.Hang, fakeserver.Reply{Text: clean.Text, Chunks: halfCut, PromptTokens: 12, CompletionTokens: 10, Stall: true}, 3 * time.Second},
		{faultmix.Malformed, fakeserver.Reply{Text: clean.Text, PromptTokens: 12, CompletionTokens: 10, Malformed: "data: {\"choices\": [{\"delta\": {\"cont\n\n"}, 50 * time.Millisecond},
		{faultmix.SlowDrip, fakeserver.Reply{Text: clean.Text, PromptTokens: 12, CompletionTokens: 10, ChunkDelay: 100 * time.Millisecond}, 1200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			m := mix(faultmix.Share{Kind: tt.kind, Fraction: 1})
			require.NoError(t, m.Check())
			assert.Equal(t, tt.want, m.Script()(request(1, 0)))
			st := m.Stats()
			assert.Equal(t, faultmix.Stats{Requests: 1, Injected: map[faultmix.Kind]int{tt.kind: 1}, Ideal: tt.cost}, st)
			assert.Equal(t, tt.kind.Retried(), tt.want.Status != 0)
			assert.Equal(t, tt.kind.Terminal(), tt.want.Truncate || tt.want.Stall || tt.want.Malformed != "")
		})
	}

	t.Run("clean", func(t *testing.T) {
		m := mix()
		assert.Equal(t, clean, m.Script()(request(1, 0)))
		assert.Equal(t, 120*time.Millisecond, m.Stats().Ideal, "role, ten pieces, finish and usage: twelve pauses")
		assert.Equal(t, 40*time.Millisecond, m.Stats().IdealWall(3))
	})

	t.Run("wrong usage", func(t *testing.T) {
		m := mix(faultmix.Share{Kind: faultmix.WrongUsage, Fraction: 1})
		seen := map[string]int{}
		for i := range 400 {
			rep := m.Script()(request(i, 0))
			assert.Equal(t, clean.Text, rep.Text)
			seen[string(rep.Usage)]++
		}
		assert.Equal(t, []string{`"n/a"`, `{"prompt_tokens": "12", "completion_tokens": "10"}`, `{"prompt_tokens": 12.0, "completion_tokens": 10.0, "total_tokens": 0}`, `{"prompt_tokens": null, "completion_tokens": -1}`},
			sortedKeys(seen))
		for u, n := range seen {
			assert.InDelta(t, 100, n, 40, u)
		}
		assert.Equal(t, seen[`"n/a"`]+seen[`{"prompt_tokens": null, "completion_tokens": -1}`], m.Stats().Garbled)
		for u := range seen {
			assert.True(t, json.Valid([]byte(u)), u)
		}
	})
}

func sortedKeys(m map[string]int) []string {
	out := slices.Collect(maps.Keys(m))
	slices.Sort(out)
	return out
}

// TestShares: over many requests each kind comes in its share, the same
// seed draws the same faults, and another attempt draws afresh.
func TestShares(t *testing.T) {
	shares := []faultmix.Share{{Kind: faultmix.RateLimit, Fraction: 0.05}, {Kind: faultmix.Status500, Fraction: 0.02}, {Kind: faultmix.Reset, Fraction: 0.01}, {Kind: faultmix.SlowDrip, Fraction: 0.1}}
	m := mix(shares...)
	const n = 40000
	for i := range n {
		m.Script()(request(i, 0))
	}
	st := m.Stats()
	assert.Equal(t, n, st.Requests)
	for _, s := range shares {
		sd := math.Sqrt(n * s.Fraction * (1 - s.Fraction))
		assert.InDelta(t, n*s.Fraction, st.Injected[s.Kind], 4*sd, s.Kind)
	}
	assert.Len(t, st.Injected, len(shares))

	again, other := mix(shares...), mix(shares...)
	other.Seed = 8
	same, retried, reseeded := 0, 0, 0
	for i := range 2000 {
		a := m.Script()(request(i, 0))
		if fmt.Sprint(a) == fmt.Sprint(again.Script()(request(i, 0))) {
			same++
		}
		if fmt.Sprint(a) == fmt.Sprint(m.Script()(request(i, 1))) {
			retried++
		}
		if fmt.Sprint(a) == fmt.Sprint(other.Script()(request(i, 0))) {
			reseeded++
		}
	}
	assert.Equal(t, 2000, same)
	assert.Less(t, retried, 2000*9/10, "the next attempt draws afresh")
	assert.Less(t, reseeded, 2000*9/10)
	assert.Equal(t, n+2*2000, m.Stats().Requests, "each call is a request")
}

func TestCheck(t *testing.T) {
	assert.NoError(t, mix(faultmix.Share{Kind: faultmix.Hang, Fraction: 0.5}, faultmix.Share{Kind: faultmix.Reset, Fraction: 0.5}).Check())
	assert.EqualError(t, mix(faultmix.Share{Kind: faultmix.Hang, Fraction: 0.6}, faultmix.Share{Kind: faultmix.Reset, Fraction: 0.5}).Check(), "faultmix: the shares add up to 1.1, more than 1")
	assert.EqualError(t, mix(faultmix.Share{Kind: "teapot", Fraction: 0.1}).Check(), `faultmix: share 0.1 of "teapot"`)
}
