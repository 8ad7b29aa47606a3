package malformed_test

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/malformed"
)

// A sparse file reads as its data, then zeros up to its size, and ends
// there as a file does.
func TestSparseReadAt(t *testing.T) {
	s := malformed.Sparse{Data: []byte("ab"), Size: 5}
	tests := []struct {
		off  int64
		len  int
		want []byte
		err  error
	}{
		{0, 3, []byte("ab\x00"), nil},
		{1, 2, []byte("b\x00"), nil},
		{2, 3, []byte{0, 0, 0}, nil},
		{3, 4, []byte{0, 0}, io.EOF},
		{5, 1, []byte{}, io.EOF},
	}
	for _, tt := range tests {
		p := make([]byte, tt.len)
		for i := range p {
			p[i] = 0xff
		}
		n, err := s.ReadAt(p, tt.off)
		assert.Equal(t, tt.want, p[:n], "at %d", tt.off)
		assert.Equal(t, tt.err, err, "at %d", tt.off)
	}
}
