// Package gguf writes and reads GGUF, llama.cpp's model file format:
// a little-endian header (magic "GGUF", version, tensor and metadata
// counts), typed metadata key/value pairs, tensor descriptions, and the
// tensor data, each tensor aligned (general.alignment, 32 bytes unless
// set). The writer stores F32, F16 and Q8_0 tensors as ggml's reference
// code does; FromCheckpoint converts a Hugging Face checkpoint the way
// llama.cpp's convert_hf_to_gguf.py does, vocabulary included. Read checks
// a file thoroughly before llama.cpp sees it: llama.cpp aborts the whole
// process on some malformed input, so what it would reject, and what would
// crash it, is caught here with an error naming the file, the key or
// tensor, and what is wrong.
//
// The expectations matched are those of the llama.cpp that
// @node-llama-cpp/linux-x64 3.21.1 is built from (release v0.4.0, ggml
// 0.23.0, gguf-py 0.19.0).
package gguf

import "fmt"

// Magic starts every GGUF file; Version is the version written.
const (
	Magic   = "GGUF"
	Version = 3
	// DefaultAlignment is the data alignment when general.alignment is unset.
	DefaultAlignment = 32
	// AlignmentKey names the alignment a file uses.
	AlignmentKey = "general.alignment"
)

// Type is a ggml tensor type.
type Type uint32

// The tensor types this package writes and decodes (every type ggml
// knows is read and sized; see types).
const (
	F32  Type = 0
	F16  Type = 1
	Q8_0 Type = 8
	BF16 Type = 30
)

// typeInfo is a type's name and storage: block values stored in size
// bytes. A removed type has block 0.
type typeInfo struct {
	name        string
	block, size int64
}

// types are ggml's tensor types (ggml.h's enum ggml_type, GGML_TYPE_COUNT
// 43): block size and bytes per block.
var types = map[Type]typeInfo{
	0: {"F32", 1, 4}, 1: {"F16", 1, 2}, 2: {"Q4_0", 32, 18}, 3: {"Q4_1", 32, 20},
	4: {"Q4_2", 0, 0}, 5: {"Q4_3", 0, 0},
	6: {"Q5_0", 32, 22}, 7: {"Q5_1", 32, 24}, 8: {"Q8_0", 32, 34}, 9: {"Q8_1", 32, 40},
	10: {"Q2_K", 256, 84}, 11: {"Q3_K", 256, 110}, 12: {"Q4_K", 256, 144}, 13: {"Q5_K", 256, 176},
	14: {"Q6_K", 256, 210}, 15: {"Q8_K", 256, 292}, 16: {"IQ2_XXS", 256, 66}, 17: {"IQ2_XS", 256, 74},
	18: {"IQ3_XXS", 256, 98}, 19: {"IQ1_S", 256, 50}, 20: {"IQ4_NL", 32, 18}, 21: {"IQ3_S", 256, 110},
	22: {"IQ2_S", 256, 82}, 23: {"IQ4_XS", 256, 136}, 24: {"I8", 1, 1}, 25: {"I16", 1, 2},
	26: {"I32", 1, 4}, 27: {"I64", 1, 8}, 28: {"F64", 1, 8}, 29: {"IQ1_M", 256, 56}, 30: {"BF16", 1, 2},
	31: {"Q4_0_4_4", 0, 0}, 32: {"Q4_0_4_8", 0, 0}, 33: {"Q4_0_8_8", 0, 0},
	34: {"TQ1_0", 256, 54}, 35: {"TQ2_0", 256, 66},
	36: {"IQ4_NL_4_4", 0, 0}, 37: {"IQ4_NL_4_8", 0, 0}, 38: {"IQ4_NL_8_8", 0, 0},
	39: {"MXFP4", 32, 17}, 40: {"NVFP4", 64, 36}, 41: {"Q1_0", 128, 18}, 42: {"Q2_0", 64, 18},
}

func (t Type) String() string {
	if i, ok := types[t]; ok {
		return i.name
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// rowBytes is the size of a row of n values, false when n is not a whole
// number of blocks or the type is unknown or removed.
func (t Type) rowBytes(n int64) (int64, bool) {
	i, ok := types[t]
	if !ok || i.block == 0 || n%i.block != 0 {
		return 0, false
	}
	return n / i.block * i.size, true
}

// ValueType is a metadata value's type.
type ValueType uint32

// The metadata value types (gguf.h's enum gguf_type).
const (
	TypeUint8 ValueType = iota
	TypeInt8
	TypeUint16
	TypeInt16
	TypeUint32
	TypeInt32
	TypeFloat32
	TypeBool
	TypeString
	TypeArray
	TypeUint64
	TypeInt64
	TypeFloat64
)

var valueTypeNames = []string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (v ValueType) String() string {
	if int(v) < len(valueTypeNames) {
		return valueTypeNames[v]
	}
	return fmt.Sprintf("type %d", uint32(v))
}

// TokenType is tokenizer.ggml.token_type's value for a token.
type TokenType int32

// The token types (gguf-py's TokenType).
const (
	TokenNormal      TokenType = 1
	TokenUnknown     TokenType = 2
	TokenControl     TokenType = 3
	TokenUserDefined TokenType = 4
	TokenUnused      TokenType = 5
	TokenByte        TokenType = 6
)

// FileType is general.file_type: the type most weights are stored in.
type FileType uint32

// The file types FromCheckpoint writes (gguf-py's LlamaFileType).
const (
	AllF32     FileType = 0
	MostlyF16  FileType = 1
	MostlyQ8_0 FileType = 7
)

// tensorType is the storage of a file type's quantizable weights.
func (f FileType) tensorType() (Type, bool) {
	switch f {
	case AllF32:
		return F32, true
	case MostlyF16:
		return F16, true
	case MostlyQ8_0:
		return Q8_0, true
	}
	return 0, false
}

func (f FileType) String() string {
	if t, ok := f.tensorType(); ok {
		return t.String()
	}
	return fmt.Sprintf("file type %d", uint32(f))
}
