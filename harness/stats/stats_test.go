package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		// The spec's example: 2 of 3 trials reads 67% [21–94].
		{2, 3, 0.2077, 0.9385},
		{0, 10, 0, 0.2775},
		{10, 10, 0.7225, 1},
		{50, 100, 0.4038, 0.5962},
		{25, 100, 0.1755, 0.3430},
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(tc.k, tc.n, Z95)
		assert.InDelta(t, tc.lo, lo, 5e-5, "lo %d/%d", tc.k, tc.n)
		assert.InDelta(t, tc.hi, hi, 5e-5, "hi %d/%d", tc.k, tc.n)
	}
}

func TestMcNemarExact(t *testing.T) {
	assert.Equal(t, 1.0, McNemarExact(0, 0))
	assert.Equal(t, 1.0, McNemarExact(1, 0), "one discordant pair: p = 2*0.5, capped at 1")
	assert.InDelta(t, 0.0625, McNemarExact(5, 0), 1e-12)     // 2 * 0.5^5
	assert.InDelta(t, 79.0/2048, McNemarExact(10, 2), 1e-12) // 2 * (1+12+66)/4096
	assert.InDelta(t, McNemarExact(2, 10), McNemarExact(10, 2), 1e-15)
}

func TestErrorsAndMedian(t *testing.T) {
	assert.InDelta(t, 0.05, SEProportion(0.5, 100), 1e-12)
	assert.Equal(t, 2.5, Median([]float64{4, 1, 3, 2}))
	assert.Equal(t, 3.0, Median([]float64{5, 3, 1}))
}

func TestMcNemarDrop(t *testing.T) {
	for _, tt := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},
		{0, 3, 1},
		{1, 0, 0.5},
		{5, 0, 1.0 / 32},
		{6, 1, 8.0 / 128},   // P(X ≥ 6), n = 7
		{7, 1, 9.0 / 256},   // P(X ≥ 7), n = 8
		{2, 2, 11.0 / 16},   // P(X ≥ 2), n = 4
		{1, 3, 15.0 / 16},   // P(X ≥ 1), n = 4
		{3, 2, 16.0 / 32},   // P(X ≥ 3), n = 5
		{9, 1, 11.0 / 1024}, // P(X ≥ 9), n = 10
	} {
		assert.InDelta(t, tt.want, McNemarDrop(tt.b, tt.c), 1e-12, "b=%d c=%d", tt.b, tt.c)
	}
}
