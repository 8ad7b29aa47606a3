//go:build !unix

package safetensors

import "os"

// mapFile reads path whole where mmap is not available.
func mapFile(path string, size int64) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}

// release does nothing: the bytes are the process's own.
func release([]byte) {}
