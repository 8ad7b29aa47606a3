package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// Limits llama.cpp's ggml sets on a tensor.
const (
	maxName = 64 // GGML_MAX_NAME: names have at most 63 bytes
	maxDims = 4  // GGML_MAX_DIMS
)

// maxHeader bounds what a header may take, and so what Read allocates:
// real models' metadata and tensor directory take a few megabytes (a
// 262k-token vocabulary with its merges about 15 MB).
const maxHeader = 256 << 20

// incomplete ends a truncation error with the fix.
const incomplete = "; the file is incomplete: download or convert it again"

// The fewest bytes a metadata pair and a tensor description can take,
// which bound the counts a header may claim: a pair is a key length (8),
// a one-byte key, a type (4) and a one-byte value; a description is a
// name length (8), a dimension count (4), a type (4) and an offset (8).
const (
	minKVBytes     = 14
	minTensorBytes = 24
)

// File is a GGUF file's header: metadata, tensor directory and layout.
type File struct {
	// Path is the name errors use for the file.
	Path    string
	Version uint32
	// KV is the metadata in file order.
	KV []KV
	// Tensors are the tensor descriptions in file order.
	Tensors []TensorInfo
	// Alignment is the data alignment; DataOffset where the data section
	// starts; Size the file's size.
	Alignment  uint64
	DataOffset int64
	Size       int64
}

// TensorInfo describes one tensor.
type TensorInfo struct {
	Name string
	// Dims are the dimensions innermost first (ggml's ne): a Hugging Face
	// [out, in] weight has Dims [in, out].
	Dims []int64
	Type Type
	// Offset is where the data starts, from File.DataOffset; Bytes its size.
	Offset uint64
	Bytes  int64
}

// Shape is the tensor's shape in row-major (PyTorch) order: Dims reversed.
func (t TensorInfo) Shape() []int64 {
	s := make([]int64, len(t.Dims))
	for i, d := range t.Dims {
		s[len(t.Dims)-1-i] = d
	}
	return s
}

// Elements is the number of values.
func (t TensorInfo) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Get is a metadata value.
func (f *File) Get(key string) (any, bool) {
	for _, kv := range f.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Tensor finds a tensor by name.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	for _, t := range f.Tensors {
		if t.Name == name {
			return t, true
		}
	}
	return TensorInfo{}, false
}

// Architecture is general.architecture.
func (f *File) Architecture() (string, error) {
	v, ok := f.Get("general.architecture")
	if !ok {
		return "", fmt.Errorf("%s: no general.architecture; every llama.cpp model names its architecture", f.Path)
	}
	s, isStr := v.(string)
	if !isStr {
		return "", fmt.Errorf("%s: general.architecture must be a string, got %s", f.Path, typeName(v))
	}
	return s, nil
}

// ReadTensor reads a tensor's values from r (the file Read read), decoded
// to float32 (F32, F16, BF16 and Q8_0 tensors).
func (f *File) ReadTensor(r io.ReaderAt, name string) ([]float32, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("%s: no tensor %s", f.Path, name)
	}
	data := make([]byte, t.Bytes)
	// A ReaderAt may report io.EOF with a read that reaches the end.
	if n, err := r.ReadAt(data, f.DataOffset+int64(t.Offset)); n < len(data) {
		return nil, fmt.Errorf("%s: tensor %s: %w", f.Path, name, err)
	}
	v, err := decode(t.Type, data, int(t.Elements()))
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %s: %v", f.Path, name, err)
	}
	return v, nil
}

// Open reads and checks the header of the GGUF file at path (not the
// tensor data, which it only checks lies inside the file).
func Open(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a GGUF file", path)
	}
	return Read(fd, st.Size(), path)
}

