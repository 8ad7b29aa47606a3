package onnxpb_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

func TestExternalLocations(t *testing.T) {
	// sub is a graph held by a node's GRAPHS attribute, whose initializer
	// is external too.
	withSub := func(loc string) *onnxpb.Model {
		m := tinyModel()
		sub := &onnxpb.Graph{Name: "sub", Initializers: []*onnxpb.Tensor{onnxpb.FloatTensor("s", []int64{8}, make([]float32, 8))}}
		m.Graph.Nodes = append(m.Graph.Nodes, &onnxpb.Node{OpType: "Custom", Outputs: []string{"o"},
			Attrs: []onnxpb.Attribute{{Name: "gs", Type: onnxpb.AttrGraphsType, Graphs: []*onnxpb.Graph{sub}}}})
		sub.Initializers[0].External = &onnxpb.External{Location: loc, Length: 32}
		sub.Initializers[0].Raw = nil
		return m
	}
	tests := []struct {
		name  string
		model func() *onnxpb.Model
		want  []string
	}{
		{"inline", tinyModel, nil},
		{"one file", func() *onnxpb.Model {
			m := tinyModel()
			m.SplitExternal("model.onnx_data", 16)
			return m
		}, []string{"model.onnx_data"}},
		{"subgraph's file, sorted, once each", func() *onnxpb.Model {
			m := withSub("b.data")
			m.SplitExternal("a.data", 16)
			return m
		}, []string{"a.data", "b.data"}},
		{"same file twice", func() *onnxpb.Model {
			m := withSub("model.onnx_data")
			m.SplitExternal("model.onnx_data", 16)
			return m
		}, []string{"model.onnx_data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.model()
			assert.Equal(t, tt.want, m.ExternalLocations())
			data, err := m.Marshal()
			require.NoError(t, err)
			p := filepath.Join(t.TempDir(), "model.onnx")
			require.NoError(t, os.WriteFile(p, data, 0o644))
			got, err := onnxpb.ExternalFiles(p)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "read back from the file")
		})
	}
}

func TestExternalFilesErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := onnxpb.ExternalFiles(filepath.Join(dir, "missing.onnx"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	p := filepath.Join(dir, "text.onnx")
	require.NoError(t, os.WriteFile(p, []byte("not a model"), 0o644))
	_, err = onnxpb.ExternalFiles(p)
	assert.ErrorContains(t, err, "text.onnx is not a readable ONNX model")
}

// Graphs lists the main graph, then subgraphs depth first in node order,
// from both GRAPH and GRAPHS attributes: SplitExternal's offsets follow it.
func TestGraphsOrder(t *testing.T) {
	a, b, c := &onnxpb.Graph{Name: "a"}, &onnxpb.Graph{Name: "b"}, &onnxpb.Graph{Name: "c"}
	a.Nodes = []*onnxpb.Node{{OpType: "If", Attrs: []onnxpb.Attribute{{Name: "then_branch", Type: onnxpb.AttrGraphType, G: c}}}}
	m := &onnxpb.Model{Graph: &onnxpb.Graph{Name: "main", Nodes: []*onnxpb.Node{{OpType: "Custom", Attrs: []onnxpb.Attribute{
		{Name: "g", Type: onnxpb.AttrGraphType, G: a},
		{Name: "gs", Type: onnxpb.AttrGraphsType, Graphs: []*onnxpb.Graph{b}},
	}}}}}
	assert.Equal(t, []*onnxpb.Graph{m.Graph, a, c, b}, m.Graphs())
	assert.Empty(t, (&onnxpb.Model{}).Graphs())
}
