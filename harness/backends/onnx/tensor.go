package onnx

import (
	"math"
	"slices"
	"unsafe"
)

// alignedBytes returns n bytes aligned for float32 access (ONNX Runtime
// reads and writes these buffers in place).
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}

// grow returns b resized to n bytes, reusing its memory when it is large
// enough.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return alignedBytes(n)
}

func asFloat32(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}

func asUint16(b []byte) []uint16 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint16)(unsafe.Pointer(&b[0])), len(b)/2)
}

// halfToFloat converts an IEEE 754 binary16 value exactly.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := int32(-14)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | uint32(e+127)<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// logitsView reads rows of a [rows, seq, vocab] logits tensor, converting
// float16 rows on demand so only the rows scoring needs are converted.
// The tensor may cover only some positions: the last seq of each row,
// skip positions before them having none; or, when index is set, the
// positions it maps (b·seq+s, seq then counting every position) to their
// row of logits, -1 for none. A call that scores on a runner computing
// logits only where read also has each row's maximum and log Σ e^(x-max)
// (max, logsum, from norm.go; nil otherwise).
type logitsView struct {
	f32              []float32
	f16              []uint16
	seq, skip, vocab int
	index            []int32
	scratch          []float32
	max, logsum      []float32
}

// rowIndex is the row of logits holding position (b, s).
func (v *logitsView) rowIndex(b, s int) int {
	i := b*v.seq + s - v.skip
	if len(v.index) > 0 {
		i = int(v.index[b*v.seq+s])
	}
	if s < v.skip || i < 0 {
		panic("onnx: reading logits at a position the call did not ask for")
	}
	return i
}

// row returns the logits at (b, s), s counted from the row's first
// position. The slice is valid until the next call.
func (v *logitsView) row(b, s int) []float32 {
	off := v.rowIndex(b, s) * v.vocab
	if v.f32 != nil {
		return v.f32[off : off+v.vocab]
	}
	if cap(v.scratch) < v.vocab {
		v.scratch = make([]float32, v.vocab)
	}
	out := v.scratch[:v.vocab]
	for i, h := range v.f16[off : off+v.vocab] {
		out[i] = halfToFloat(h)
	}
	return out
}

// logProb is tokenLogProb of the logits at (b, s). With the row's
// normalisation (max, logsum) it reads only tok's logit, and the logits
// before it when tok holds the maximum (an earlier tie would win argmax).
func (v *logitsView) logProb(b, s, tok int) (lp float64, greedy bool) {
	if v.max == nil {
		return tokenLogProb(v.row(b, s), tok)
	}
	i := v.rowIndex(b, s)
	m, off := v.max[i], i*v.vocab
	x := v.at(off + tok)
	lp = float64(x) - float64(m) - float64(v.logsum[i])
	if x != m {
		return lp, false
	}
	if v.f32 != nil {
		return lp, !slices.Contains(v.f32[off:off+tok], m)
	}
	for _, h := range v.f16[off : off+tok] {
		if halfToFloat(h) == m {
			return lp, false
		}
	}
	return lp, true
}

// at is the logit at flat index i.
func (v *logitsView) at(i int) float32 {
	if v.f32 != nil {
		return v.f32[i]
	}
	return halfToFloat(v.f16[i])
}
