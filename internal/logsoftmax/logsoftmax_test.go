package logsoftmax

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestToken: each token's log-probability within 1e-7 of a plain float64
// log-softmax, the first of tied maxima greedy, and a shifted row the
// same row.
func TestToken(t *testing.T) {
	row := []float32{1, 3, -2, 3, 0.5}
	var z float64
	for _, x := range row {
		z += math.Exp(float64(x))
	}
	n := Of(row)
	assert.Equal(t, Norm{Best: 1, Max: 3, LogSum: n.LogSum}, n)
	for tok, x := range row {
		lp, greedy := Token(row, tok)
		assert.InDelta(t, float64(x)-math.Log(z), lp, 1e-7, "token %d", tok)
		assert.Equal(t, tok == 1, greedy, "ties go to the first maximum, as torch.argmax")
		nlp, ngreedy := n.LogProb(row, tok)
		assert.Equal(t, lp, nlp, "token %d: one normalisation, any token", tok)
		assert.Equal(t, greedy, ngreedy)
	}
	shifted := []float32{1001, 1003, 998, 1003, 1000.5}
	lp, _ := Token(shifted, 4)
	want, _ := Token(row, 4)
	assert.InDelta(t, want, lp, 1e-9, "the maximum is subtracted first")
	assert.Equal(t, 0, Argmax([]float32{2, 2, 2}))
	assert.Equal(t, 2, Argmax([]float32{-5, -3, -1}))
}

// TestLargeVocabulary compares with a plain float64 log-softmax over a
// 150k-token row of realistic spread.
func TestLargeVocabulary(t *testing.T) {
	row := make([]float32, 151936)
	x := uint32(7)
	for i := range row {
		x = x*1664525 + 1013904223
		row[i] = float32(x>>8)/float32(1<<24)*30 - 20
	}
	m := float64(row[Argmax(row)])
	var z float64
	for _, v := range row {
		z += math.Exp(float64(v) - m)
	}
	for _, tok := range []int{0, 1, 4242, 151935} {
		lp, _ := Token(row, tok)
		assert.InDelta(t, float64(row[tok])-m-math.Log(z), lp, 1e-6, "token %d", tok)
	}
}

// TestSumExp: each term within 3.4e-9 of exp over the whole range kept,
// terms that underflow float32 dropped, NaN kept.
func TestSumExp(t *testing.T) {
	worst := 0.0
	for x := float32(-87); x <= 0; x += 0.0007 {
		want := math.Exp(float64(x))
		worst = max(worst, math.Abs(SumExp([]float32{x}, 0)-want)/want)
	}
	assert.Less(t, worst, 3.4e-9, "relative error of one term")
	assert.Equal(t, 1.0, SumExp([]float32{3}, 3))
	assert.Equal(t, 2.0, SumExp([]float32{-88, 0, float32(math.Inf(-1)), 0}, 0), "underflowing terms are dropped")
	assert.True(t, math.IsNaN(SumExp([]float32{0, float32(math.NaN())}, 0)))
}

// benchRow is a row of SmolLM's vocabulary size.
var benchRow = func() []float32 {
	row := make([]float32, 49153)
	for i := range row {
		row[i] = 5 * float32(math.Sin(float64(i)))
	}
	return row
}()

var sink float64

// BenchmarkSumExp and BenchmarkMathExp are the sum over a 49k row, here
// and with math.Exp.
func BenchmarkSumExp(b *testing.B) {
	for b.Loop() {
		sink = SumExp(benchRow, 5)
	}
}

func BenchmarkMathExp(b *testing.B) {
	for b.Loop() {
		var z float64
		for _, x := range benchRow {
			z += math.Exp(float64(x - 5))
		}
		sink = z
	}
}
