// Package seeded draws model parameters from a seed with a generator fixed
// forever (splitmix64), so a seed names the same weights on every machine
// and Go release. The built-in smoke model and the test models share it,
// which keeps their files byte-identical for the same shape and seed.
package seeded

import (
	"hash/fnv"
	"math"
)

// Rand is splitmix64: tiny, and never to change.
type Rand struct{ s uint64 }

// New starts a generator at seed.
func New(seed uint64) *Rand { return &Rand{s: seed} }

// Next is the next 64 random bits.
func (r *Rand) Next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Uniform is in [-a, a).
func (r *Rand) Uniform(a float64) float32 {
	u := float64(r.Next()>>11) / (1 << 53)
	return float32((2*u - 1) * a)
}

// Stream gives each tensor its own sequence, so adding a tensor never
// changes the others.
func Stream(seed uint64, name string) *Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return New(seed ^ h.Sum64())
}

// Tensor is a float32 weight in row-major order. Linear weights are stored
// [in, out], ready for MatMul (PyTorch's Linear keeps [out, in]).
type Tensor struct {
	Shape []int
	Data  []float32
}

// Init says how a tensor's values are drawn.
type Init int

const (
	Linear Init = iota // U(±√(3/fan_in)): unit variance through the layer
	Embed              // U(±0.5)
	Norm               // 1 + U(±0.1): visibly applied, near identity
	Bias               // U(±0.1)
)

// NewTensor draws the tensor called name from seed's stream for it.
func NewTensor(seed uint64, name string, init Init, shape ...int) *Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	t := &Tensor{Shape: shape, Data: make([]float32, n)}
	offset, a := float32(0), 0.0
	switch init {
	case Linear:
		a = math.Sqrt(3 / float64(shape[0]))
	case Embed:
		a = 0.5
	case Norm:
		offset, a = 1, 0.1
	case Bias:
		a = 0.1
	}
	r := Stream(seed, name)
	for i := range t.Data {
		t.Data[i] = offset + r.Uniform(a)
	}
	return t
}
