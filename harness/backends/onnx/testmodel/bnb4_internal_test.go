package testmodel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBnb4Layout checks MatMulBnb4's layout by hand on a [K=3, N=3]
// weight (ONNX Runtime's agreement with the reference checks it on real
// shapes): the [N, K] transpose flattened, the first of two codes in the
// upper nibble, an odd count padded with 0's code, one absmax per block.
func TestBnb4Layout(t *testing.T) {
	w := &tensor{Shape: []int{3, 3}, Data: []float32{
		-2, 0, 0.5, // k = 0
		1, 0, 0,
		0, 0, 2,
	}}
	q := quantizeBnb4(w)
	assert.Equal(t, []float32{2}, q.absmax)
	// Transpose: n0 = [-2, 1, 0], n1 = [0, 0, 0], n2 = [0.5, 0, 2].
	// Codes: -1 → 0, 0.5 → 12 (0.5626 is nearest), 1 → 15, 0 → 7, 0.25 → 10.
	assert.Equal(t, []uint8{0x0c, 0x77, 0x77, 0xa7, 0xf7}, q.packed)
	assert.Equal(t, []float32{-2, 0, nf4[10] * 2, nf4[12] * 2, 0, 0, 0, 0, 2}, q.values)
	assert.Equal(t, uint8(7), nf4Code(0))
	// On a midpoint the lower code wins, as the operator's comparisons do.
	assert.Equal(t, uint8(14), nf4Code(float32((float64(nf4[14])+float64(nf4[15]))/2)))
}
