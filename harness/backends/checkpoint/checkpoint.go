// Package checkpoint holds a Hugging Face checkpoint in memory: config.json
// as decoded and every weight by its Hugging Face name, in PyTorch's
// layout (row-major; a Linear weight is [out, in], GPT-2's Conv1D weight
// [in, out], GPT-NeoX's fused query_key_value interleaved per head). It
// draws random checkpoints for the decoder families the harness
// cross-checks (Random) and takes the weights of the ONNX test models
// (FromDecoder), so one set of weights can be written in several formats
// and every engine's log-probabilities compared.
package checkpoint

import (
	"fmt"
	"slices"
	"strings"
)

// The families Random draws and Hparams reads, by config.json's
// model_type.
const (
	Llama   = "llama"
	Qwen2   = "qwen2"
	Qwen3   = "qwen3"
	GPT2    = "gpt2"
	GPTNeoX = "gpt_neox"
)

// Archs lists the families, in the order errors name them.
var Archs = []string{Llama, Qwen2, Qwen3, GPT2, GPTNeoX}

// Gemma3 is Gemma 3's text model, which Hparams reads (for the GGUF
// converter) but Random does not draw: its checkpoints come from the
// decoder's weights through FromWeights.
const Gemma3 = "gemma3_text"

// Converted lists the families Hparams reads.
var Converted = append(slices.Clone(Archs), Gemma3)

// Tensor is one weight: row-major float32 values of the given shape.
type Tensor struct {
	Name  string
	Shape []int
	// DType is the type the weight was stored in ("F32", "F16", "BF16");
	// Data holds it widened to float32.
	DType string
	Data  []float32
}

// NewTensor is a float32 tensor holding data, which must have the
// shape's element count.
func NewTensor(name string, shape []int, data []float32) (*Tensor, error) {
	if n := elements(shape); n != len(data) {
		return nil, fmt.Errorf("tensor %s: shape %v holds %d values, got %d", name, shape, n, len(data))
	}
	return &Tensor{Name: name, Shape: slices.Clone(shape), DType: "F32", Data: data}, nil
}

func elements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Checkpoint is a model's config.json and weights.
type Checkpoint struct {
	// Config is config.json as decoded (numbers may be int or float64).
	Config map[string]any
	// Tensors are the weights by Hugging Face name.
	Tensors map[string]*Tensor
}

// Names lists the tensor names, sorted.
func (c *Checkpoint) Names() []string {
	names := make([]string, 0, len(c.Tensors))
	for n := range c.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Add stores t under its name.
func (c *Checkpoint) Add(t *Tensor) { c.Tensors[t.Name] = t }

// ModelType is config.json's model_type.
func (c *Checkpoint) ModelType() (string, error) {
	s, ok := c.Config["model_type"].(string)
	if !ok || s == "" {
		return "", fmt.Errorf("config.json: model_type: want one of %s, got %v", strings.Join(Converted, ", "), c.Config["model_type"])
	}
	return s, nil
}

// transposed is t's [rows, cols] matrix as [cols, rows].
func transposed(data []float32, rows, cols int) []float32 {
	out := make([]float32, len(data))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*rows+r] = data[r*cols+c]
		}
	}
	return out
}
