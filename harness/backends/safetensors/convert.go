package safetensors

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// BF16Value is the float32 a bfloat16 bit pattern stands for: its upper
// half, exactly.
func BF16Value(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// BF16Bits rounds f to bfloat16 (to nearest, ties to even), as torch's
// .to(torch.bfloat16) does; NaN stays a quiet NaN.
func BF16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// Round is f as dtype stores it, widened back to float32: what a
// checkpoint saved in that dtype holds.
func Round(dtype DType, f float32) float32 {
	switch dtype {
	case BF16:
		return BF16Value(BF16Bits(f))
	case F16:
		return onnxpb.Float16Value(onnxpb.Float16Bits(f))
	}
	return f
}

// Float checks that t holds floats Float32s widens (F32, F16, BF16).
func (t *Tensor) Float() error {
	switch t.DType {
	case F32, F16, BF16:
		return nil
	}
	return fmt.Errorf("%s: tensor %s is %s; weights must be F32, F16 or BF16", t.File, t.Name, t.DType)
}

// Decode widens raw, t's bytes, to float32 into dst (len Elements).
func (t *Tensor) Decode(raw []byte, dst []float32) error {
	if err := t.Float(); err != nil {
		return err
	}
	if int64(len(raw)) != t.Length || int64(len(dst)) != t.Elements() {
		return fmt.Errorf("%s: tensor %s: decoding %d bytes into %d values, want %d and %d", t.File, t.Name, len(raw), len(dst), t.Length, t.Elements())
	}
	Widen(t.DType, raw, dst)
	return nil
}

// f16Table widens every float16 bit pattern, once.
var f16Table = sync.OnceValue(func() *[1 << 16]float32 {
	var t [1 << 16]float32
	for i := range t {
		t[i] = onnxpb.Float16Value(uint16(i))
	}
	return &t
})

// Widen decodes len(dst) values of dtype (F32, F16 or BF16; anything else
// leaves dst as it is) from src to float32.
func Widen(dtype DType, src []byte, dst []float32) {
	le := binary.LittleEndian
	switch dtype {
	case F32:
		src = src[:4*len(dst)]
		for i := range dst {
			dst[i] = math.Float32frombits(le.Uint32(src[4*i:]))
		}
	case F16:
		t := f16Table()
		src = src[:2*len(dst)]
		for i := range dst {
			dst[i] = t[le.Uint16(src[2*i:])]
		}
	case BF16:
		src = src[:2*len(dst)]
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(le.Uint16(src[2*i:])) << 16)
		}
	}
}

// Float32s reads t from r (its file) widened to float32.
func (t *Tensor) Float32s(r io.ReaderAt) ([]float32, error) {
	if err := t.Float(); err != nil {
		return nil, err
	}
	raw := make([]byte, t.Length)
	if _, err := r.ReadAt(raw, t.Offset); err != nil {
		return nil, fmt.Errorf("%s: reading tensor %s: %w", t.File, t.Name, err)
	}
	out := make([]float32, t.Elements())
	return out, t.Decode(raw, out)
}
