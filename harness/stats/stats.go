// Package stats holds the few statistics feather reports: Wilson score
// intervals for pass rates, the binomial standard error, medians, the exact
// McNemar test for paired item outcomes, and intervals for paired
// differences (Newcombe's for paired proportions, Student's t for paired
// means).
package stats

import (
	"math"
	"sort"
)

// Z95 is the two-sided 95% normal quantile.
const Z95 = 1.959963984540054

// Wilson returns the Wilson score interval for k successes in n trials at
// normal quantile z. With n == 0 it returns (0, 1): nothing is known.
func Wilson(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	p := float64(k) / float64(n)
	nf := float64(n)
	z2 := z * z
	den := 1 + z2/nf
	centre := (p + z2/(2*nf)) / den
	half := z / den * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	lo, hi = centre-half, centre+half
	// Clamp rounding noise at the boundaries (k == 0 or k == n).
	if lo < 0 || k == 0 {
		lo = math.Max(0, lo)
	}
	if hi > 1 || k == n {
		hi = math.Min(1, hi)
	}
	return lo, hi
}

// SEProportion is sqrt(p(1-p)/n), the binomial standard error.
func SEProportion(p float64, n int) float64 {
	if n <= 0 {
		return 0
	}
	return math.Sqrt(p * (1 - p) / float64(n))
}

// McNemarExact is the two-sided exact McNemar test on discordant pairs:
// b items went from pass to fail, c from fail to pass. It returns the
// p-value of the binomial test of b against Binomial(b+c, 1/2): twice the
// smaller tail, capped at 1.
func McNemarExact(b, c int) float64 {
	if b+c == 0 {
		return 1
	}
	return math.Min(1, 2*halfBinomialAtLeast(b+c, max(b, c)))
}

// McNemarDrop is the one-sided exact McNemar test for a drop: the chance
// of b or more of the b+c discordant items going pass→fail if both
// directions were equally likely, P(X ≥ b) for X ~ Binomial(b+c, 1/2).
func McNemarDrop(b, c int) float64 {
	return halfBinomialAtLeast(b+c, b)
}

// halfBinomialAtLeast is P(X ≥ k) for X ~ Binomial(n, 1/2).
func halfBinomialAtLeast(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	tail := 0.0
	for i := k; i <= n; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Median returns the median of xs (0 for none). xs is not modified.
func Median(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
