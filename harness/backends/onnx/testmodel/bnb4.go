package testmodel

import (
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// The bnb4 variant, as onnxruntime's MatMulBnb4Quantizer writes it with
// its defaults (the setting bitsandbytes' Linear4bit uses).
const (
	bnb4Block = 64
	bnb4NF4   = 1 // quant_type: 0 is FP4, 1 NF4
)

// nf4 is bitsandbytes' NormalFloat4 code book: code i dequantizes to
// nf4[i] · absmax (0 is code 7).
var nf4 = [16]float32{
	-1, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
	-0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0,
	0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
	0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1,
}

// bnb4 is a [K, N] weight in com.microsoft MatMulBnb4's layout: the
// transposed [N, K] weight flattened (element n·K + k), cut into blocks
// of bnb4Block consecutive elements (a block may run across rows when K
// is not a multiple of it), each with a float absmax and its values as
// NF4 codes, two to a byte with the first in the upper nibble.
type bnb4 struct {
	k, n   int
	packed []uint8   // [(N·K + 1) / 2]
	absmax []float32 // [ceil(N·K / bnb4Block)]
	values []float32 // the dequantized [K, N] weight: nf4[code] · absmax
}

// quantizeBnb4 scales each block by its largest magnitude and stores the
// nearest NF4 code of each value (a tie takes the lower code, as the
// operator's comparisons against the midpoints do).
func quantizeBnb4(t *tensor) *bnb4 {
	k, n := t.Shape[0], t.Shape[1]
	numel := k * n
	blocks := (numel + bnb4Block - 1) / bnb4Block
	out := &bnb4{k: k, n: n, packed: make([]uint8, (numel+1)/2), absmax: make([]float32, blocks), values: make([]float32, numel)}
	at := func(i int) float32 { return t.Data[(i%k)*n+i/k] } // element i of the [N, K] transpose
	for b := 0; b < blocks; b++ {
		lo, hi := b*bnb4Block, min((b+1)*bnb4Block, numel)
		var amax float32
		for i := lo; i < hi; i++ {
			amax = max(amax, float32(math.Abs(float64(at(i)))))
		}
		out.absmax[b] = amax
		var inv float32 // the operator multiplies by the reciprocal, in float32
		if amax != 0 {
			inv = 1 / amax
		}
		for i := lo; i < hi; i++ {
			c := nf4Code(at(i) * inv)
			out.packed[i/2] |= c << (4 * (1 - i%2))
			out.values[(i%k)*n+i/k] = nf4[c] * amax
		}
		if hi%2 == 1 { // an odd count: the last byte's lower nibble holds 0's code
			out.packed[hi/2] |= nf4Code(0)
		}
	}
	return out
}

// nf4Code is the code nearest x (in [-1, 1]); the thresholds are the
// midpoints between neighbouring codes, and x on one goes below it.
func nf4Code(x float32) uint8 {
	var c uint8
	for c < 15 && x > float32((float64(nf4[c])+float64(nf4[c+1]))/2) {
		c++
	}
	return c
}

// initializers writes the packed codes and the absmax per block, named as
// the quantizer names them: [B, absmax].
func (q *bnb4) initializers(b *pb.Builder, name string) []string {
	return []string{
		b.Weight(pb.Uint8Tensor(name+"_Bnb4", []int64{int64(len(q.packed))}, q.packed)),
		b.Weight(pb.FloatTensor(name+"_absmax", []int64{int64(len(q.absmax))}, q.absmax)),
	}
}

// matMulBnb4 emits y = x·W as one MatMulBnb4 node over w (initializers).
func (q *bnb4) matMulBnb4(b *pb.Builder, x string, w []string) string {
	attrs := []pb.Attribute{
		pb.AttrInt("K", int64(q.k)), pb.AttrInt("N", int64(q.n)),
		pb.AttrInt("block_size", bnb4Block), pb.AttrInt("quant_type", bnb4NF4),
	}
	return b.OpDomain(decoder.MSDomain, "MatMulBnb4", attrs, append([]string{x}, w...)...)
}
