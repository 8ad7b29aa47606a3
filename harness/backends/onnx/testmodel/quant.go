package testmodel

import (
	"math"
	"strings"

	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// quantizable: the 2-D MatMul weights. Embeddings (read by Gather), norms
// and biases stay float, as onnxruntime's quantizers leave them.
func quantizable(name string, t *tensor) bool {
	return len(t.Shape) == 2 && strings.HasSuffix(name, ".weight") &&
		name != "model.embed_tokens.weight" && name != "transformer.wte.weight" && name != "transformer.wpe.weight"
}

// quantized is a weight in 8 bits with one scale per output column.
type quantized struct {
	kind   string // "int8" (symmetric, zero point 0) or "uint8" (zero point 128)
	shape  []int
	q      []int32
	scale  []float32
	zp     int32
	values []float32 // what DequantizeLinear yields: float32(q - zp) · scale
}

func quantize(t *tensor, kind string) *quantized {
	rows, cols := t.Shape[0], t.Shape[1]
	out := &quantized{kind: kind, shape: t.Shape, q: make([]int32, len(t.Data)), scale: make([]float32, cols), values: make([]float32, len(t.Data))}
	if kind == "uint8" {
		out.zp = 128
	}
	for j := 0; j < cols; j++ {
		var m float64
		for i := 0; i < rows; i++ {
			m = math.Max(m, math.Abs(float64(t.Data[i*cols+j])))
		}
		s := float32(m / 127)
		if s == 0 {
			s = 1
		}
		out.scale[j] = s
		for i := 0; i < rows; i++ {
			k := i*cols + j
			q := int32(math.RoundToEven(float64(t.Data[k]) / float64(s)))
			q = max(-127, min(127, q)) + out.zp
			out.q[k] = q
			out.values[k] = float32(q-out.zp) * s
		}
	}
	return out
}

func (q *quantized) tensor(name string, dims []int64) *pb.Tensor {
	if q.kind == "uint8" {
		v := make([]uint8, len(q.q))
		for i, x := range q.q {
			v[i] = uint8(x)
		}
		return pb.Uint8Tensor(name, dims, v)
	}
	v := make([]int8, len(q.q))
	for i, x := range q.q {
		v[i] = int8(x)
	}
	return pb.Int8Tensor(name, dims, v)
}

func (q *quantized) zeroPoint(name string) *pb.Tensor {
	n := len(q.scale)
	if q.kind == "uint8" {
		v := make([]uint8, n)
		for i := range v {
			v[i] = uint8(q.zp)
		}
		return pb.Uint8Tensor(name, []int64{int64(n)}, v)
	}
	return pb.Int8Tensor(name, []int64{int64(n)}, make([]int8, n))
}