// Read reads and checks a GGUF header from r, a file of size bytes that
// errors call name. It checks what llama.cpp's gguf reader checks (magic,
// version, counts, metadata types, the alignment, tensor names, dimensions
// and types, that tensors are packed in order) and more: every tensor's
// data lies inside the file, and the metadata llama.cpp would abort on
// rather than reject (see checkLlama). No count in the header can make it
// allocate more than the file holds.
func Read(r io.ReaderAt, size int64, name string) (*File, error) {
	p := &parser{c: cursor{r: bufio.NewReaderSize(io.NewSectionReader(r, 0, size), 64<<10), size: size}, f: &File{Path: name, Size: size}}
	if err := p.parse(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p.f, nil
}

type parser struct {
	c cursor
	f *File
}

func (p *parser) parse() error {
	if err := p.header(); err != nil {
		return err
	}
	nTensors, err := p.count("tensors", minTensorBytes)
	if err != nil {
		return err
	}
	nKV, err := p.count("metadata pairs", minKVBytes)
	if err != nil {
		return err
	}
	if err := p.metadata(nKV); err != nil {
		return err
	}
	if err := p.alignment(); err != nil {
		return err
	}
	if err := p.tensors(nTensors); err != nil {
		return err
	}
	if err := p.layout(); err != nil {
		return err
	}
	return checkLlama(p.f)
}

// header reads the magic and the version.
func (p *parser) header() error {
	if p.c.size == 0 {
		return fmt.Errorf("empty file; a GGUF file starts with %q", Magic)
	}
	head := make([]byte, min(p.c.size, 4))
	if err := p.c.read(head, "the magic"); err != nil {
		return err
	}
	if string(head) != Magic[:len(head)] {
		return fmt.Errorf("not a GGUF file (it starts with %q, not %q)", head, Magic)
	}
	if len(head) < 4 {
		return p.c.truncated("the magic")
	}
	v, err := p.c.u32("the version")
	if err != nil {
		return err
	}
	p.f.Version = v
	switch {
	case v == 0:
		return errors.New("GGUF version 0 is not a version")
	case v&0xFFFF == 0:
		return fmt.Errorf("GGUF version %d: the file is big-endian (its version reads byte-swapped); llama.cpp reads little-endian files", v)
	case v == 1:
		return errors.New("GGUF version 1 is no longer read by llama.cpp (versions 2 and 3 are); convert the model again")
	case v > Version:
		return fmt.Errorf("GGUF version %d is newer than llama.cpp reads (up to %d)", v, Version)
	}
	return nil
}

// count reads a header count and bounds it by what the rest of the file
// can describe.
func (p *parser) count(what string, minBytes int64) (int64, error) {
	n, err := p.c.u64("the number of " + what)
	if err != nil {
		return 0, err
	}
	if n > uint64(p.c.remaining()/minBytes) {
		return 0, fmt.Errorf("the header counts %d %s, more than the %d-byte file can hold", n, what, p.c.size)
	}
	return int64(n), nil
}

func (p *parser) metadata(n int64) error {
	seen := map[string]int64{}
	for i := int64(0); i < n; i++ {
		key, err := p.c.str(fmt.Sprintf("the key of metadata pair %d", i))
		if err != nil {
			return err
		}
		if key == "" {
			return fmt.Errorf("metadata pair %d has an empty key", i)
		}
		if j, dup := seen[key]; dup {
			return fmt.Errorf("key %s appears twice (metadata pairs %d and %d)", key, j, i)
		}
		seen[key] = i
		v, err := p.value(key)
		if err != nil {
			return err
		}
		p.f.KV = append(p.f.KV, KV{key, v})
	}
	return nil
}

// value reads one metadata value.
func (p *parser) value(key string) (any, error) {
	t, err := p.c.u32("the type of " + key)
	if err != nil {
		return nil, err
	}
	typ := ValueType(t)
	if typ != TypeArray {
		if typ > TypeFloat64 {
			return nil, fmt.Errorf("key %s: unknown value type %d (GGUF value types are 0 to %d)", key, t, TypeFloat64)
		}
		return p.scalar(typ, "the value of "+key)
	}
	et, err := p.c.u32("the element type of " + key)
	if err != nil {
		return nil, err
	}
	elem := ValueType(et)
	switch {
	case elem == TypeArray:
		return nil, fmt.Errorf("key %s: an array of arrays, which llama.cpp does not read", key)
	case elem > TypeFloat64:
		return nil, fmt.Errorf("key %s: unknown array element type %d (GGUF value types are 0 to %d)", key, et, TypeFloat64)
	}
	n, err := p.c.u64("the length of " + key)
	if err != nil {
		return nil, err
	}
	if least := minSize(elem); n > uint64(p.c.remaining()/least) {
		return nil, fmt.Errorf("truncated: key %s: an array of %d %ss at byte %d cannot fit in the %d-byte file"+incomplete, key, n, elem, p.c.pos, p.c.size)
	}
	return p.array(elem, int(n), key)
}

// minSize is the fewest bytes an element takes: a string's is its length.
func minSize(t ValueType) int64 {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	}
	return 8
}

func (p *parser) scalar(t ValueType, what string) (any, error) {
	if t == TypeString {
		return p.c.str(what)
	}
	b := make([]byte, minSize(t))
	if err := p.c.read(b, what); err != nil {
		return nil, err
	}
	return scalarFrom(t, b), nil
}

// scalarFrom decodes a fixed-size scalar.
func scalarFrom(t ValueType, b []byte) any {
	le := binary.LittleEndian
	switch t {
	case TypeUint8:
		return b[0]
	case TypeInt8:
		return int8(b[0])
	case TypeUint16:
		return le.Uint16(b)
	case TypeInt16:
		return int16(le.Uint16(b))
	case TypeUint32:
		return le.Uint32(b)
	case TypeInt32:
		return int32(le.Uint32(b))
	case TypeFloat32:
		return math.Float32frombits(le.Uint32(b))
	case TypeBool:
		return b[0] != 0
	case TypeUint64:
		return le.Uint64(b)
	case TypeInt64:
		return int64(le.Uint64(b))
	}
	return math.Float64frombits(le.Uint64(b))
}

