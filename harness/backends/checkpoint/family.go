package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// archOf is the ONNX decoder's family for arch, one of Archs: its
// parameters, which of them are torch Linear weights, and its config.json
// fields. Parameters are declared in the decoder's MatMul layout, so a
// name and seed draw the same values here and in an ONNX test model.
func archOf(arch string) (decoder.Arch, error) {
	if slices.Contains(Archs, arch) {
		for _, a := range decoder.Archs {
			if a.ModelType() == arch {
				return a, nil
			}
		}
	}
	return nil, fmt.Errorf("checkpoint: architecture %q is not one Random draws; use one of %s", arch, strings.Join(Archs, ", "))
}

// Random draws a checkpoint of arch (llama, qwen2, qwen3, gpt2, gpt_neox)
// with shape s (zero fields take Shape's defaults). Each tensor comes from
// its own stream of seed (seeded.Stream), so a name and seed give the same
// values whatever else the model holds: they are exactly the weights
// decoder.Weights draws for the same family, shape and seed.
func Random(arch string, s Shape, seed uint64) (*Checkpoint, error) {
	a, c, err := s.resolve(arch, seed)
	if err != nil {
		return nil, err
	}
	return build(a, c, decoder.Weights(a, c)), nil
}

// FromDecoder turns weights in the ONNX decoder's MatMul layout, as
// decoder.Weights draws them for c (or testmodel's Model.Weights holds
// them), into a checkpoint of arch in Hugging Face's layout, with
// config.json for c's shape and arch's defaults. Every parameter arch
// declares must be there with its shape, and nothing else. A gpt2's
// config says hidden activation "gelu": the ONNX test models' GPT-2
// computes GELU with erf, as that name means in transformers.
func FromDecoder(arch string, c decoder.Config, w map[string]*seeded.Tensor) (*Checkpoint, error) {
	s := shapeOf(c)
	if arch == GPT2 {
		s.HiddenAct = "gelu"
	}
	a, dc, err := s.resolve(arch, 0)
	if err != nil {
		return nil, err
	}
	want := map[string][]int{}
	declare(a, dc, func(name string, _ seeded.Init, shape ...int) { want[name] = shape })
	var problems []string
	for name, shape := range want {
		t, ok := w[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s is missing", name))
		case !slices.Equal(t.Shape, shape) || len(t.Data) != elements(shape):
			problems = append(problems, fmt.Sprintf("%s has shape %v (%d values), want %v", name, t.Shape, len(t.Data), shape))
		}
	}
	for name := range w {
		if _, ok := want[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s is not a %s parameter", name, arch))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("checkpoint: decoder weights for %s: %s", arch, strings.Join(problems, "; "))
	}
	return build(a, dc, w), nil
}

// declare lists every parameter, an untied head included, as
// decoder.Weights draws them.
func declare(a decoder.Arch, c decoder.Config, add func(name string, init seeded.Init, shape ...int)) {
	a.Params(c, add)
	if !c.TiedEmbeddings {
		add(a.HeadName(), seeded.Linear, c.Hidden, c.Vocab)
	}
}

// build lays the weights out as Hugging Face stores them and writes
// config.json: the family's fields and those every checkpoint has.
func build(a decoder.Arch, c decoder.Config, w map[string]*seeded.Tensor) *Checkpoint {
	config := map[string]any{
		"vocab_size":          c.Vocab,
		"tie_word_embeddings": c.TiedEmbeddings,
		"torch_dtype":         "float32",
		"initializer_range":   0.02,
	}
	a.ConfigFields(c, config)
	return FromWeights(a, config, w)
}

// FromWeights is a checkpoint of any family the decoder builds (those
// Random does not draw, such as gemma3_text, included) holding w, in the
// decoder's MatMul layout, laid out as Hugging Face stores it, with
// config as its config.json. Unlike FromDecoder it checks nothing: w is
// decoder.Weights' for a.
func FromWeights(a decoder.Arch, config map[string]any, w map[string]*seeded.Tensor) *Checkpoint {
	ck := &Checkpoint{Config: config, Tensors: map[string]*Tensor{}}
	for name, t := range w {
		shape, data := relayout(a, name, t.Shape, t.Data)
		ck.Tensors[name] = &Tensor{Name: name, Shape: shape, DType: "F32", Data: data}
	}
	return ck
}

// relayout is a copy of a weight in the other layout: a torch Linear
// weight (a.TorchLinear) transposed between the decoder's [in, out] and
// Hugging Face's [out, in], any other as it is. It is its own inverse.
func relayout(a decoder.Arch, name string, shape []int, data []float32) ([]int, []float32) {
	shape, data = slices.Clone(shape), slices.Clone(data)
	if len(shape) == 2 && a.TorchLinear(name) {
		data = transposed(data, shape[0], shape[1])
		shape[0], shape[1] = shape[1], shape[0]
	}
	return shape, data
}
