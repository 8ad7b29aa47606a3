package onnxpb

// ExternalAlign is the offset alignment of external tensors: a page, so
// ONNX Runtime can map them instead of copying (onnx.proto asks for it).
const ExternalAlign = 4096

// SplitExternal moves the data of every initializer of at least minBytes
// (in the graph and its subgraphs) into one blob meant for a file called
// location beside the model file, and returns the blob. Smaller tensors
// stay inline, as onnx's own external-data saver leaves them.
func (m *Model) SplitExternal(location string, minBytes int) []byte {
	var blob []byte
	var walk func(g *Graph)
	walk = func(g *Graph) {
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
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				if a.G != nil {
					walk(a.G)
				}
				for _, sub := range a.Graphs {
					walk(sub)
				}
			}
		}
	}
	walk(m.Graph)
	return blob
}
