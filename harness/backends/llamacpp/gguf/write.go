package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/feather-eval/feather/internal/atomicfile"
)

// Builder collects metadata and tensors and writes them as a GGUF v3
// file, in the order they were added, as gguf-py's writer lays a file
// out.
type Builder struct {
	kv      []KV
	tensors []tensor
	err     error // the first bad Set or Add, returned by WriteTo
}

// tensor is one tensor's description and stored bytes.
type tensor struct {
	name string
	dims []int64 // ggml order: the innermost (row) dimension first
	typ  Type
	data []byte
}

// NewBuilder starts an empty file.
func NewBuilder() *Builder { return &Builder{} }

// Set stores a metadata value (a Go value of a GGUF type, see KV),
// replacing an earlier value of key in place. A value of another type is
// reported by WriteTo.
func (b *Builder) Set(key string, value any) {
	if _, _, ok := valueType(value); !ok && b.err == nil {
		b.err = fmt.Errorf("metadata %s: a %T is not a GGUF value (use a sized integer, float32/64, bool, string or a slice of one)", key, value)
	}
	for i := range b.kv {
		if b.kv[i].Key == key {
			b.kv[i].Value = value
			return
		}
	}
	b.kv = append(b.kv, KV{key, value})
}

// Get is a metadata value set earlier.
func (b *Builder) Get(key string) (any, bool) {
	for _, kv := range b.kv {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Add stores a tensor of the given shape, in row-major (PyTorch) order as
// values lists it, encoded as typ (F32, F16 or Q8_0). The file lists the
// dimensions innermost first, as ggml counts them.
func (b *Builder) Add(name string, shape []int, typ Type, values []float32) error {
	err := b.add(name, shape, typ, values)
	if err != nil && b.err == nil {
		b.err = err
	}
	return err
}

func (b *Builder) add(name string, shape []int, typ Type, values []float32) error {
	switch {
	case name == "" || len(name) >= maxName:
		return fmt.Errorf("tensor %q: a name must have 1 to %d bytes", name, maxName-1)
	case len(shape) == 0 || len(shape) > maxDims:
		return fmt.Errorf("tensor %s: %d dimensions; ggml tensors have 1 to %d", name, len(shape), maxDims)
	case slices.ContainsFunc(b.tensors, func(t tensor) bool { return t.name == name }):
		return fmt.Errorf("tensor %s is added twice", name)
	}
	n := 1
	for _, d := range shape {
		if d <= 0 {
			return fmt.Errorf("tensor %s: shape %v has a dimension below 1", name, shape)
		}
		n *= d
	}
	if n != len(values) {
		return fmt.Errorf("tensor %s: shape %v holds %d values, got %d", name, shape, n, len(values))
	}
	for i, v := range values {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("tensor %s: value %d is %v; weights must be finite", name, i, v)
		}
	}
	data, err := encode(typ, values, shape[len(shape)-1])
	if err != nil {
		return fmt.Errorf("tensor %s: %v", name, err)
	}
	dims := make([]int64, len(shape))
	for i, d := range shape {
		dims[len(shape)-1-i] = int64(d)
	}
	b.tensors = append(b.tensors, tensor{name: name, dims: dims, typ: typ, data: data})
	return nil
}

// alignment is general.alignment, or the default.
func (b *Builder) alignment() (uint64, error) {
	v, ok := b.Get(AlignmentKey)
	if !ok {
		return DefaultAlignment, nil
	}
	a, isU32 := v.(uint32)
	if !isU32 || a == 0 || a&(a-1) != 0 {
		return 0, fmt.Errorf("metadata %s: want a uint32 power of two, got %T %v", AlignmentKey, v, v)
	}
	return uint64(a), nil
}

// Bytes is the whole file.
func (b *Builder) Bytes() ([]byte, error) {
	if b.err != nil {
		return nil, b.err
	}
	align, err := b.alignment()
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	out := append([]byte(nil), Magic...)
	out = le.AppendUint32(out, Version)
	out = le.AppendUint64(out, uint64(len(b.tensors)))
	out = le.AppendUint64(out, uint64(len(b.kv)))
	for _, kv := range b.kv {
		if out, err = appendKV(out, kv); err != nil {
			return nil, err
		}
	}
	var offset uint64
	for _, t := range b.tensors {
		out = appendString(out, t.name)
		out = le.AppendUint32(out, uint32(len(t.dims)))
		for _, d := range t.dims {
			out = le.AppendUint64(out, uint64(d))
		}
		out = le.AppendUint32(out, uint32(t.typ))
		out = le.AppendUint64(out, offset)
		offset += pad(uint64(len(t.data)), align)
	}
	out = append(out, make([]byte, pad(uint64(len(out)), align)-uint64(len(out)))...)
	for _, t := range b.tensors {
		out = append(out, t.data...)
		out = append(out, make([]byte, pad(uint64(len(t.data)), align)-uint64(len(t.data)))...)
	}
	return out, nil
}

// WriteTo writes the file to w.
func (b *Builder) WriteTo(w io.Writer) (int64, error) {
	data, err := b.Bytes()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(data)
	return int64(n), err
}

// WriteFile writes the file to path through a temporary file, so a
// failed write leaves nothing half-written.
func (b *Builder) WriteFile(path string) error {
	data, err := b.Bytes()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.Write(path, data)
}

// pad rounds n up to a multiple of align (a power of two).
func pad(n, align uint64) uint64 { return (n + align - 1) &^ (align - 1) }