func (p *parser) array(t ValueType, n int, key string) (any, error) {
	what := "the values of " + key
	if t == TypeString {
		out := make([]string, 0, min(n, 1<<16)) // grown as strings are read, not as the header claims
		for i := 0; i < n; i++ {
			s, err := p.c.str(fmt.Sprintf("%s[%d]", key, i))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	size := int(minSize(t))
	if err := p.c.within(int64(n)*int64(size), what); err != nil {
		return nil, err
	}
	b := make([]byte, n*size)
	if err := p.c.read(b, what); err != nil {
		return nil, err
	}
	switch t {
	case TypeUint8:
		return b, nil
	case TypeInt8:
		return each(b, size, func(x []byte) int8 { return int8(x[0]) }), nil
	case TypeUint16:
		return each(b, size, binary.LittleEndian.Uint16), nil
	case TypeInt16:
		return each(b, size, func(x []byte) int16 { return int16(binary.LittleEndian.Uint16(x)) }), nil
	case TypeUint32:
		return each(b, size, binary.LittleEndian.Uint32), nil
	case TypeInt32:
		return each(b, size, func(x []byte) int32 { return int32(binary.LittleEndian.Uint32(x)) }), nil
	case TypeFloat32:
		return each(b, size, func(x []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(x)) }), nil
	case TypeBool:
		return each(b, size, func(x []byte) bool { return x[0] != 0 }), nil
	case TypeUint64:
		return each(b, size, binary.LittleEndian.Uint64), nil
	case TypeInt64:
		return each(b, size, func(x []byte) int64 { return int64(binary.LittleEndian.Uint64(x)) }), nil
	}
	return each(b, size, func(x []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(x)) }), nil
}

func each[T any](b []byte, size int, conv func([]byte) T) []T {
	out := make([]T, len(b)/size)
	for i := range out {
		out[i] = conv(b[i*size:])
	}
	return out
}

// alignment reads general.alignment as llama.cpp does: a uint32 power of
// two, 32 when absent.
func (p *parser) alignment() error {
	p.f.Alignment = DefaultAlignment
	v, ok := p.f.Get(AlignmentKey)
	if !ok {
		return nil
	}
	a, isU32 := v.(uint32)
	switch {
	case !isU32:
		return fmt.Errorf("%s must be a uint32, got %s", AlignmentKey, typeName(v))
	case a == 0 || a&(a-1) != 0:
		return fmt.Errorf("%s %d is not a power of two", AlignmentKey, a)
	}
	p.f.Alignment = uint64(a)
	return nil
}

func (p *parser) tensors(n int64) error {
	seen := map[string]int64{}
	for i := int64(0); i < n; i++ {
		t, err := p.tensor(i)
		if err != nil {
			return err
		}
		if j, dup := seen[t.Name]; dup {
			return fmt.Errorf("tensor %s appears twice (tensors %d and %d)", t.Name, j, i)
		}
		seen[t.Name] = i
		p.f.Tensors = append(p.f.Tensors, t)
	}
	return nil
}

// tensor reads and checks one tensor description.
func (p *parser) tensor(i int64) (TensorInfo, error) {
	var t TensorInfo
	name, err := p.c.str(fmt.Sprintf("the name of tensor %d", i))
	if err != nil {
		return t, err
	}
	if len(name) >= maxName {
		return t, fmt.Errorf("tensor %d: its name has %d bytes; ggml allows %d (%.40q…)", i, len(name), maxName-1, name)
	}
	t.Name = name
	nd, err := p.c.u32("the dimension count of tensor " + name)
	if err != nil {
		return t, err
	}
	if nd > maxDims {
		return t, fmt.Errorf("tensor %s: %d dimensions; ggml tensors have at most %d", name, nd, maxDims)
	}
	for j := uint32(0); j < nd; j++ {
		d, err := p.c.u64(fmt.Sprintf("dimension %d of tensor %s", j, name))
		if err != nil {
			return t, err
		}
		if int64(d) < 0 {
			return t, fmt.Errorf("tensor %s: dimension %d is %d; dimensions are not negative", name, j, int64(d))
		}
		t.Dims = append(t.Dims, int64(d))
	}
	typ, err := p.c.u32("the type of tensor " + name)
	if err != nil {
		return t, err
	}
	t.Type = Type(typ)
	if t.Bytes, err = tensorBytes(t); err != nil {
		return t, fmt.Errorf("tensor %s: %v", name, err)
	}
	t.Offset, err = p.c.u64("the data offset of tensor " + name)
	return t, err
}

