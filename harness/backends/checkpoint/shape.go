package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// Shape is a random model's size and options. Zero fields take the
// defaults in Defaults: a two-layer model small enough for tests.
type Shape struct {
	Vocab, Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate, MaxPositions int
	// TiedEmbeddings makes the LM head the token embedding.
	TiedEmbeddings bool
	RopeTheta      float64
	// NormEps is rms_norm_eps (llama, qwen) or the LayerNorm epsilon (gpt2,
	// gpt_neox).
	NormEps float64
	// RotaryPct is gpt_neox's share of each head that RoPE turns (Pythia's
	// 0.25 by default).
	RotaryPct float64
	// SequentialResidual turns off gpt_neox's parallel residual.
	SequentialResidual bool
	// HiddenAct overrides the family's activation (hidden_act, or gpt2's
	// activation_function): silu for llama and qwen, gelu_new for gpt2,
	// gelu for gpt_neox.
	HiddenAct string
}

// Defaults fills zero fields for arch.
func (s Shape) Defaults(arch string) Shape {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&s.Vocab, 512)
	def(&s.Hidden, 64)
	def(&s.Layers, 2)
	def(&s.Heads, 4)
	def(&s.KVHeads, s.Heads)
	if s.Heads > 0 {
		def(&s.HeadDim, s.Hidden/s.Heads)
	}
	act := "silu"
	switch arch {
	case GPT2:
		def(&s.Intermediate, 4*s.Hidden)
		def(&s.MaxPositions, 1024)
		act = "gelu_new"
	case GPTNeoX:
		def(&s.Intermediate, 4*s.Hidden)
		def(&s.MaxPositions, 2048)
		act = "gelu"
	default:
		def(&s.Intermediate, (8*s.Hidden/3+7)/8*8)
		def(&s.MaxPositions, 2048)
	}
	if s.HiddenAct == "" {
		s.HiddenAct = act
	}
	if s.RopeTheta == 0 {
		s.RopeTheta = 10000
	}
	if s.NormEps == 0 {
		s.NormEps = 1e-5
	}
	if s.RotaryPct == 0 {
		s.RotaryPct = 0.25
	}
	return s
}

// Validate reports the first field that makes no model of arch, naming
// the fix. It expects Defaults to have been applied.
func (s Shape) Validate(arch string) error {
	switch {
	case !slices.Contains(Archs, arch):
		return fmt.Errorf("checkpoint: architecture %q is not one Random draws; use one of %s", arch, strings.Join(Archs, ", "))
	case s.Vocab <= 0 || s.Hidden <= 0 || s.Layers <= 0 || s.Heads <= 0 || s.KVHeads <= 0 || s.HeadDim <= 0 || s.Intermediate <= 0 || s.MaxPositions <= 0:
		return fmt.Errorf("checkpoint: Vocab, Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate and MaxPositions must be positive (got %d, %d, %d, %d, %d, %d, %d, %d)",
			s.Vocab, s.Hidden, s.Layers, s.Heads, s.KVHeads, s.HeadDim, s.Intermediate, s.MaxPositions)
	case s.Heads%s.KVHeads != 0:
		return fmt.Errorf("checkpoint: Heads %d is not a multiple of KVHeads %d", s.Heads, s.KVHeads)
	case (arch == GPT2 || arch == GPTNeoX) && s.KVHeads != s.Heads:
		return fmt.Errorf("checkpoint: %s has no grouped-query attention; leave KVHeads 0 or set it to Heads (%d)", arch, s.Heads)
	case (arch == GPT2 || arch == GPTNeoX || arch == Qwen2) && s.HeadDim*s.Heads != s.Hidden:
		return fmt.Errorf("checkpoint: %s needs HeadDim×Heads = Hidden (%d×%d ≠ %d)", arch, s.HeadDim, s.Heads, s.Hidden)
	case arch != GPT2 && s.HeadDim%2 != 0:
		return fmt.Errorf("checkpoint: HeadDim %d must be even for RoPE", s.HeadDim)
	case arch == GPTNeoX && (s.RotaryPct <= 0 || s.RotaryPct > 1 || s.rotaryDims()%2 != 0 || s.rotaryDims() == 0):
		return fmt.Errorf("checkpoint: RotaryPct %g turns %d dims of a %d-dim head; it must turn an even, positive number", s.RotaryPct, s.rotaryDims(), s.HeadDim)
	case s.RopeTheta <= 0 || s.NormEps <= 0:
		return fmt.Errorf("checkpoint: RopeTheta and NormEps must be positive")
	}
	return nil
}

func (s Shape) rotaryDims() int { return int(float64(s.HeadDim) * s.RotaryPct) }

// decoder is s as the ONNX decoder's Config for arch, every option the
// family's parameters and config.json depend on included, so the weights
// drawn for a name are the decoder's for the same name and seed. Qwen2,
// GPT-2 and GPT-NeoX have attention biases, as their config classes
// default them; llama and qwen3 have none.
func (s Shape) decoder(arch string, seed uint64) decoder.Config {
	c := decoder.Config{
		Vocab: s.Vocab, Hidden: s.Hidden, Layers: s.Layers, Heads: s.Heads, KVHeads: s.KVHeads, HeadDim: s.HeadDim,
		Intermediate: s.Intermediate, MaxPositions: s.MaxPositions, TiedEmbeddings: s.TiedEmbeddings,
		RopeTheta: s.RopeTheta, NormEps: s.NormEps, Seed: seed, HiddenAct: s.HiddenAct,
		AttentionBias: arch == Qwen2 || arch == GPT2 || arch == GPTNeoX,
	}
	if arch == GPTNeoX {
		c.RotaryDims = s.rotaryDims()
		c.ParallelResidual = !s.SequentialResidual
	}
	return c
}

// resolve is s with arch's defaults, checked, as arch's decoder family
// and Config with seed.
func (s Shape) resolve(arch string, seed uint64) (decoder.Arch, decoder.Config, error) {
	s = s.Defaults(arch)
	if err := s.Validate(arch); err != nil {
		return nil, decoder.Config{}, err
	}
	a, err := archOf(arch)
	return a, s.decoder(arch, seed), err
}

// shapeOf is the Shape of a decoder Config.
func shapeOf(c decoder.Config) Shape {
	return Shape{
		Vocab: c.Vocab, Hidden: c.Hidden, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		Intermediate: c.Intermediate, MaxPositions: c.MaxPositions, TiedEmbeddings: c.TiedEmbeddings,
		RopeTheta: c.RopeTheta, NormEps: c.NormEps,
	}
}
