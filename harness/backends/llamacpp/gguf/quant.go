package gguf

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// Q8_0Block is the number of values in a Q8_0 block; each block is a
// float16 scale and 32 int8 quants.
const Q8_0Block = 32

// encode stores values (whole rows of rowLen) as typ.
func encode(typ Type, values []float32, rowLen int) ([]byte, error) {
	switch typ {
	case F32:
		out := make([]byte, 0, 4*len(values))
		for _, v := range values {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
		return out, nil
	case F16:
		out := make([]byte, 0, 2*len(values))
		for _, v := range values {
			out = binary.LittleEndian.AppendUint16(out, onnxpb.Float16Bits(v))
		}
		return out, nil
	case Q8_0:
		if rowLen%Q8_0Block != 0 {
			return nil, fmt.Errorf("Q8_0 stores rows of a multiple of %d values, not %d", Q8_0Block, rowLen)
		}
		out := make([]byte, 0, len(values)/Q8_0Block*34)
		for i := 0; i < len(values); i += Q8_0Block {
			out = appendQ8_0(out, values[i:i+Q8_0Block])
		}
		return out, nil
	}
	return nil, fmt.Errorf("writing %v tensors is not supported (F32, F16 and Q8_0 are)", typ)
}

// appendQ8_0 quantizes one block as ggml's quantize_row_q8_0_ref does, in
// float32: d = amax/127, q = roundf(x·(1/d)) (halves away from zero), and
// d stored as float16.
func appendQ8_0(out []byte, x []float32) []byte {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	d := amax / 127
	var id float32
	if d != 0 {
		id = 1 / d
	}
	out = binary.LittleEndian.AppendUint16(out, onnxpb.Float16Bits(d))
	for _, v := range x {
		x0 := v * id
		out = append(out, byte(int8(math.Round(float64(x0)))))
	}
	return out
}

// decode turns n values stored as typ back into float32.
func decode(typ Type, data []byte, n int) ([]float32, error) {
	out := make([]float32, n)
	le := binary.LittleEndian
	switch typ {
	case F32:
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32(data[4*i:]))
		}
	case F16:
		for i := range out {
			out[i] = onnxpb.Float16Value(le.Uint16(data[2*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = math.Float32frombits(uint32(le.Uint16(data[2*i:])) << 16)
		}
	case Q8_0:
		for b := 0; b < n/Q8_0Block; b++ {
			block := data[b*34 : (b+1)*34]
			d := onnxpb.Float16Value(le.Uint16(block))
			for j := 0; j < Q8_0Block; j++ {
				out[b*Q8_0Block+j] = float32(int8(block[2+j])) * d
			}
		}
	default:
		return nil, fmt.Errorf("decoding %v tensors is not supported (F32, F16, BF16 and Q8_0 are)", typ)
	}
	return out, nil
}
