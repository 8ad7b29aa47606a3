package onnxpb

import (
	"fmt"
	"os"
	"sort"
)

// ExternalAlign is the offset alignment of external tensors: a page, so
// ONNX Runtime can map them instead of copying (onnx.proto asks for it).
const ExternalAlign = 4096

// SplitExternal moves the data of every initializer of at least minBytes
// (in the graph and its subgraphs) into one blob meant for a file called
// location beside the model file, and returns the blob. Smaller tensors
// stay inline, as onnx's own external-data saver leaves them.
func (m *Model) SplitExternal(location string, minBytes int) []byte {
	var blob []byte
	for _, g := range m.Graphs() {
		for _, t := range g.Initializers {
			if t.External != nil || len(t.Raw) < minBytes {
				continue
			}
			if pad := len(blob) % ExternalAlign; pad != 0 {
				blob = append(blob, make([]byte, ExternalAlign-pad)...)
			}
			t.External = &External{Location: location, Offset: int64(len(blob)), Length: int64(len(t.Raw))}
			blob = append(blob, t.Raw...)
			t.Raw = nil
		}
	}
	return blob
}

// ExternalLocations lists, sorted and once each, the data files the
// initializers of the graph and its subgraphs keep their data in: the
// locations as the model file writes them, relative to its folder.
func (m *Model) ExternalLocations() []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range m.Graphs() {
		for _, t := range g.Initializers {
			if t.External != nil && t.External.Location != "" && !seen[t.External.Location] {
				seen[t.External.Location] = true
				out = append(out, t.External.Location)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ExternalFiles reads the ONNX file at path without its tensor data and
// returns its ExternalLocations.
func ExternalFiles(path string) ([]string, error) {
	m, err := ReadFile(path, ReadOptions{SkipData: true})
	if err != nil {
		return nil, err
	}
	return m.ExternalLocations(), nil
}

// ReadFile reads the ONNX file at path; a file that does not parse is
// named in the error.
func ReadFile(path string, opts ReadOptions) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	m, err := Read(f, st.Size(), opts)
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable ONNX model: %w", path, err)
	}
	return m, nil
}
