package gguf_test

import (
	"bytes"
	"testing"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
)

// FuzzReadGGUF feeds Read arbitrary bytes: it must return a file or an
// error naming the file, never panic, and what it accepts must hold
// together: every tensor inside the file, packed in order, and readable.
func FuzzReadGGUF(f *testing.F) {
	v := valid(f)
	f.Add(v)
	for _, n := range []int{4, 8, 24, 60, len(v) / 2, len(v) - 1} {
		f.Add(v[:n])
	}
	for _, m := range malformedCases(f) {
		f.Add(m.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := gguf.Read(bytes.NewReader(data), int64(len(data)), "fuzz.gguf")
		if err != nil {
			if !bytes.HasPrefix([]byte(err.Error()), []byte("fuzz.gguf: ")) {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		var next uint64
		for _, ti := range file.Tensors {
			if ti.Offset != next {
				t.Fatalf("tensor %s at %d, want %d", ti.Name, ti.Offset, next)
			}
			if end := file.DataOffset + int64(ti.Offset) + ti.Bytes; end > file.Size {
				t.Fatalf("tensor %s ends at %d of %d", ti.Name, end, file.Size)
			}
			next += (uint64(ti.Bytes) + file.Alignment - 1) &^ (file.Alignment - 1)
			switch ti.Type {
			case gguf.F32, gguf.F16, gguf.BF16, gguf.Q8_0:
				if _, err := file.ReadTensor(bytes.NewReader(data), ti.Name); err != nil {
					t.Fatalf("tensor %s: %v", ti.Name, err)
				}
			}
		}
	})
}
