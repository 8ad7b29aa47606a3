package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// torchDTypes maps a safetensors dtype to config.json's torch_dtype.
var torchDTypes = map[string]string{"F32": "float32", "F16": "float16", "BF16": "bfloat16"}

// SaveOptions say how Save writes the weights.
type SaveOptions struct {
	// DType is F32 (the default), F16 or BF16: every weight is stored
	// so, rounded to nearest even, and config.json's torch_dtype says it.
	DType string
	// MaxShardBytes cuts the weights into shards with an index, as
	// save_pretrained's max_shard_size does; 0 writes one file.
	MaxShardBytes int64
}

// Save writes config.json and the weights into dir as transformers'
// save_pretrained writes them: Hugging Face's names and layout, every
// weight in one dtype, __metadata__ {"format": "pt"}, and shards with
// model.safetensors.index.json when asked. Tensors are taken in name
// order, so shards may group them otherwise than a model's own module
// order would. It returns the weight files written, the index last.
func (c *Checkpoint) Save(dir string, opt SaveOptions) ([]string, error) {
	dtype := opt.DType
	if dtype == "" {
		dtype = "F32"
	}
	torch, ok := torchDTypes[dtype]
	if !ok {
		return nil, fmt.Errorf("checkpoint: dtype %q is not F32, F16 or BF16", dtype)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cfg := map[string]any{}
	for k, v := range c.Config {
		cfg[k] = v
	}
	cfg["torch_dtype"] = torch
	data, err := corpustok.JSON(cfg)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: encoding config.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		return nil, err
	}
	var ts []safetensors.WriteTensor
	for _, name := range c.Names() {
		t := c.Tensors[name]
		shape := make([]int64, len(t.Shape))
		for i, d := range t.Shape {
			shape[i] = int64(d)
		}
		ts = append(ts, safetensors.WriteTensor{Name: name, DType: safetensors.DType(dtype), Shape: shape, Data: t.Data})
	}
	return safetensors.WriteDir(dir, ts, opt.MaxShardBytes)
}

// Rounded is c with every weight rounded to dtype (F32, F16 or BF16) and
// widened back: the values a checkpoint saved in that dtype holds, which
// another format must carry to compute the same.
func (c *Checkpoint) Rounded(dtype string) (*Checkpoint, error) {
	if _, ok := torchDTypes[dtype]; !ok {
		return nil, fmt.Errorf("checkpoint: dtype %q is not F32, F16 or BF16", dtype)
	}
	out := &Checkpoint{Config: map[string]any{}, Tensors: map[string]*Tensor{}}
	for k, v := range c.Config {
		out.Config[k] = v
	}
	out.Config["torch_dtype"] = torchDTypes[dtype]
	for name, t := range c.Tensors {
		data := make([]float32, len(t.Data))
		for i, v := range t.Data {
			data[i] = safetensors.Round(safetensors.DType(dtype), v)
		}
		out.Tensors[name] = &Tensor{Name: name, Shape: slices.Clone(t.Shape), DType: dtype, Data: data}
	}
	return out, nil
}

// DecoderWeights turns c back into the ONNX decoder's MatMul layout, the
// inverse of FromDecoder: what decoder.Graph takes to build the ONNX
// model of the same weights.
func (c *Checkpoint) DecoderWeights() (map[string]*seeded.Tensor, error) {
	arch, err := c.ModelType()
	if err != nil {
		return nil, err
	}
	a, err := archOf(arch)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: model_type %q is not a family this package knows; known: %v", arch, Archs)
	}
	return c.WeightsIn(a), nil
}

// WeightsIn is c's weights in decoder family a's MatMul layout, the
// inverse of FromWeights, for any family the decoder builds.
func (c *Checkpoint) WeightsIn(a decoder.Arch) map[string]*seeded.Tensor {
	out := map[string]*seeded.Tensor{}
	for name, t := range c.Tensors {
		shape, data := relayout(a, name, t.Shape, t.Data)
		out[name] = &seeded.Tensor{Shape: shape, Data: data}
	}
	return out
}
