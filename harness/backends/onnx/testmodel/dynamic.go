package testmodel

import (
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// initializers writes the 8-bit weight, its per-column scales and zero
// points: [weight, scale, zero point].
func (q *quantized) initializers(b *pb.Builder, name string) []string {
	dims := []int64{int64(q.shape[0]), int64(q.shape[1])}
	return []string{
		b.Weight(q.tensor(name+"_quantized", dims)),
		b.Weight(pb.FloatTensor(name+"_scale", []int64{dims[1]}, q.scale)),
		b.Weight(q.zeroPoint(name + "_zero_point")),
	}
}

// matMulInteger emits y = x·W against the 8-bit weight w (initializers)
// as quantize_dynamic writes it (decoder.DynamicMatMul).
func (q *quantized) matMulInteger(b *pb.Builder, x string, w []string) string {
	return decoder.DynamicMatMul(b, x, w[0], w[1], w[2])
}

// actQuant is DynamicQuantizeLinear on a [rows, width] activation: the
// range [min(0, x), max(0, x)] over every row maps to 0…255, and each
// value comes back as float64(q - zero point) with the scale applied by
// the caller. Arithmetic is float32, as the operator's.
func actQuant(x [][]float64) (q [][]float64, scale float32) {
	var mn, mx float32
	for _, r := range x {
		for _, v := range r {
			mn, mx = min(mn, float32(v)), max(mx, float32(v))
		}
	}
	scale = (mx - mn) / 255
	if scale == 0 {
		scale = 1 // all zeros: any scale reproduces them
	}
	zp := max(0, min(255, math.RoundToEven(float64(-mn/scale))))
	q = make([][]float64, len(x))
	for i, r := range x {
		q[i] = make([]float64, len(r))
		for j, v := range r {
			u := max(0, min(255, math.RoundToEven(float64(float32(v)/scale))+zp))
			q[i][j] = u - zp
		}
	}
	return q, scale
}
