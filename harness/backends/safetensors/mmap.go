package safetensors

import (
	"fmt"
	"unsafe"
)

// Mapping is a safetensors file's bytes, mapped read-only into memory
// (read whole where the system has no mmap): tensors are read in place,
// and pages that were read count as the process's memory only until
// Release.
type Mapping struct {
	file  *File
	data  []byte
	unmap func() error
}

// Map maps f's file. The file must not change while mapped.
func (f *File) Map() (*Mapping, error) {
	data, unmap, err := mapFile(f.Path, f.Size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if int64(len(data)) != f.Size {
		unmap()
		return nil, fmt.Errorf("%s changed size (%d bytes, %d when its header was read); read it again", f.Path, len(data), f.Size)
	}
	return &Mapping{file: f, data: data, unmap: unmap}, nil
}

// Bytes are t's bytes, which must be the mapped file's tensor.
func (m *Mapping) Bytes(t *Tensor) []byte { return m.data[t.Offset : t.Offset+t.Length] }

// Release drops t's pages from the process's resident memory (they stay
// in the page cache).
func (m *Mapping) Release(t *Tensor) { release(m.Bytes(t)) }

// Close unmaps the file; Bytes' slices are invalid after.
func (m *Mapping) Close() error {
	if m.data == nil {
		return nil
	}
	m.data = nil
	return m.unmap()
}

func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
