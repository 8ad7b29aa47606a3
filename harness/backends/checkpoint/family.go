package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// family is a decoder family's parameters and config.json. Parameters are
// declared as the ONNX decoder declares them, in MatMul layout ([in, out]
// for every matrix the forward pass multiplies by), so a name and seed
// draw the same values here and in an ONNX test model.
type family interface {
	// params declares every parameter but an untied LM head.
	params(s Shape, add func(name string, init seeded.Init, shape ...int))
	// head is the untied LM head's name.
	head() string
	// linear reports whether a matrix is a torch Linear weight, which
	// Hugging Face stores [out, in].
	linear(name string) bool
	// config adds the family's config.json fields.
	config(s Shape, cfg map[string]any)
}

var familyOf = map[string]family{Llama: llama{}, Qwen2: qwen{bias: true}, Qwen3: qwen{qkNorm: true}, GPT2: gpt2{}, GPTNeoX: gptNeoX{}}

// Random draws a checkpoint of arch (llama, qwen2, qwen3, gpt2, gpt_neox)
// with shape s (zero fields take Shape's defaults). Each tensor comes from
// its own stream of seed (seeded.Stream), so a name and seed give the same
// values whatever else the model holds; a llama's weights are exactly
// those of the ONNX decoder's Llama with the same shape and seed, a gpt2's
// those of the ONNX test models' GPT-2.
func Random(arch string, s Shape, seed uint64) (*Checkpoint, error) {
	s = s.Defaults(arch)
	if err := s.Validate(arch); err != nil {
		return nil, err
	}
	f := familyOf[arch]
	w := map[string]*seeded.Tensor{}
	declare(f, s, func(name string, init seeded.Init, shape ...int) {
		w[name] = seeded.NewTensor(seed, name, init, shape...)
	})
	return build(arch, f, s, w), nil
}

// FromDecoder turns weights in the ONNX decoder's MatMul layout, as
// decoder.Weights draws them for c (or testmodel's Model.Weights holds
// them), into a checkpoint of arch in Hugging Face's layout, with
// config.json for c. Every parameter arch declares must be there with its
// shape, and nothing else. A gpt2's config says hidden activation "gelu":
// the ONNX test models' GPT-2 computes GELU with erf, as that name means
// in transformers.
func FromDecoder(arch string, c decoder.Config, w map[string]*seeded.Tensor) (*Checkpoint, error) {
	s := shapeOf(c)
	if arch == GPT2 {
		s.HiddenAct = "gelu"
	}
	s = s.Defaults(arch)
	if err := s.Validate(arch); err != nil {
		return nil, err
	}
	f := familyOf[arch]
	want := map[string][]int{}
	declare(f, s, func(name string, _ seeded.Init, shape ...int) { want[name] = shape })
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
	return build(arch, f, s, w), nil
}

// declare lists every parameter, an untied head included.
func declare(f family, s Shape, add func(name string, init seeded.Init, shape ...int)) {
	f.params(s, add)
	if !s.TiedEmbeddings {
		add(f.head(), seeded.Linear, s.Hidden, s.Vocab)
	}
}

// build lays the weights out as Hugging Face stores them and writes
// config.json.
func build(arch string, f family, s Shape, w map[string]*seeded.Tensor) *Checkpoint {
	c := &Checkpoint{Config: map[string]any{
		"vocab_size":          s.Vocab,
		"tie_word_embeddings": s.TiedEmbeddings,
		"torch_dtype":         "float32",
		"initializer_range":   0.02,
	}, Tensors: map[string]*Tensor{}}
	f.config(s, c.Config)
	for name, t := range w {
		shape, data := slices.Clone(t.Shape), slices.Clone(t.Data)
		if len(shape) == 2 && f.linear(name) {
			data = transposed(data, shape[0], shape[1])
			shape[0], shape[1] = shape[1], shape[0]
		}
		c.Tensors[name] = &Tensor{Name: name, Shape: shape, DType: "F32", Data: data}
	}
	return c
}

// llama is the ONNX decoder's Llama: its parameters and config.json.
type llama struct{}

func (llama) params(s Shape, add func(string, seeded.Init, ...int)) {
	decoder.Llama.Params(s.decoder(0), add)
}
func (llama) head() string { return "lm_head.weight" }
func (llama) linear(name string) bool {
	return strings.HasSuffix(name, "_proj.weight") || name == "lm_head.weight"
}
func (llama) config(s Shape, cfg map[string]any) {
	decoder.Llama.ConfigFields(s.decoder(0), cfg)
	cfg["hidden_act"] = s.HiddenAct
}

// qwen is Qwen2 (q/k/v biases) or Qwen3 (RMSNorm on each query and key
// head): a Llama with those parameters added.
type qwen struct{ bias, qkNorm bool }

func (q qwen) params(s Shape, add func(string, seeded.Init, ...int)) {
	llama{}.params(s, add)
	for i := 0; i < s.Layers; i++ {
		if q.bias {
			add(decoder.LayerName(i, "self_attn.q_proj.bias"), seeded.Bias, s.Heads*s.HeadDim)
			add(decoder.LayerName(i, "self_attn.k_proj.bias"), seeded.Bias, s.KVHeads*s.HeadDim)
			add(decoder.LayerName(i, "self_attn.v_proj.bias"), seeded.Bias, s.KVHeads*s.HeadDim)
		}
		if q.qkNorm {
			add(decoder.LayerName(i, "self_attn.q_norm.weight"), seeded.Norm, s.HeadDim)
			add(decoder.LayerName(i, "self_attn.k_norm.weight"), seeded.Norm, s.HeadDim)
		}
	}
}
func (qwen) head() string            { return "lm_head.weight" }
func (qwen) linear(name string) bool { return llama{}.linear(name) }

func (q qwen) config(s Shape, cfg map[string]any) {
	llama{}.config(s, cfg)
	delete(cfg, "mlp_bias")
	if q.bias {
		cfg["architectures"] = []string{"Qwen2ForCausalLM"}
		cfg["model_type"] = Qwen2
		delete(cfg, "head_dim") // Qwen2's config has none: heads × head size is the hidden size
		delete(cfg, "attention_bias")
	} else {
		cfg["architectures"] = []string{"Qwen3ForCausalLM"}
		cfg["model_type"] = Qwen3
	}
	cfg["use_sliding_window"] = false
	cfg["sliding_window"] = nil
	cfg["max_window_layers"] = s.Layers
}
