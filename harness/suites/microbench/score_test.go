package microbench_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	mb "github.com/feather-eval/feather/harness/suites/microbench"
)

func TestChanceNormalised(t *testing.T) {
	for _, tc := range []struct {
		acc, chance, want float64
	}{
		{0.25, 0.25, 0},   // at chance
		{1, 0.25, 100},    // always right
		{0.625, 0.25, 50}, // half-way
		{0.1, 0.25, 0},    // below chance clips at 0
		{0, 0.5, 0},       // the worst model
		{0.75, 0.5, 50},
		{13.0/36 + (1-13.0/36)/4, 13.0 / 36, 25},
	} {
		assert.InDelta(t, tc.want, mb.ChanceNormalised(tc.acc, tc.chance), 1e-12, "acc %v chance %v", tc.acc, tc.chance)
	}
	assert.InDelta(t, 40, mb.ChanceNormalisedSE(0.3, 0.25), 1e-12)
}

func TestBPBScore(t *testing.T) {
	for _, tc := range []struct {
		bpb, want float64
	}{
		{2.5, 0},                 // floor anchor
		{0.5, 100},               // ceiling anchor
		{2.5 / math.Sqrt(5), 50}, // the logarithmic midpoint
		{1.0, 100 * math.Log(2.5) / math.Log(5)},
		{3.7, 0},   // worse than the floor clips to 0
		{0.2, 100}, // better than the ceiling clips to 100
		{0, 100},   // degenerate: nothing to learn
		{math.Inf(1), 0},
	} {
		assert.InDelta(t, tc.want, mb.BPBScore(tc.bpb), 1e-9, "bpb %v", tc.bpb)
	}
	// d score/d bpb at bpb = 1 is 100/ln 5.
	assert.InDelta(t, 100*0.1/math.Log(5), mb.BPBScoreSE(1, 0.1), 1e-12)
}

func TestDiffer(t *testing.T) {
	for _, tc := range []struct {
		name           string
		a, seA, b, seB float64
		want           bool
	}{
		{"gap above the threshold", 60, 1.5, 50, 2, true},      // 10 ≥ 2·2.5
		{"gap below the threshold", 54, 1.5, 50, 2, false},     // 4 < 5
		{"gap exactly at the threshold", 55, 1.5, 50, 2, true}, // 5 is not smaller than 5
		{"order does not matter", 50, 2, 55, 1.5, true},
		{"no standard errors, any gap", 50.01, 0, 50, 0, true},
		{"equal values never differ", 50, 0, 50, 0, false},
	} {
		assert.Equal(t, tc.want, mb.Differ(tc.a, tc.seA, tc.b, tc.seB), tc.name)
	}
}

func TestCombine(t *testing.T) {
	// Domain of two tasks: mean, se = √(3²+4²)/2.
	v, se := mb.Combine([]float64{40, 60}, []float64{3, 4}, []float64{0.5, 0.5})
	assert.InDelta(t, 50, v, 1e-12)
	assert.InDelta(t, 2.5, se, 1e-12)
	// Index weights sum to one.
	sum := 0.0
	for _, d := range mb.Domains {
		sum += d.Weight
	}
	assert.InDelta(t, 1, sum, 1e-12)
	assert.Equal(t, []float64{0.15, 0.15, 0.15, 0.20, 0.20, 0.15}, []float64{
		mb.Domains[0].Weight, mb.Domains[1].Weight, mb.Domains[2].Weight,
		mb.Domains[3].Weight, mb.Domains[4].Weight, mb.Domains[5].Weight})
}

func TestFormatParams(t *testing.T) {
	for n, want := range map[int64]string{
		0: "—", 467648: "467648", 596_000_000: "596.0M", 134_515_008: "134.5M", 9_960_000: "10.0M", 9_940_000: "9.9M",
	} {
		assert.Equal(t, want, mb.FormatParams(n), "%d", n)
	}
}
