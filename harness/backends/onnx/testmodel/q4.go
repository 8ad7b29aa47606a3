package testmodel

import (
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// q4Block is the block size of the q4 variant: 32 weights along K share a
// scale and a zero point, as onnxruntime's MatMul4BitsQuantizer writes by
// default.
const q4Block = 32

// q4 is a [K, N] weight in com.microsoft MatMulNBits' layout: for each
// output column n and block b of K, block_size 4-bit values packed two to
// a byte (the lower nibble first), a scale and a 4-bit zero point (two
// blocks to a byte, the lower nibble first).
type q4 struct {
	k, n, blocks int
	// half: the q4f16 file's float16 scales (MatMulNBits' T is then
	// float16, for the activations too).
	half   bool
	packed []uint8   // [N, blocks, q4Block/2]
	scales []float32 // [N · blocks], float16 values when half
	zeros  []uint8   // [N · ceil(blocks/2)]
	values []float32 // the dequantized [K, N] weight: (q - zp) · scale
}

// quantizeQ4 quantizes each block asymmetrically over [min, max] (zero
// included) to 0…15, as the quantizer's default (is_symmetric False) does.
// Padding past K holds the zero point, so it dequantizes to 0. With half
// (q4f16) it quantizes the float16 model's weight, as transformers.js's
// q4f16 files come from model_fp16.onnx, and rounds each scale to float16
// before choosing the codes, so they are the nearest under the scale the
// file stores.
func quantizeQ4(t *tensor, half bool) *q4 {
	k, n := t.Shape[0], t.Shape[1]
	if half {
		r := &tensor{Shape: t.Shape, Data: make([]float32, len(t.Data))}
		for i, v := range t.Data {
			r.Data[i] = roundHalf(v)
		}
		t = r
	}
	blocks := (k + q4Block - 1) / q4Block
	zpBytes := (blocks + 1) / 2
	out := &q4{k: k, n: n, blocks: blocks, half: half,
		packed: make([]uint8, n*blocks*q4Block/2), scales: make([]float32, n*blocks),
		zeros: make([]uint8, n*zpBytes), values: make([]float32, len(t.Data))}
	for col := 0; col < n; col++ {
		for b := 0; b < blocks; b++ {
			lo, hi := b*q4Block, min((b+1)*q4Block, k)
			scale, zp := q4Params(t, col, lo, hi, half)
			out.scales[col*blocks+b] = scale
			out.zeros[col*zpBytes+b/2] |= zp << (4 * (b % 2))
			for i := lo; i < lo+q4Block; i++ {
				q := zp
				if i < hi {
					q = q4Value(t.Data[i*n+col], scale, zp)
					out.values[i*n+col] = float32(int(q)-int(zp)) * scale
				}
				byteAt := (col*blocks+b)*q4Block/2 + (i-lo)/2
				out.packed[byteAt] |= q << (4 * ((i - lo) % 2))
			}
		}
	}
	return out
}

// q4Params is a block's scale (rounded to float16 when half) and zero
// point over rows lo…hi-1 of col.
func q4Params(t *tensor, col, lo, hi int, half bool) (float32, uint8) {
	n := t.Shape[1]
	var mn, mx float32
	for i := lo; i < hi; i++ {
		v := t.Data[i*n+col]
		mn, mx = min(mn, v), max(mx, v)
	}
	scale := (mx - mn) / 15
	if half {
		scale = roundHalf(scale)
	}
	if scale == 0 {
		return 1, 0
	}
	zp := math.RoundToEven(float64(-mn / scale))
	return scale, uint8(max(0, min(15, zp)))
}

func q4Value(v, scale float32, zp uint8) uint8 {
	q := math.RoundToEven(float64(v/scale)) + float64(zp)
	return uint8(max(0, min(15, q)))
}

// initializers writes the packed weight, scales and zero points, named
// after the weight as the quantizer names them: [B, scales, zero_points].
func (q *q4) initializers(b *pb.Builder, name string) []string {
	scales := pb.FloatTensor
	if q.half {
		scales = pb.Float16Tensor
	}
	return []string{
		b.Weight(pb.Uint8Tensor(name+"_Q4", []int64{int64(q.n), int64(q.blocks), q4Block / 2}, q.packed)),
		b.Weight(scales(name+"_scales", []int64{int64(len(q.scales))}, q.scales)),
		b.Weight(pb.Uint8Tensor(name+"_zero_points", []int64{int64(len(q.zeros))}, q.zeros)),
	}
}

// matMulNBits emits y = x·W as one MatMulNBits node over w (initializers).
// With float16 scales the operator's T is float16, for x and y too: the
// graph computes in float32, so x goes in through a Cast to float16 and y
// comes back through one to float32 (a q4f16 export computes in float16
// throughout; only these casts differ).
func (q *q4) matMulNBits(b *pb.Builder, x string, w []string) string {
	attrs := []pb.Attribute{
		pb.AttrInt("K", int64(q.k)), pb.AttrInt("N", int64(q.n)),
		pb.AttrInt("bits", 4), pb.AttrInt("block_size", q4Block),
	}
	if !q.half {
		return b.OpDomain(decoder.MSDomain, "MatMulNBits", attrs, append([]string{x}, w...)...)
	}
	x = b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float16))}, x)
	y := b.OpDomain(decoder.MSDomain, "MatMulNBits", attrs, append([]string{x}, w...)...)
	return b.OpAttr("Cast", []pb.Attribute{pb.AttrInt("to", int64(pb.Float))}, y)
}

// roundHalf is v rounded to the nearest float16, as a float32.
func roundHalf(v float32) float32 { return pb.Float16Value(pb.Float16Bits(v)) }
