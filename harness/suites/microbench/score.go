package microbench

import (
	"math"
)

// Bits-per-byte anchors (provisional in the spec): a weak unigram-like model
// scores 0, a strong large model 100.
const (
	BPBFloor   = 2.5
	BPBCeiling = 0.5
)

// ChanceNormalised is the spec's score: 100·max(0, (acc−chance)/(1−chance)).
func ChanceNormalised(acc, chance float64) float64 {
	return 100 * math.Max(0, (acc-chance)/(1-chance))
}

// ChanceNormalisedSE scales an accuracy's standard error through the
// normalisation: 100·se/(1−chance). The clip at 0 is deliberately not
// applied: a model near chance still has its sampling noise.
func ChanceNormalisedSE(seAcc, chance float64) float64 {
	return 100 * seAcc / (1 - chance)
}

// BPBScore maps bits per byte logarithmically onto 0–100:
// 100·ln(2.5/bpb)/ln(2.5/0.5), clipped to [0, 100].
func BPBScore(bpb float64) float64 {
	if bpb <= 0 {
		return 100
	}
	s := 100 * math.Log(BPBFloor/bpb) / math.Log(BPBFloor/BPBCeiling)
	return math.Min(100, math.Max(0, s))
}

// BPBScoreSE carries a bits-per-byte standard error through the mapping
// (delta method: |d score/d bpb| = 100/(bpb·ln 5)), again ignoring the clip.
func BPBScoreSE(bpb, seBPB float64) float64 {
	if bpb <= 0 {
		return 0
	}
	return 100 * seBPB / (bpb * math.Log(BPBFloor/BPBCeiling))
}

// ratioSE is the linearised standard error of R = Σx/Σb over documents
// (x bits, b bytes): sqrt(n/(n−1)·Σ(x−R·b)²)/Σb. Documents, not bytes, are
// the sampling units; with fewer than two documents it is 0.
func ratioSE(bits, bytes []float64) float64 {
	n := len(bits)
	if n < 2 {
		return 0
	}
	var sx, sb float64
	for i := range bits {
		sx += bits[i]
		sb += bytes[i]
	}
	r := sx / sb
	ss := 0.0
	for i := range bits {
		d := bits[i] - r*bytes[i]
		ss += d * d
	}
	return math.Sqrt(float64(n)/float64(n-1)*ss) / sb
}

// Differ applies the spec's significance rule to two indexes (or any two
// scores) with their standard errors: a gap smaller than
// 2·√(se₁²+se₂²) is noise. A zero gap never differs.
func Differ(a, seA, b, seB float64) bool {
	gap := math.Abs(a - b)
	return gap > 0 && gap >= 2*math.Sqrt(seA*seA+seB*seB)
}

// Combine returns the weighted sum Σwᵢxᵢ and its standard error
// √Σ(wᵢ·seᵢ)², treating the inputs as independent. A domain is the mean of
// its tasks (every weight 1/T); the index weighs the six domains.
func Combine(values, ses, weights []float64) (value, se float64) {
	var v2 float64
	for i := range values {
		value += weights[i] * values[i]
		v2 += weights[i] * weights[i] * ses[i] * ses[i]
	}
	return value, math.Sqrt(v2)
}
