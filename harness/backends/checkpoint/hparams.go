package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// Hparams is what a converter needs from config.json, read with the
// defaults transformers' config classes give absent fields.
type Hparams struct {
	ModelType                                                                  string
	Vocab, Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate, MaxPositions int
	// ExplicitHeadDim: config.json names head_dim (llama.cpp's converter
	// then writes attention.key_length and value_length).
	ExplicitHeadDim bool
	// RotaryDims is how many dims of each head RoPE turns: all of them,
	// gpt_neox's rotary_pct share, none for gpt2.
	RotaryDims int
	RopeTheta  float64
	// NormEps is rms_norm_eps (llama, qwen) or the LayerNorm epsilon
	// (gpt2, gpt_neox).
	NormEps float64
	Tied    bool
	// ParallelResidual is gpt_neox's use_parallel_residual.
	ParallelResidual bool
	// AttentionBias: q/k/v (and, for llama, qwen3 and gpt_neox, output)
	// biases.
	AttentionBias bool
	HiddenAct     string
	// RopeScaling is scaled RoPE as converters carry it over: llama3 or
	// linear for llama, linear for Gemma 3's global layers; nil for none.
	RopeScaling *decoder.RopeScaling
	// Gemma 3: which layers attend to a sliding window of SlidingWindow
	// positions (including their own), those layers' RoPE base, and the
	// attention scale's query_pre_attn_scalar.
	SlidingLayers      []bool
	SlidingWindow      int
	LocalRopeTheta     float64
	QueryPreAttnScalar float64
}

// convertedScaling lists, per family, the RoPE scaling types a converter
// carries over.
var convertedScaling = map[string][]string{Llama: {"llama3", "linear"}, Gemma3: {"linear"}}

// Hparams reads config.json's shape and options for its model_type, as
// the ONNX decoder reads them (decoder.FromConfig), and refuses what a
// converter does not carry over: scaled RoPE and GPT-2's attention
// scaling options. Errors name the config.json field and what it should
// hold.
func (c *Checkpoint) Hparams() (Hparams, error) {
	mt, err := c.ModelType()
	if err != nil {
		return Hparams{}, err
	}
	if !slices.Contains(Converted, mt) {
		return Hparams{}, fmt.Errorf("config.json: model_type %q is not a family this converter knows; known: %s", mt, strings.Join(Converted, ", "))
	}
	if v, ok := c.Config["rope_scaling"]; ok && v != nil && convertedScaling[mt] == nil {
		return Hparams{}, fmt.Errorf("config.json: rope_scaling: want null: scaled RoPE is not converted for %s, got %v", mt, v)
	}
	_, dc, err := decoder.FromConfig(c.Config)
	if err != nil {
		return Hparams{}, err
	}
	var scaling *decoder.RopeScaling
	if dc.RopeScaling != nil && slices.Contains(convertedScaling[mt], dc.RopeScaling.Type) {
		scaling, dc.RopeScaling = dc.RopeScaling, nil
	}
	switch {
	case dc.RopeScaling != nil:
		return Hparams{}, fmt.Errorf("config.json: rope_parameters: %s RoPE scaling is not converted", dc.RopeScaling.Type)
	case dc.UnscaledAttention:
		return Hparams{}, fmt.Errorf("config.json: scale_attn_weights: false is not converted (llama.cpp always scales attention)")
	case dc.ScaleAttnByLayer:
		return Hparams{}, fmt.Errorf("config.json: scale_attn_by_inverse_layer_idx: true is not converted")
	}
	h := Hparams{
		ModelType: mt, Vocab: dc.Vocab, Hidden: dc.Hidden, Layers: dc.Layers, Heads: dc.Heads, KVHeads: dc.KVHeads, HeadDim: dc.HeadDim,
		Intermediate: dc.Intermediate, MaxPositions: dc.MaxPositions, RopeTheta: dc.RopeTheta, NormEps: dc.NormEps,
		Tied: dc.TiedEmbeddings, ParallelResidual: dc.ParallelResidual, AttentionBias: dc.AttentionBias, HiddenAct: dc.HiddenAct,
	}
	if mt != GPT2 {
		h.RotaryDims = dc.HeadDim
		if dc.RotaryDims != 0 {
			h.RotaryDims = dc.RotaryDims
		}
	}
	h.ExplicitHeadDim = c.Config["head_dim"] != nil
	h.RopeScaling = scaling
	if mt == Gemma3 {
		h.SlidingLayers, h.SlidingWindow = dc.SlidingLayers, dc.SlidingWindow
		h.LocalRopeTheta, h.QueryPreAttnScalar = dc.LocalRopeTheta, dc.QueryPreAttnScalar
	}
	return h, nil
}
