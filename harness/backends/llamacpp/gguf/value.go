package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// KV is one metadata pair. Value holds a Go value of the GGUF type:
// uint8, int8, uint16, int16, uint32, int32, float32, bool, string,
// uint64, int64, float64, or a slice of one of those for an array.
type KV struct {
	Key   string
	Value any
}

// scalarType is the GGUF type of a Go scalar.
func scalarType(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return TypeUint8, true
	case int8:
		return TypeInt8, true
	case uint16:
		return TypeUint16, true
	case int16:
		return TypeInt16, true
	case uint32:
		return TypeUint32, true
	case int32:
		return TypeInt32, true
	case float32:
		return TypeFloat32, true
	case bool:
		return TypeBool, true
	case string:
		return TypeString, true
	case uint64:
		return TypeUint64, true
	case int64:
		return TypeInt64, true
	case float64:
		return TypeFloat64, true
	}
	return 0, false
}

// valueType is the GGUF type of a Go value and, for an array, of its
// elements.
func valueType(v any) (typ, elem ValueType, ok bool) {
	if t, ok := scalarType(v); ok {
		return t, 0, true
	}
	switch v.(type) {
	case []uint8:
		return TypeArray, TypeUint8, true
	case []int8:
		return TypeArray, TypeInt8, true
	case []uint16:
		return TypeArray, TypeUint16, true
	case []int16:
		return TypeArray, TypeInt16, true
	case []uint32:
		return TypeArray, TypeUint32, true
	case []int32:
		return TypeArray, TypeInt32, true
	case []float32:
		return TypeArray, TypeFloat32, true
	case []bool:
		return TypeArray, TypeBool, true
	case []string:
		return TypeArray, TypeString, true
	case []uint64:
		return TypeArray, TypeUint64, true
	case []int64:
		return TypeArray, TypeInt64, true
	case []float64:
		return TypeArray, TypeFloat64, true
	}
	return 0, 0, false
}

// appendString appends a GGUF string: a uint64 length, then the bytes.
func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	return append(b, s...)
}

// appendScalar appends a scalar's bytes.
func appendScalar(b []byte, v any) []byte {
	le := binary.LittleEndian
	switch x := v.(type) {
	case uint8:
		return append(b, x)
	case int8:
		return append(b, byte(x))
	case uint16:
		return le.AppendUint16(b, x)
	case int16:
		return le.AppendUint16(b, uint16(x))
	case uint32:
		return le.AppendUint32(b, x)
	case int32:
		return le.AppendUint32(b, uint32(x))
	case float32:
		return le.AppendUint32(b, math.Float32bits(x))
	case bool:
		if x {
			return append(b, 1)
		}
		return append(b, 0)
	case string:
		return appendString(b, x)
	case uint64:
		return le.AppendUint64(b, x)
	case int64:
		return le.AppendUint64(b, uint64(x))
	case float64:
		return le.AppendUint64(b, math.Float64bits(x))
	}
	panic(fmt.Sprintf("gguf: %T is not a scalar", v)) // valueType vetted v
}

// appendKV appends one metadata pair.
func appendKV(b []byte, kv KV) ([]byte, error) {
	typ, elem, ok := valueType(kv.Value)
	if !ok {
		return nil, fmt.Errorf("metadata %s: a %T is not a GGUF value (use a sized integer, float32/64, bool, string or a slice of one)", kv.Key, kv.Value)
	}
	b = appendString(b, kv.Key)
	b = binary.LittleEndian.AppendUint32(b, uint32(typ))
	if typ != TypeArray {
		return appendScalar(b, kv.Value), nil
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(elem))
	return appendArray(b, kv.Value), nil
}

func appendArray(b []byte, v any) []byte {
	switch x := v.(type) {
	case []uint8:
		return appendEach(b, x)
	case []int8:
		return appendEach(b, x)
	case []uint16:
		return appendEach(b, x)
	case []int16:
		return appendEach(b, x)
	case []uint32:
		return appendEach(b, x)
	case []int32:
		return appendEach(b, x)
	case []float32:
		return appendEach(b, x)
	case []bool:
		return appendEach(b, x)
	case []string:
		return appendEach(b, x)
	case []uint64:
		return appendEach(b, x)
	case []int64:
		return appendEach(b, x)
	case []float64:
		return appendEach(b, x)
	}
	panic(fmt.Sprintf("gguf: %T is not an array", v)) // valueType vetted v
}

func appendEach[T any](b []byte, xs []T) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(xs)))
	for _, x := range xs {
		b = appendScalar(b, x)
	}
	return b
}
