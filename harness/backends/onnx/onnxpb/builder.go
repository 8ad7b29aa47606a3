package onnxpb

import (
	"fmt"
	"strings"
)

// Builder emits nodes into a graph with generated, unique names, so graph
// code reads as a sequence of operations: y := b.Op("MatMul", x, w).
// Scopes and subgraphs made from a builder share its name counter, and all
// initializers (weights and constants) live in the outermost graph, where
// every subgraph can see them.
type Builder struct {
	g      *Graph
	root   *root
	prefix string
}

type root struct {
	g      *Graph
	next   int
	consts map[string]string
	names  map[string]bool
}

// NewBuilder starts a graph.
func NewBuilder(name string) *Builder {
	g := &Graph{Name: name}
	return &Builder{g: g, root: &root{g: g, consts: map[string]string{}, names: map[string]bool{}}}
}

// Graph is the graph built so far.
func (b *Builder) Graph() *Graph { return b.g }

// Scope returns a builder that emits into the same graph and names its
// nodes under prefix ("/model/layers.0/attn/MatMul_12"), as exporters do.
func (b *Builder) Scope(name string) *Builder {
	return &Builder{g: b.g, root: b.root, prefix: b.prefix + "/" + name}
}

// Subgraph starts a graph for a control-flow attribute (If's branches).
// It shares names and initializers with the outer graph.
func (b *Builder) Subgraph(name string) *Builder {
	return &Builder{g: &Graph{Name: name}, root: b.root, prefix: b.prefix + "/" + name}
}

// Input declares a graph input and returns its name.
func (b *Builder) Input(name string, t DataType, shape ...Dim) string {
	b.claim(name)
	b.g.Inputs = append(b.g.Inputs, &ValueInfo{Name: name, ElemType: t, Shape: shape})
	return name
}

// Output declares value as a graph output called name (through an
// Identity when the names differ).
func (b *Builder) Output(value, name string, t DataType, shape ...Dim) {
	if value != name {
		b.claim(name)
		b.g.Nodes = append(b.g.Nodes, &Node{Name: b.prefix + "/" + name + "/Identity", OpType: "Identity", Inputs: []string{value}, Outputs: []string{name}})
	}
	b.g.Outputs = append(b.g.Outputs, &ValueInfo{Name: name, ElemType: t, Shape: shape})
}

// OutputNamed declares value as a graph output called name by naming the
// node that computes it so, as exporters write their outputs; a value no
// node of this graph computes, or one already an output, goes through an
// Identity (Output).
func (b *Builder) OutputNamed(value, name string, t DataType, shape ...Dim) {
	var producer *Node
	for _, n := range b.g.Nodes {
		for _, o := range n.Outputs {
			if o == value {
				producer = n
			}
		}
	}
	for _, o := range b.g.Outputs {
		if o.Name == value {
			producer = nil
		}
	}
	if producer == nil || value == name {
		b.Output(value, name, t, shape...)
		return
	}
	b.claim(name)
	for _, n := range b.g.Nodes {
		for i, v := range n.Outputs {
			if v == value {
				n.Outputs[i] = name
			}
		}
		for i, v := range n.Inputs {
			if v == value {
				n.Inputs[i] = name
			}
		}
	}
	b.g.Outputs = append(b.g.Outputs, &ValueInfo{Name: name, ElemType: t, Shape: shape})
}

// Weight adds a named initializer to the outermost graph.
func (b *Builder) Weight(t *Tensor) string {
	b.claim(t.Name)
	b.root.g.Initializers = append(b.root.g.Initializers, t)
	return t.Name
}

// Const adds a constant initializer with a generated name; equal constants
// share one initializer.
func (b *Builder) Const(t *Tensor) string {
	key := fmt.Sprintf("%d|%v|%x", t.DataType, t.Dims, t.Raw)
	if name, ok := b.root.consts[key]; ok {
		return name
	}
	b.root.next++
	c := *t
	c.Name = fmt.Sprintf("const_%d", b.root.next)
	b.claim(c.Name)
	b.root.g.Initializers = append(b.root.g.Initializers, &c)
	b.root.consts[key] = c.Name
	return c.Name
}

// Ints is a 1-D int64 constant (shapes, axes, slice bounds).
func (b *Builder) Ints(v ...int64) string {
	return b.Const(Int64Tensor("", []int64{int64(len(v))}, v))
}

// Int is a scalar int64 constant.
func (b *Builder) Int(v int64) string { return b.Const(Int64Tensor("", nil, []int64{v})) }

// Float is a scalar float32 constant.
func (b *Builder) Float(v float32) string { return b.Const(FloatTensor("", nil, []float32{v})) }

// Op emits a node with one output and returns the output's name.
func (b *Builder) Op(op string, in ...string) string { return b.OpAttr(op, nil, in...) }

// OpAttr is Op with attributes.
func (b *Builder) OpAttr(op string, attrs []Attribute, in ...string) string {
	return b.OpOuts(op, 1, attrs, in...)[0]
}

// OpOuts emits a node with n outputs.
func (b *Builder) OpOuts(op string, n int, attrs []Attribute, in ...string) []string {
	b.root.next++
	name := fmt.Sprintf("%s/%s_%d", b.prefix, op, b.root.next)
	outs := make([]string, n)
	for i := range outs {
		outs[i] = fmt.Sprintf("%s_output_%d", name, i)
		b.claim(outs[i])
	}
	b.g.Nodes = append(b.g.Nodes, &Node{Name: name, OpType: op, Inputs: in, Outputs: outs, Attrs: attrs})
	return outs
}

// claim guards the rule that a value name is defined once across a model
// and its subgraphs; a clash is a bug in the graph code, not user input.
func (b *Builder) claim(name string) {
	if name == "" || strings.TrimSpace(name) != name {
		panic(fmt.Sprintf("onnxpb: invalid value name %q", name))
	}
	if b.root.names[name] {
		panic(fmt.Sprintf("onnxpb: value %q defined twice", name))
	}
	b.root.names[name] = true
}

// OpDomain is OpAttr for an operator outside the default domain (such as
// com.microsoft's contrib operators); the model must declare the domain's
// opset.
func (b *Builder) OpDomain(domain, op string, attrs []Attribute, in ...string) string {
	return b.OpDomainOuts(domain, op, 1, attrs, in...)[0]
}

// OpDomainOuts is OpDomain with n outputs.
func (b *Builder) OpDomainOuts(domain, op string, n int, attrs []Attribute, in ...string) []string {
	outs := b.OpOuts(op, n, attrs, in...)
	b.g.Nodes[len(b.g.Nodes)-1].Domain = domain
	return outs
}
