package onnx

import (
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/ckpt"
	"github.com/feather-eval/feather/harness/backends/onnx/layout"
	pb "github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// Element types a checkpoint's weights may be computed in (Options.DType).
const (
	DTypeFloat32 = "float32"
	DTypeFloat16 = "float16"
	// DTypeInt8 stores the layers' linear weights as int8 and multiplies
	// them as the 8-bit exports do (ckpt.Options.Int8).
	DTypeInt8 = "int8"
)

// loadCheckpoint builds the graph of dir when it is a Hugging Face
// checkpoint with no ONNX file of the variant asked for; noFile is
// locateONNX's error, returned when dir is no checkpoint either.
func loadCheckpoint(dir string, opt Options, noFile error) (*ckpt.Graph, error) {
	switch ckpt.Detect(dir) {
	case ckpt.None:
		return nil, noFile
	case ckpt.Pickle:
		return nil, ckpt.PickleError(dir)
	}
	switch {
	case opt.Variant == "" || opt.Variant == layout.FP32:
	case len(listONNX(dir)) > 0:
		return nil, noFile // a variant names an ONNX file; the error lists those there are
	default:
		return nil, fmt.Errorf("model folder %s is a Hugging Face checkpoint, which has no variant %q (variants are ONNX files); remove \"variant\": a checkpoint runs in float32, in float16 with \"dtype\": \"float16\", or with 8-bit weights with \"dtype\": \"int8\"", dir, opt.Variant)
	}
	if opt.DType != "" && opt.DType != DTypeFloat32 && opt.DType != DTypeFloat16 && opt.DType != DTypeInt8 {
		return nil, fmt.Errorf("model folder %s: dtype %q is not %s, %s or %s", dir, opt.DType, DTypeFloat32, DTypeFloat16, DTypeInt8)
	}
	g, err := ckpt.Load(dir, ckpt.Options{Half: opt.DType == DTypeFloat16, Int8: opt.DType == DTypeInt8})
	if err != nil {
		return nil, fmt.Errorf("model folder %s (a Hugging Face checkpoint): %w", dir, err)
	}
	return g, nil
}

// graphOf is what Open reads of its model: the ONNX file's graph (read
// without its weights) and the bytes of weights it refers to, or the
// graph built from a checkpoint.
func graphOf(file string, built *ckpt.Graph) (*graphSummary, *pb.Model, int64, error) {
	if built != nil {
		return summarize(built.Model), built.Model, built.WeightBytes, nil
	}
	summary, parsed, err := readGraphSummary(file)
	if err != nil {
		return nil, nil, 0, err
	}
	weights, err := fileBytes(file, summary)
	return summary, parsed, weights, err
}

// params is the model's parameter count: a checkpoint's exactly, as its
// weights hold them, else counted from the file's initializers.
func params(summary *graphSummary, built *ckpt.Graph) int64 {
	if built != nil {
		return built.Params
	}
	return summary.paramCount()
}
