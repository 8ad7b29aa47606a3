package testmodel

import (
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
)

// tensor is a seeded weight; the reference forward pass reads it.
type tensor = seeded.Tensor

// arch is the decoder family that builds c's graph.
func (c Config) arch() decoder.Arch {
	if c.Arch == GPT2 {
		return decoder.GPT2
	}
	return decoder.Llama
}

// decoder is c's shape and seed. The test models' GPT-2 computes GELU
// with erf (activation_function gelu), not GPT-2's own tanh
// approximation: their files and goldens were made so.
func (c Config) decoder() decoder.Config {
	dc := decoder.Config{
		Vocab: c.Vocab, Hidden: c.Hidden, Layers: c.Layers, Heads: c.Heads, KVHeads: c.KVHeads, HeadDim: c.HeadDim,
		Intermediate: c.Intermediate, MaxPositions: c.MaxPositions, TiedEmbeddings: c.TiedEmbeddings,
		RopeTheta: c.RopeTheta, NormEps: c.NormEps, Seed: c.Seed,
	}
	if c.Arch == GPT2 {
		dc.HiddenAct = "gelu"
	}
	return dc
}

// Weights are the model's parameters by Hugging Face name, in MatMul
// layout ([in, out]), as the main file stores them: what
// checkpoint.FromDecoder turns into a checkpoint that another format
// (GGUF) can carry bit for bit.
func (m *Model) Weights() map[string]*seeded.Tensor { return m.w }
