package checkpoint

import (
	"fmt"
	"math"
	"strings"
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
	// AttentionBias: q/k/v (and, for llama and gpt_neox, output) biases.
	AttentionBias bool
	HiddenAct     string
}

// configNames are one model_type's config.json names and defaults.
type configNames struct {
	vocab, hidden, layers, heads, kvHeads, headDim, inter, maxPos, eps, theta, act, tied string
	def                                                                                  Hparams
}

var configs = map[string]configNames{
	Llama: {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
		"intermediate_size", "max_position_embeddings", "rms_norm_eps", "rope_theta", "hidden_act", "tie_word_embeddings",
		Hparams{Vocab: 32000, Hidden: 4096, Layers: 32, Heads: 32, Intermediate: 11008, MaxPositions: 2048, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu"}},
	Qwen2: {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
		"intermediate_size", "max_position_embeddings", "rms_norm_eps", "rope_theta", "hidden_act", "tie_word_embeddings",
		Hparams{Vocab: 151936, Hidden: 4096, Layers: 32, Heads: 32, Intermediate: 22016, MaxPositions: 32768, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu", AttentionBias: true}},
	Qwen3: {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "head_dim",
		"intermediate_size", "max_position_embeddings", "rms_norm_eps", "rope_theta", "hidden_act", "tie_word_embeddings",
		Hparams{Vocab: 151936, Hidden: 4096, Layers: 32, Heads: 32, HeadDim: 128, Intermediate: 22016, MaxPositions: 32768, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu"}},
	GPT2: {"vocab_size", "n_embd", "n_layer", "n_head", "", "",
		"n_inner", "n_positions", "layer_norm_epsilon", "", "activation_function", "tie_word_embeddings",
		Hparams{Vocab: 50257, Hidden: 768, Layers: 12, Heads: 12, MaxPositions: 1024, NormEps: 1e-5, HiddenAct: "gelu_new", Tied: true, AttentionBias: true}},
	GPTNeoX: {"vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "", "",
		"intermediate_size", "max_position_embeddings", "layer_norm_eps", "rotary_emb_base", "hidden_act", "tie_word_embeddings",
		Hparams{Vocab: 50432, Hidden: 6144, Layers: 44, Heads: 64, Intermediate: 24576, MaxPositions: 2048, NormEps: 1e-5, RopeTheta: 10000, HiddenAct: "gelu", ParallelResidual: true, AttentionBias: true}},
}

// Hparams reads config.json's shape and options for its model_type.
// Errors name the config.json field and what it should hold.
func (c *Checkpoint) Hparams() (Hparams, error) {
	mt, err := c.ModelType()
	if err != nil {
		return Hparams{}, err
	}
	f, ok := configs[mt]
	if !ok {
		return Hparams{}, fmt.Errorf("config.json: model_type %q is not a family this converter knows; known: %s", mt, strings.Join(Archs, ", "))
	}
	r := reader{cfg: c.Config}
	h := f.def
	h.ModelType = mt
	r.int(f.vocab, &h.Vocab)
	r.int(f.hidden, &h.Hidden)
	r.int(f.layers, &h.Layers)
	r.int(f.heads, &h.Heads)
	h.KVHeads = h.Heads
	r.int(f.kvHeads, &h.KVHeads)
	if h.Heads > 0 && h.HeadDim == 0 {
		h.HeadDim = h.Hidden / h.Heads
	}
	h.ExplicitHeadDim = r.int(f.headDim, &h.HeadDim)
	if mt == GPT2 {
		h.Intermediate = 4 * h.Hidden // n_inner null means 4 × n_embd
	}
	r.int(f.inter, &h.Intermediate)
	r.int(f.maxPos, &h.MaxPositions)
	r.float(f.eps, &h.NormEps)
	r.float(f.theta, &h.RopeTheta)
	r.str(f.act, &h.HiddenAct)
	r.bool(f.tied, &h.Tied)
	switch mt {
	case Llama, Qwen3:
		r.bool("attention_bias", &h.AttentionBias)
	case GPTNeoX:
		r.bool("attention_bias", &h.AttentionBias)
		r.bool("use_parallel_residual", &h.ParallelResidual)
	}
	h.RotaryDims = h.HeadDim
	switch mt {
	case GPT2:
		h.RotaryDims = 0
	case GPTNeoX:
		pct := 0.25
		r.float("rotary_pct", &pct)
		h.RotaryDims = int(float64(h.HeadDim) * pct) // transformers truncates as int() does
	}
	if mt == Llama || mt == Qwen2 || mt == Qwen3 {
		if v, ok := c.Config["rope_scaling"]; ok && v != nil {
			r.fail("rope_scaling", "want null: scaled RoPE is not converted", v)
		}
	}
	if r.err != nil {
		return Hparams{}, r.err
	}
	return h, h.check()
}

// check rejects shapes no model has.
func (h Hparams) check() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"vocab size", h.Vocab}, {"hidden size", h.Hidden}, {"layer count", h.Layers}, {"head count", h.Heads},
		{"key/value head count", h.KVHeads}, {"head size", h.HeadDim}, {"intermediate size", h.Intermediate}, {"context length", h.MaxPositions}} {
		if f.v <= 0 {
			return fmt.Errorf("config.json: the %s is %d; it must be positive", f.name, f.v)
		}
	}
	if h.Heads%h.KVHeads != 0 {
		return fmt.Errorf("config.json: %d attention heads are not a multiple of %d key/value heads", h.Heads, h.KVHeads)
	}
	if h.RotaryDims%2 != 0 {
		return fmt.Errorf("config.json: RoPE turns %d dims of each head; it must be an even number", h.RotaryDims)
	}
	return nil
}

// reader reads typed config.json fields, keeping the first error.
type reader struct {
	cfg map[string]any
	err error
}

func (r *reader) fail(key, want string, got any) {
	if r.err == nil {
		r.err = fmt.Errorf("config.json: %s: %s, got %v", key, want, got)
	}
}

// value is key's value; absent and null both read as absent.
func (r *reader) value(key string) (any, bool) {
	if key == "" {
		return nil, false
	}
	v, ok := r.cfg[key]
	return v, ok && v != nil
}

func (r *reader) int(key string, dst *int) bool {
	v, ok := r.value(key)
	if !ok {
		return false
	}
	f, isNum := number(v)
	if !isNum || f != math.Trunc(f) || math.Abs(f) > 1<<40 {
		r.fail(key, "want an integer", v)
		return false
	}
	*dst = int(f)
	return true
}

func (r *reader) float(key string, dst *float64) {
	if v, ok := r.value(key); ok {
		if f, isNum := number(v); isNum {
			*dst = f
		} else {
			r.fail(key, "want a number", v)
		}
	}
}

func (r *reader) str(key string, dst *string) {
	if v, ok := r.value(key); ok {
		if s, isStr := v.(string); isStr {
			*dst = s
		} else {
			r.fail(key, "want a string", v)
		}
	}
}

func (r *reader) bool(key string, dst *bool) {
	if v, ok := r.value(key); ok {
		if b, isBool := v.(bool); isBool {
			*dst = b
		} else {
			r.fail(key, "want true or false", v)
		}
	}
}

// number reads the numeric types a config map holds: float64 from JSON,
// ints and floats from Go.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint32:
		return float64(n), true
	}
	return 0, false
}
