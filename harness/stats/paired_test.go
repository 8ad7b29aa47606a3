package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPairedDiff checks Newcombe's method 10 against values worked by
// hand from its definition: p1 = B's rate, p2 = A's, their Wilson limits
// (l1, u1), (l2, u2), φ = (ad − bc)/√((a+b)(c+d)(a+c)(b+d)) with a both
// right, b only B, c only A, d both wrong, then
// L = θ − √((p1−l1)² − 2φ(p1−l1)(u2−p2) + (u2−p2)²) and
// U = θ + √((u1−p1)² − 2φ(u1−p1)(p2−l2) + (p2−l2)²).
func TestPairedDiff(t *testing.T) {
	for _, tt := range []struct {
		name         string
		table        Paired
		diff, lo, hi float64
		p            float64
	}{
		// n = 20, p1 = 17/20 (Wilson .6396–.9476), p2 = 13/20 (.4329–.8188),
		// φ = (24 − 5)/√(6·14·13·7) = .2789.
		{"B ahead on 20", Paired{BothRight: 12, OnlyA: 1, OnlyB: 5, BothWrong: 2}, 0.2, -0.030128307, 0.411798652, 14.0 / 64},
		// n = 50, p1 = .5 (.3664–.6336), p2 = .3 (.1910–.4375), φ = .2182.
		{"B ahead on 50", Paired{BothRight: 10, OnlyA: 5, OnlyB: 15, BothWrong: 20}, 0.2, 0.030502823, 0.352835928, 2 * (1 + 20 + 190 + 1140 + 4845 + 15504) / 1048576.0},
		// Every discordant pair one way: the Wald interval would be .05 ± .043;
		// φ = (2250 − 0)/√(50·50·55·45) = .9045.
		{"all discordant one way", Paired{BothRight: 50, OnlyB: 5, BothWrong: 45}, 0.05, 0.007654166, 0.091577372, 0.0625},
		{"no discordant pairs", Paired{BothWrong: 10}, 0, -0.277532800, 0.277532800, 1},
		{"balanced", Paired{BothRight: 3, OnlyA: 2, OnlyB: 2, BothWrong: 3}, 0, -0.333186314, 0.333186314, 1},
		{"one unit", Paired{BothRight: 1}, 0, -0.793450686, 0.793450686, 1},
		{"A ahead is negative", Paired{BothRight: 12, OnlyA: 5, OnlyB: 1, BothWrong: 2}, -0.2, -0.411798652, 0.030128307, 14.0 / 64},
	} {
		t.Run(tt.name, func(t *testing.T) {
			diff, lo, hi := tt.table.Diff(Z95)
			assert.InDelta(t, tt.diff, diff, 1e-12)
			assert.InDelta(t, tt.lo, lo, 1e-8)
			assert.InDelta(t, tt.hi, hi, 1e-8)
			assert.InDelta(t, tt.p, tt.table.McNemar(), 1e-12)
		})
	}
	d, lo, hi := Paired{}.Diff(Z95)
	assert.Equal(t, [3]float64{0, -1, 1}, [3]float64{d, lo, hi}, "no units: nothing is known")
	assert.Equal(t, 0.65, Paired{BothRight: 12, OnlyA: 1, OnlyB: 5, BothWrong: 2}.RateA())
	assert.Equal(t, 0.85, Paired{BothRight: 12, OnlyA: 1, OnlyB: 5, BothWrong: 2}.RateB())
}

func TestStudentTQuantile(t *testing.T) {
	for _, tt := range []struct {
		p    float64
		df   int
		want float64
	}{
		{0.975, 1, 12.7062047361747},
		{0.975, 2, 4.30265272974946},
		{0.975, 10, 2.22813885198627},
		{0.975, 30, 2.04227245630124},
		{0.975, 100, 1.98397151852355},
		{0.025, 10, -2.22813885198627},
		{0.5, 7, 0},
	} {
		assert.InDelta(t, tt.want, StudentTQuantile(tt.p, tt.df), 1e-9, "p %v df %d", tt.p, tt.df)
	}
}

func TestPairedT(t *testing.T) {
	// Differences 1, 0, 0.5, −0.5: mean .25; squares about the mean
	// .5625 + .0625 + .0625 + .5625 = 1.25, variance 1.25/3, se =
	// √(1.25/3)/2 = .3227486, t(3) quantile 3.182446305; t = .25/.3227486 =
	// .7745967, whose two-sided p on 3 degrees of freedom is .4950
	// (1 − I_x(3/2, 1/2) with x = 3/(3 + t²) = .8333…: 0.49502).
	mean, lo, hi, p := PairedT([]float64{1, 0, 0.5, -0.5}, 0.95)
	assert.InDelta(t, 0.25, mean, 1e-12)
	assert.InDelta(t, 0.25-3.182446305*0.322748612, lo, 1e-8)
	assert.InDelta(t, 0.25+3.182446305*0.322748612, hi, 1e-8)
	assert.InDelta(t, 0.4950, p, 1e-4)

	// The interval excludes 0 exactly when p < .05: here its lower end is
	// .5 − 2.262157·sd/√10 = .1230.
	ds := []float64{1, 1, 0.5, 0.5, 0, 1, 0.5, 0, 1, -0.5}
	mean, lo, _, p = PairedT(ds, 0.95)
	assert.InDelta(t, 0.1230, lo, 1e-4)
	assert.Less(t, p, 0.05)
	assert.InDelta(t, 0.5, mean, 1e-12)

	mean, lo, hi, p = PairedT([]float64{0.5}, 0.95)
	assert.Equal(t, 0.5, mean)
	assert.True(t, math.IsInf(lo, -1) && math.IsInf(hi, 1), "one unit says nothing of spread")
	assert.Equal(t, 1.0, p)

	// Every difference the same: the sign test's p.
	_, lo, hi, p = PairedT([]float64{1, 1, 1}, 0.95)
	assert.True(t, math.IsInf(lo, -1) && math.IsInf(hi, 1), "no spread seen")
	assert.InDelta(t, 0.25, p, 1e-12)
	_, _, _, p = PairedT([]float64{0, 0}, 0.95)
	assert.Equal(t, 1.0, p)
}
