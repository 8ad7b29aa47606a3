package testmodel

import (
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// export says how one ONNX file is written: decoder's export, and for the
// 8-bit variants the weight-only quantization.
type export struct {
	decoder.Export
	quant string // "int8" or "uint8": weight-only quantized MatMul weights
}

// exportFor maps the config and a variant name to an export.
func exportFor(c Config, variant string) export {
	e := export{Export: decoder.Export{Half: c.FP16, Past: !c.NoPast, Merged: c.merged(), PositionIDs: c.PositionIDs, LogitsToKeep: c.LogitsToKeep}}
	switch variant {
	case "fp16":
		e.Half = true
	case "int8":
		e.Half, e.quant = false, "int8"
	case "uint8", "quantized":
		e.Half, e.quant = false, "uint8"
	}
	return e
}

// onnxModel builds the graph of one file.
func (m *Model) onnxModel(e export) *pb.Model {
	de := e.Export
	if e.quant != "" {
		de.Emit = func(b *pb.Builder, name string, t *seeded.Tensor, dims []int64) (string, bool) {
			if !quantizable(name, t) {
				return "", false
			}
			// DequantizeLinear per output column.
			q := quantize(t, e.quant)
			return b.OpAttr("DequantizeLinear", []pb.Attribute{pb.AttrInt("axis", 1)},
				b.Weight(q.tensor(name+"_quantized", dims)),
				b.Weight(pb.FloatTensor(name+"_scale", []int64{dims[1]}, q.scale)),
				b.Weight(q.zeroPoint(name+"_zero_point"))), true
		}
	}
	return decoder.Graph(m.Config.arch(), m.Config.decoder(), m.w, de)
}
