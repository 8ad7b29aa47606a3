// Package safetensors reads and writes the safetensors format in which
// Hugging Face checkpoints store their weights: an 8-byte little-endian
// header length, a JSON header (the __metadata__ strings and, for each
// tensor, its dtype, shape and data_offsets), then the tensors' bytes,
// packed. Every header is checked before any of it is used, as the
// reference implementation checks it; errors name the file and the
// tensor. Sharded checkpoints (model.safetensors.index.json) open as one
// (dir.go); tensors are read in place through mmap (Map) or with ReadAt,
// and F16 and BF16 widen to float32 (Widen); Write lays files out exactly
// as transformers' save_pretrained does (write.go).
package safetensors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// DType is a tensor's element type as the header spells it.
type DType string

// The element types checkpoints store weights in; the others the format
// knows are read, and refused by whoever needs floats (Float32s).
const (
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
)

// dtypeSizes are the byte-sized dtypes of the format.
var dtypeSizes = map[DType]int64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "F8_E8M0": 1,
	"I16": 2, "U16": 2, F16: 2, BF16: 2,
	"I32": 4, "U32": 4, F32: 4,
	"I64": 8, "U64": 8, "F64": 8,
}

// Size is the element size in bytes; 0 for a dtype the format lacks.
func (d DType) Size() int64 { return dtypeSizes[d] }

// knownDTypes lists the dtypes for messages, sorted.
func knownDTypes() string {
	var out []string
	for d := range dtypeSizes {
		out = append(out, string(d))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// MaxHeaderBytes caps the JSON header, as the reference implementation
// does (100 MB): real checkpoints' headers take kilobytes to a few
// megabytes, and a hostile length must not make a reader allocate more.
const MaxHeaderBytes = 100_000_000

// Tensor is one tensor's entry: where its bytes lie in its file.
type Tensor struct {
	Name  string
	DType DType
	Shape []int64
	// Offset is where the data starts, from the start of the file (the
	// header's data_offsets are from the end of the header); Length is
	// its byte count.
	Offset, Length int64
	// File is the file's path (or the name Read was given).
	File string
}

// Elements is the product of the shape (1 for a scalar).
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// File is a safetensors file's header.
type File struct {
	Path string
	Size int64
	// DataOffset is where the tensors' bytes start: 8 + the header length.
	DataOffset int64
	Metadata   map[string]string
	// Tensors are in data order.
	Tensors []*Tensor
	byName  map[string]*Tensor
}

// Tensor is the tensor called name; nil when the file has none.
func (f *File) Tensor(name string) *Tensor { return f.byName[name] }

// Open reads and checks the header of the file at path.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Read(f, st.Size(), path)
}

// incomplete is the fix every truncation names.
const incomplete = "; the file is incomplete: download or save it again"

// Read reads and checks the header of a safetensors file of size bytes
// from r; name labels it in errors and becomes its Path.
func Read(r io.ReaderAt, size int64, name string) (*File, error) {
	f, err := read(r, size, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

func read(r io.ReaderAt, size int64, name string) (*File, error) {
	if size < 8 {
		if size == 0 {
			return nil, errors.New("empty file; a safetensors file starts with an 8-byte header length")
		}
		return nil, fmt.Errorf("truncated: the file has %d bytes, fewer than the 8-byte header length it starts with%s", size, incomplete)
	}
	var lenBuf [8]byte
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	// PyTorch's own files start with a zip archive's or a pickle's magic,
	// which read as a length no header has.
	pickled := string(lenBuf[:4]) == "PK\x03\x04" || lenBuf[0] == 0x80 && lenBuf[1] >= 2 && lenBuf[1] <= 5
	switch {
	case pickled && (n > MaxHeaderBytes || int64(n) > size-8):
		return nil, errors.New("this is a PyTorch pickle (a zip archive or a raw pickle), not a safetensors file; feather never loads pickles, which run code when read: use the checkpoint's .safetensors files")
	case n > MaxHeaderBytes:
		return nil, fmt.Errorf("the header length is %d bytes, more than the %d a safetensors header may take; the file is corrupt or not a safetensors file", n, MaxHeaderBytes)
	case int64(n) > size-8:
		return nil, fmt.Errorf("truncated: the header length is %d bytes, past the end of the %d-byte file%s", n, size, incomplete)
	case n < 2:
		return nil, fmt.Errorf("the header length is %d bytes, too short for the JSON object it must hold; the file is corrupt or not a safetensors file", n)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 8); err != nil {
		return nil, err
	}
	if !utf8.Valid(header) {
		return nil, errors.New("the header is not UTF-8 text" + corrupt)
	}
	f := &File{Path: name, Size: size, DataOffset: 8 + int64(n), byName: map[string]*Tensor{}}
	if err := f.parseHeader(header); err != nil {
		return nil, err
	}
	if err := f.checkLayout(); err != nil {
		return nil, err
	}
	return f, nil
}

// checkLayout holds the tensors to what the reference implementation
// requires: their data packed from the start of the data section, in
// some order, without gaps or overlaps, to its end.
func (f *File) checkLayout() error {
	data := f.Size - f.DataOffset
	ts := f.Tensors
	sort.SliceStable(ts, func(i, j int) bool {
		if ts[i].Offset != ts[j].Offset {
			return ts[i].Offset < ts[j].Offset
		}
		return ts[i].Length < ts[j].Length
	})
	var end int64
	var prev *Tensor
	for _, t := range ts {
		begin := t.Offset
		switch {
		case begin < end:
			return fmt.Errorf("tensors %s and %s overlap (data bytes %d–%d and %d–%d); the file is corrupt", prev.Name, t.Name, prev.Offset, prev.Offset+prev.Length, begin, begin+t.Length)
		case begin > end && prev == nil:
			return fmt.Errorf("the data section's bytes 0–%d belong to no tensor (the first, %s, starts at %d); the file is corrupt", begin, t.Name, begin)
		case begin > end:
			return fmt.Errorf("the data section's bytes %d–%d, between tensors %s and %s, belong to no tensor; the file is corrupt", end, begin, prev.Name, t.Name)
		case begin+t.Length > data:
			return fmt.Errorf("truncated: tensor %s ends at data byte %d, but the file holds %d bytes of data%s", t.Name, begin+t.Length, data, incomplete)
		}
		end, prev = begin+t.Length, t
	}
	if end != data {
		return fmt.Errorf("the tensors' data ends at byte %d but the file holds %d bytes of data after its header; the file is corrupt", end, data)
	}
	// Offsets were from the data section; make them the file's.
	for _, t := range ts {
		t.Offset += f.DataOffset
	}
	return nil
}

// Names lists the tensor names, sorted.
func (f *File) Names() []string {
	out := make([]string, 0, len(f.Tensors))
	for _, t := range f.Tensors {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}
