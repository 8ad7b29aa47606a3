package decoder

import (
	"fmt"
	"math"
	"strings"
)

// Activations are the MLP activations the decoder builds, by the names
// transformers' ACT2FN gives them: gelu is exact (erf); gelu_new,
// gelu_pytorch_tanh and gelu_fast are the tanh approximation; silu and
// swish are x·sigmoid(x).
var Activations = []string{"gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "quick_gelu", "relu", "silu", "swish"}

// defaultActs are each family's activation when config.json names none,
// as transformers' config classes default it.
var defaultActs = map[string]string{
	"llama": "silu", "qwen2": "silu", "qwen3": "silu",
	"gpt2": "gelu_new", "gpt_neox": "gelu", "gemma3_text": "gelu_pytorch_tanh",
}

// act is the MLP activation of a model of family a.
func (c Config) act(a Arch) string {
	if c.HiddenAct != "" {
		return c.HiddenAct
	}
	return defaultActs[a.ModelType()]
}

// activate applies the activation called name to x.
func activate(p *Pass, x, name string) string {
	f := func(v float64) string { return p.B.Float(float32(v)) }
	switch name {
	case "silu", "swish":
		return p.Op("Mul", x, p.Op("Sigmoid", x))
	case "gelu":
		// 0.5·x·(1 + erf(x/√2))
		erf := p.Op("Erf", p.Op("Mul", x, f(1/math.Sqrt2)))
		return p.Op("Mul", p.Op("Mul", x, f(0.5)), p.Op("Add", erf, f(1)))
	case "gelu_new", "gelu_pytorch_tanh", "gelu_fast":
		// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
		cube := p.Op("Mul", p.Op("Pow", x, f(3)), f(0.044715))
		th := p.Op("Tanh", p.Op("Mul", p.Op("Add", x, cube), f(math.Sqrt(2/math.Pi))))
		return p.Op("Mul", p.Op("Mul", x, f(0.5)), p.Op("Add", th, f(1)))
	case "quick_gelu":
		return p.Op("Mul", x, p.Op("Sigmoid", p.Op("Mul", x, f(1.702))))
	case "relu":
		return p.Op("Relu", x)
	}
	// FromConfig refuses any other name; a Config written by hand with
	// one is a bug in the calling code.
	panic(fmt.Sprintf("decoder: no activation %q; known: %s", name, strings.Join(Activations, ", ")))
}
