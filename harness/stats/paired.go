package stats

import "math"

// Paired is the 2×2 table of two sides' outcomes on the same n units:
// both right, only A right, only B right, both wrong.
type Paired struct {
	BothRight, OnlyA, OnlyB, BothWrong int
}

// N is the number of paired units.
func (p Paired) N() int { return p.BothRight + p.OnlyA + p.OnlyB + p.BothWrong }

// RateA and RateB are each side's share of units right (0 without units).
func (p Paired) RateA() float64 { return ratio(p.BothRight+p.OnlyA, p.N()) }

// RateB is B's share of units right.
func (p Paired) RateB() float64 { return ratio(p.BothRight+p.OnlyB, p.N()) }

func ratio(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// Diff is B's rate minus A's with its interval at normal quantile z, by
// Newcombe's hybrid score method for paired proportions (Statistics in
// Medicine 17:2635–2650, 1998, method 10). It is chosen over the Wald
// interval (p_B − p_A ± z·SE), which collapses to zero width when every
// discordant pair goes one way and overshoots [−1, 1] on small samples:
// Newcombe's is built from each side's Wilson interval, corrected for the
// correlation φ of the paired outcomes, so it stays inside [−1, 1], has
// width whenever there are units, and keeps close to its nominal
// coverage down to a few dozen units. It needs no continuity rule. With
// no units it returns 0 in (−1, 1): nothing is known.
func (p Paired) Diff(z float64) (diff, lo, hi float64) {
	n := p.N()
	if n == 0 {
		return 0, -1, 1
	}
	// Newcombe's p1 is the rate whose excess the difference measures: B's.
	a, b, c, d := float64(p.BothRight), float64(p.OnlyB), float64(p.OnlyA), float64(p.BothWrong)
	p1, p2 := p.RateB(), p.RateA()
	l1, u1 := Wilson(p.BothRight+p.OnlyB, n, z)
	l2, u2 := Wilson(p.BothRight+p.OnlyA, n, z)
	// φ is the correlation of the two outcomes over the units; Newcombe
	// sets it to 0 when a margin is empty (one side all right or all wrong).
	phi := 0.0
	if den := (a + b) * (c + d) * (a + c) * (b + d); den > 0 {
		phi = (a*d - b*c) / math.Sqrt(den)
	}
	diff = p1 - p2
	delta := math.Sqrt(math.Max(0, sq(p1-l1)-2*phi*(p1-l1)*(u2-p2)+sq(u2-p2)))
	eps := math.Sqrt(math.Max(0, sq(u1-p1)-2*phi*(u1-p1)*(p2-l2)+sq(p2-l2)))
	return diff, math.Max(-1, diff-delta), math.Min(1, diff+eps)
}

// McNemar is the two-sided exact McNemar p-value of the table's
// discordant units.
func (p Paired) McNemar() float64 { return McNemarExact(p.OnlyA, p.OnlyB) }

func sq(x float64) float64 { return x * x }

// PairedT is the paired t test of differences ds (B − A per unit): the
// mean with its interval from Student's t on len(ds)−1 degrees of
// freedom at two-sided level conf (0.95), mean ± t·sd/√n, and the
// two-sided p-value of the test that the mean is 0, so the interval
// excludes 0 exactly when p < 1 − conf. It is for paired scores that are
// not all 0 or 1 (a task's share of passing trials), where the units,
// not the trials inside them, are the independent draws. With fewer
// than two differences the interval is (−∞, ∞) and p is 1: one unit says
// nothing of spread. When every difference is the same, t is undefined:
// the interval is (−∞, ∞) again, since no spread was seen to bound it,
// and p is the exact sign test's, 2^(1−n) (or 1 when all are 0).
func PairedT(ds []float64, conf float64) (mean, lo, hi, p float64) {
	n := len(ds)
	if n == 0 {
		return 0, math.Inf(-1), math.Inf(1), 1
	}
	for _, d := range ds {
		mean += d
	}
	mean /= float64(n)
	if n < 2 {
		return mean, math.Inf(-1), math.Inf(1), 1
	}
	ss := 0.0
	for _, d := range ds {
		ss += sq(d - mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	if se == 0 {
		p := 1.0
		if mean != 0 {
			p = McNemarExact(n, 0)
		}
		return mean, math.Inf(-1), math.Inf(1), p
	}
	t := StudentTQuantile(1-(1-conf)/2, n-1)
	p = 2 * (1 - studentTCDF(math.Abs(mean)/se, n-1))
	return mean, mean - t*se, mean + t*se, math.Min(1, math.Max(0, p))
}

// StudentTQuantile is the p-quantile of Student's t distribution with df
// degrees of freedom (df ≥ 1, 0 < p < 1), found by bisection on its
// distribution function.
func StudentTQuantile(p float64, df int) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T ≤ t) for t ≥ 0: 1 − I_x(ν/2, 1/2)/2 with x = ν/(ν+t²).
func studentTCDF(t float64, df int) float64 {
	nu := float64(df)
	return 1 - regIncBeta(nu/(nu+t*t), nu/2, 0.5)/2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), on the side of x where it
// converges quickly.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(1-x, b, a)/b
	}
	return front * betaFraction(x, a, b) / a
}

func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 300; m++ {
		mf := float64(m)
		for _, num := range [2]float64{
			mf * (b - mf) * x / ((a + 2*mf - 1) * (a + 2*mf)),
			-(a + mf) * (a + b + mf) * x / ((a + 2*mf) * (a + 2*mf + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			f *= d * c
		}
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return f
}
