package onnxpb_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// TestOutputNamed: a computed value becomes the output by its node's
// name, as exporters write a cache output straight from its Concat, and
// every reader follows; an input, or a value already an output, goes
// through an Identity.
func TestOutputNamed(t *testing.T) {
	b := onnxpb.NewBuilder("g")
	x := b.Input("x", onnxpb.Float, onnxpb.D(2))
	cat := b.OpAttr("Concat", []onnxpb.Attribute{onnxpb.AttrInt("axis", 0)}, x, x)
	use := b.Op("Neg", cat)
	b.OutputNamed(cat, "present", onnxpb.Float)
	b.OutputNamed(use, "out", onnxpb.Float)
	b.OutputNamed("out", "again", onnxpb.Float)
	b.OutputNamed(x, "copy", onnxpb.Float)

	type node struct{ op, in, out string }
	var got []node
	for _, n := range b.Graph().Nodes {
		got = append(got, node{n.OpType, n.Inputs[0], n.Outputs[0]})
	}
	assert.Equal(t, []node{
		{"Concat", "x", "present"},
		{"Neg", "present", "out"},
		{"Identity", "out", "again"},
		{"Identity", "x", "copy"},
	}, got)
	var outs []string
	for _, o := range b.Graph().Outputs {
		outs = append(outs, o.Name)
	}
	assert.Equal(t, []string{"present", "out", "again", "copy"}, outs)
}
