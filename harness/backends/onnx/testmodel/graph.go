package testmodel

import (
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// export says how one ONNX file is written: decoder's export, and for the
// quantized variants how their MatMul weights are stored.
type export struct {
	decoder.Export
	quant string // "int8" or "uint8": 8-bit weights, activations quantized per call (quantize_dynamic)
	qdq   bool   // the 8-bit weights as DequantizeLinear instead, activations float
	// q4: MatMulNBits with 4-bit weights in blocks, float activations;
	// with Half (q4f16), in a float16 file and with MatMulNBits' T float16
	// (scales, activations).
	q4   bool
	bnb4 bool // MatMulBnb4: NF4 weights in blocks, float activations
}

// q4f16 says the 4-bit weights sit in a float16 file (MatMulNBits
// computing in float16).
func (e export) q4f16() bool { return e.q4 && e.Half }

// exportFor maps the config and a variant name to an export.
func exportFor(c Config, variant string) export {
	e := export{Export: decoder.Export{Half: c.FP16, Past: !c.NoPast, Merged: c.merged(), PositionIDs: c.PositionIDs, GQA: c.GroupQueryAttention, LogitsToKeep: c.LogitsToKeep}}
	switch variant {
	case "fp16":
		e.Half = true
	case "int8":
		e.Half, e.quant, e.qdq = false, "int8", c.QDQ
	case "uint8", "quantized":
		e.Half, e.quant, e.qdq = false, "uint8", c.QDQ
	case "q4":
		e.Half, e.q4 = false, true
	case "q4f16":
		e.Half, e.q4 = true, true
	case "bnb4":
		e.Half, e.bnb4 = false, true
	}
	return e
}

// onnxModel builds the graph of one file.
func (m *Model) onnxModel(e export) *pb.Model {
	de := e.Export
	switch {
	case e.qdq:
		de.Emit = func(b *pb.Builder, name string, t *seeded.Tensor, dims []int64) (string, bool) {
			if !quantizable(name, t) {
				return "", false
			}
			// DequantizeLinear per output column.
			q := quantize(t, e.quant)
			return b.OpAttr("DequantizeLinear", []pb.Attribute{pb.AttrInt("axis", 1)}, q.initializers(b, name)...), true
		}
	case e.quant != "" || e.q4 || e.bnb4:
		// A merged decoder's two branches share each weight's initializers.
		memo := map[string]func(b *pb.Builder, x string) string{}
		de.Linear = func(b *pb.Builder, x, name string, t *seeded.Tensor) (string, bool) {
			if !quantizable(name, t) {
				return "", false
			}
			emit, ok := memo[name]
			if !ok {
				emit = quantLinear(b, e, name, t)
				memo[name] = emit
			}
			return emit(b, x), true
		}
	}
	return decoder.Graph(m.Config.arch(), m.Config.decoder(), m.w, de)
}

// quantLinear writes a weight's initializers once and returns what
// computes x·W from them.
func quantLinear(root *pb.Builder, e export, name string, t *seeded.Tensor) func(b *pb.Builder, x string) string {
	switch {
	case e.q4:
		q := quantizeQ4(t, e.q4f16())
		w := q.initializers(root, name)
		return func(b *pb.Builder, x string) string { return q.matMulNBits(b, x, w) }
	case e.bnb4:
		q := quantizeBnb4(t)
		w := q.initializers(root, name)
		return func(b *pb.Builder, x string) string { return q.matMulBnb4(b, x, w) }
	}
	q := quantize(t, e.quant)
	w := q.initializers(root, name)
	return func(b *pb.Builder, x string) string { return q.matMulInteger(b, x, w) }
}