// tensorBytes is the size of t's data, refusing unknown types, rows that
// are not whole blocks and sizes past any file.
func tensorBytes(t TensorInfo) (int64, error) {
	info, known := types[t.Type]
	switch {
	case !known:
		return 0, fmt.Errorf("unknown tensor type %d (ggml's types are 0 to %d)", uint32(t.Type), len(types)-1)
	case info.block == 0:
		return 0, fmt.Errorf("tensor type %d (%s) is no longer supported by llama.cpp", uint32(t.Type), info.name)
	}
	n := int64(1)
	for _, d := range t.Dims {
		if d != 0 && n > math.MaxInt64/d {
			return 0, fmt.Errorf("shape %v holds more than 2^63 values", t.Shape())
		}
		n *= d
	}
	row := int64(1)
	if len(t.Dims) > 0 {
		row = t.Dims[0]
	}
	if _, ok := t.Type.rowBytes(row); !ok {
		return 0, fmt.Errorf("a row of %d values is not a whole number of %v blocks (%d values each)", row, t.Type, info.block)
	}
	if n/info.block > math.MaxInt64/info.size {
		return 0, fmt.Errorf("shape %v of %v takes more than 2^63 bytes", t.Shape(), t.Type)
	}
	return n / info.block * info.size, nil
}

// layout checks that the data section starts where llama.cpp looks for
// it, that tensors are packed in order as it requires, and that each
// lies inside the file.
func (p *parser) layout() error {
	f := p.f
	f.DataOffset = p.c.pos
	if len(f.Tensors) == 0 {
		return nil
	}
	start := pad(uint64(p.c.pos), f.Alignment)
	if start > uint64(f.Size) {
		return fmt.Errorf("truncated: the data section would start at byte %d of %d"+incomplete, start, f.Size)
	}
	f.DataOffset = int64(start)
	var want uint64
	for _, t := range f.Tensors {
		if t.Offset != want {
			return fmt.Errorf("tensor %s: data offset %d, but llama.cpp expects %d (tensors are packed in file order, each padded to %d bytes)", t.Name, t.Offset, want, f.Alignment)
		}
		end := start + t.Offset + uint64(t.Bytes)
		if end > uint64(f.Size) || end < start {
			return fmt.Errorf("truncated: tensor %s ends at byte %d of %d"+incomplete, t.Name, end, f.Size)
		}
		want += pad(uint64(t.Bytes), f.Alignment)
	}
	return nil
}

// typeName names a metadata value's GGUF type.
func typeName(v any) string {
	t, elem, ok := valueType(v)
	switch {
	case !ok:
		return fmt.Sprintf("%T", v)
	case t == TypeArray:
		return "an array of " + elem.String()
	}
	return t.String()
}

// cursor reads the header sequentially, knowing how much file is left.
type cursor struct {
	r    *bufio.Reader
	pos  int64
	size int64
}

func (c *cursor) remaining() int64 { return c.size - c.pos }

func (c *cursor) truncated(what string) error {
	return fmt.Errorf("truncated: the file ends at byte %d, in %s"+incomplete, c.size, what)
}

// read fills b, or says where the file ended.
func (c *cursor) read(b []byte, what string) error {
	if int64(len(b)) > c.remaining() {
		return c.truncated(what)
	}
	if err := c.within(int64(len(b)), what); err != nil {
		return err
	}
	n, err := io.ReadFull(c.r, b)
	c.pos += int64(n)
	if err != nil {
		return fmt.Errorf("reading %s at byte %d: %w", what, c.pos, err)
	}
	return nil
}

// within refuses a header that would run past maxHeader.
func (c *cursor) within(n int64, what string) error {
	if c.pos+n > maxHeader {
		return fmt.Errorf("%s at byte %d would take the header past %d MiB; real models' headers take a few MB, so the file is corrupt", what, c.pos, maxHeader>>20)
	}
	return nil
}

func (c *cursor) u32(what string) (uint32, error) {
	var b [4]byte
	err := c.read(b[:], what)
	return binary.LittleEndian.Uint32(b[:]), err
}

func (c *cursor) u64(what string) (uint64, error) {
	var b [8]byte
	err := c.read(b[:], what)
	return binary.LittleEndian.Uint64(b[:]), err
}

// str reads a length-prefixed string, refusing a length past the file.
func (c *cursor) str(what string) (string, error) {
	n, err := c.u64("the length of " + what)
	if err != nil {
		return "", err
	}
	if n > uint64(c.remaining()) {
		return "", fmt.Errorf("truncated: %s: a %d-byte string at byte %d runs past the end of the %d-byte file"+incomplete, what, n, c.pos, c.size)
	}
	if err := c.within(int64(n), what); err != nil {
		return "", err
	}
	b := make([]byte, n)
	if err := c.read(b, what); err != nil {
		return "", err
	}
	return string(b), nil
}
