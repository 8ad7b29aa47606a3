package decoder

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// ExportCommand exports a model the decoder does not build to ONNX, which
// the onnx backend then runs as it is.
const ExportCommand = "optimum-cli export onnx --model <id> --task text-generation-with-past <dir>"

// Archs are the families FromConfig builds, in the order errors list them.
var Archs = []Arch{Llama, Qwen2, Qwen3, GPT2, GPTNeoX, Gemma3}

// family is how one model_type's config.json reads: its causal LM class
// (config.json's architectures), the defaults transformers' config class
// gives absent fields, and its own fields.
type family struct {
	arch     Arch
	class    string
	defaults Config
	read     func(r *reader, c *Config, modelType string)
}

var families = map[string]family{
	"llama": {Llama, "LlamaForCausalLM", Config{Vocab: 32000, Hidden: 4096, Intermediate: 11008, Layers: 32, Heads: 32,
		MaxPositions: 2048, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu"}, readLlama},
	"qwen2": {Qwen2, "Qwen2ForCausalLM", Config{Vocab: 151936, Hidden: 4096, Intermediate: 22016, Layers: 32, Heads: 32,
		MaxPositions: 32768, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu", AttentionBias: true}, readLlama},
	"qwen3": {Qwen3, "Qwen3ForCausalLM", Config{Vocab: 151936, Hidden: 4096, Intermediate: 22016, Layers: 32, Heads: 32, HeadDim: 128,
		MaxPositions: 32768, NormEps: 1e-6, RopeTheta: 10000, HiddenAct: "silu"}, readLlama},
	"gpt2": {GPT2, "GPT2LMHeadModel", Config{Vocab: 50257, Hidden: 768, Layers: 12, Heads: 12, MaxPositions: 1024,
		NormEps: 1e-5, HiddenAct: "gelu_new", TiedEmbeddings: true, AttentionBias: true}, readGPT2},
	"gpt_neox": {GPTNeoX, "GPTNeoXForCausalLM", Config{Vocab: 50432, Hidden: 6144, Intermediate: 24576, Layers: 44, Heads: 64,
		MaxPositions: 2048, NormEps: 1e-5, RopeTheta: 10000, HiddenAct: "gelu", ParallelResidual: true, AttentionBias: true}, readGPTNeoX},
	"gemma3_text": {Gemma3, "Gemma3ForCausalLM", Config{Vocab: 262208, Hidden: 2304, Intermediate: 9216, Layers: 26, Heads: 8, KVHeads: 4, HeadDim: 256,
		MaxPositions: 131072, NormEps: 1e-6, RopeTheta: 1e6, LocalRopeTheta: 10000, HiddenAct: "gelu_pytorch_tanh", TiedEmbeddings: true,
		QueryPreAttnScalar: 256, SlidingWindow: 4096}, readGemma3},
}

// supported lists the model types FromConfig builds.
func supported() string {
	var names []string
	for _, a := range Archs {
		names = append(names, a.ModelType())
	}
	return strings.Join(names, ", ")
}

// FromConfigJSON is FromConfig for the bytes of a config.json.
func FromConfigJSON(data []byte) (Arch, Config, error) {
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, Config{}, fmt.Errorf("config.json: %w", err)
	}
	return FromConfig(cfg)
}

// FromConfig reads a Hugging Face config.json, as decoded from JSON, into
// the family and Config that build its graph, with the defaults
// transformers gives absent fields. The Config's Seed is 0: a checkpoint's
// weights come from its files. Errors name the config.json field; a model
// type or setting the decoder does not build is refused, with the ONNX
// export as the way out.
func FromConfig(cfg map[string]any) (Arch, Config, error) {
	r := newReader(cfg)
	var mt string
	r.str("model_type", &mt)
	if err := r.err(); err != nil {
		return nil, Config{}, err
	}
	if mt == "" {
		mt = typeOfArchitectures(cfg)
	}
	f, ok := families[mt]
	switch {
	case mt == "":
		return nil, Config{}, fmt.Errorf("config.json: model_type is missing; feather builds %s. Export other models to ONNX: %s", supported(), ExportCommand)
	case !ok:
		return nil, Config{}, fmt.Errorf("config.json: model_type %q is not an architecture feather builds; it builds %s. Export the model to ONNX instead: %s", mt, supported(), ExportCommand)
	}
	r.architectures(f)
	c := f.defaults
	f.read(r, &c, mt)
	r.common(&c)
	if err := r.err(); err != nil {
		return nil, Config{}, err
	}
	return f.arch, c, nil
}

// typeOfArchitectures is the model type whose causal LM class
// config.json's architectures names, for a file without model_type.
func typeOfArchitectures(cfg map[string]any) string {
	list, _ := newReader(cfg).strings("architectures")
	for _, a := range list {
		for mt, f := range families {
			if a == f.class {
				return mt
			}
		}
	}
	return ""
}

// architectures refuses a checkpoint of another head (a classifier, say)
// or family: its weights are not the language model the graph reads.
func (r *reader) architectures(f family) {
	list, _ := r.strings("architectures")
	for _, a := range list {
		if a != f.class {
			r.fail("architectures", fmt.Sprintf("want [%s], %s's language model", f.class, f.arch.ModelType()), a)
			return
		}
	}
}

// common reads what every family's config.json may say.
func (r *reader) common(c *Config) {
	// transformers 5 writes dtype, earlier releases torch_dtype.
	for _, key := range []string{"torch_dtype", "dtype"} {
		r.str(key, &c.DType)
		if c.DType != "" {
			if !slices.Contains([]string{"float32", "float16", "bfloat16"}, c.DType) {
				r.unsupported(key, fmt.Sprintf("%q weights are not read; feather reads float32, float16 and bfloat16", c.DType))
			}
			break
		}
	}
	if v, ok := r.value("quantization_config"); ok {
		method := v
		if m, isMap := v.(map[string]any); isMap && m["quant_method"] != nil {
			method = m["quant_method"]
		}
		r.unsupported("quantization_config", fmt.Sprintf("a %v-quantized checkpoint is not read; use the unquantized model", method))
	}
}

// readLlama reads llama's, qwen2's and qwen3's config.json.
func readLlama(r *reader, c *Config, mt string) {
	r.count("vocab_size", &c.Vocab)
	r.count("hidden_size", &c.Hidden)
	r.count("num_hidden_layers", &c.Layers)
	r.count("num_attention_heads", &c.Heads)
	c.KVHeads = c.Heads
	r.count("num_key_value_heads", &c.KVHeads)
	r.count("intermediate_size", &c.Intermediate)
	r.count("max_position_embeddings", &c.MaxPositions)
	r.positive("rms_norm_eps", &c.NormEps)
	r.act("hidden_act", &c.HiddenAct)
	r.bool("tie_word_embeddings", &c.TiedEmbeddings)
	if mt != "qwen2" { // Qwen2 has q/k/v biases whatever it says
		r.bool("attention_bias", &c.AttentionBias)
	}
	if mt == "llama" {
		r.bool("mlp_bias", &c.MLPBias)
	}
	r.headDim(c, "hidden_size", "num_attention_heads")
	r.kvHeads(c, "num_attention_heads", "num_key_value_heads")
	r.rope(c, "rope_theta", "partial_rotary_factor", 1)
	if c.HeadDim%2 != 0 {
		r.fail("head_dim", "RoPE turns pairs of dims; want an even head size", c.HeadDim)
	}
	if mt == "qwen2" {
		var mrope bool
		r.bool("use_mrope", &mrope)
		if mrope {
			r.unsupported("use_mrope", "multimodal RoPE (Qwen2-VL) is not built")
		}
	}
	if mt != "llama" {
		var sliding bool
		r.bool("use_sliding_window", &sliding)
		if sliding {
			r.unsupported("use_sliding_window", mt+" with sliding-window attention is not built")
		}
	}
	r.noSlidingLayers()
}

// readGPT2 reads GPT-2's config.json, which has names of its own.
func readGPT2(r *reader, c *Config, _ string) {
	r.count("vocab_size", &c.Vocab)
	r.count("n_embd", &c.Hidden)
	r.count("n_layer", &c.Layers)
	r.count("n_head", &c.Heads)
	c.KVHeads = c.Heads
	c.Intermediate = 4 * c.Hidden // n_inner null means 4 × n_embd
	r.count("n_inner", &c.Intermediate)
	r.count("n_positions", &c.MaxPositions)
	r.positive("layer_norm_epsilon", &c.NormEps)
	r.act("activation_function", &c.HiddenAct)
	r.bool("tie_word_embeddings", &c.TiedEmbeddings)
	scaled := true
	r.bool("scale_attn_weights", &scaled)
	c.UnscaledAttention = !scaled
	r.bool("scale_attn_by_inverse_layer_idx", &c.ScaleAttnByLayer)
	var cross bool
	r.bool("add_cross_attention", &cross)
	if cross {
		r.unsupported("add_cross_attention", "GPT-2 with cross-attention is an encoder-decoder's half, not a language model")
	}
	r.divides(c, "n_embd", "n_head")
}

// readGPTNeoX reads GPT-NeoX's config.json: the RoPE base is
// rotary_emb_base and the rotary share of each head rotary_pct.
func readGPTNeoX(r *reader, c *Config, _ string) {
	r.count("vocab_size", &c.Vocab)
	r.count("hidden_size", &c.Hidden)
	r.count("num_hidden_layers", &c.Layers)
	r.count("num_attention_heads", &c.Heads)
	c.KVHeads = c.Heads
	r.count("intermediate_size", &c.Intermediate)
	r.count("max_position_embeddings", &c.MaxPositions)
	r.positive("layer_norm_eps", &c.NormEps)
	r.act("hidden_act", &c.HiddenAct)
	r.bool("tie_word_embeddings", &c.TiedEmbeddings)
	r.bool("use_parallel_residual", &c.ParallelResidual)
	r.bool("attention_bias", &c.AttentionBias)
	r.divides(c, "hidden_size", "num_attention_heads")
	r.rope(c, "rotary_emb_base", "rotary_pct", 0.25)
}

// headDim sets c.HeadDim from head_dim or, without one, hidden over heads
// (qwen3 keeps its class default).
func (r *reader) headDim(c *Config, hiddenKey, headsKey string) {
	if r.count("head_dim", &c.HeadDim) || c.HeadDim != 0 {
		return
	}
	r.divides(c, hiddenKey, headsKey)
}

// divides sets c.HeadDim to hidden over heads, which must divide.
func (r *reader) divides(c *Config, hiddenKey, headsKey string) {
	if c.Heads > 0 && c.Hidden%c.Heads != 0 {
		r.first(fmt.Errorf("config.json: %s %d is not a multiple of %s %d", hiddenKey, c.Hidden, headsKey, c.Heads))
	}
	if c.Heads > 0 {
		c.HeadDim = c.Hidden / c.Heads
	}
}

// kvHeads checks that key/value heads divide the query heads.
func (r *reader) kvHeads(c *Config, headsKey, kvKey string) {
	if c.KVHeads > 0 && c.Heads%c.KVHeads != 0 {
		r.first(fmt.Errorf("config.json: %s %d is not a multiple of %s %d", headsKey, c.Heads, kvKey, c.KVHeads))
	}
}

// rope reads RoPE's base from thetaKey, rope_scaling, and the share of
// each head it turns: shareKey's value (gpt_neox's rotary_pct), share when
// absent; a family without partial rotary (shareKey
// partial_rotary_factor, which it may only set to 1) turns whole heads.
// transformers 5 keeps all three in rope_parameters instead.
func (r *reader) rope(c *Config, thetaKey, shareKey string, share float64) {
	partial := shareKey != "partial_rotary_factor"
	var scaling *RopeScaling
	if params, ok := r.sub("rope_parameters"); ok {
		params.positive("rope_theta", &c.RopeTheta)
		params.float("partial_rotary_factor", &share)
		shareKey = "rope_parameters.partial_rotary_factor"
		scaling = params.ropeScaling(false)
	} else {
		r.positive(thetaKey, &c.RopeTheta)
		r.float(shareKey, &share)
		if s, ok := r.sub("rope_scaling"); ok {
			scaling = s.ropeScaling(true)
		}
	}
	c.RopeScaling = scaling
	dims := int(float64(c.HeadDim) * share) // as transformers truncates with int()
	switch {
	case share == 1:
	case !partial:
		r.unsupported(shareKey, fmt.Sprintf("%g: partial rotary embeddings are built for gpt_neox only", share))
	case dims <= 0 || dims%2 != 0 || share > 1:
		r.fail(shareKey, fmt.Sprintf("turns %d of each head's %d dims; RoPE needs an even number from 2 to the head size", dims, c.HeadDim), share)
	default:
		c.RotaryDims = dims
	}
}

// ropeScaling reads a rope_scaling object, or transformers 5's
// rope_parameters, whose rope_type may be absent (and is then default):
// nil for default RoPE, else the linear or llama3 scaling it names.
// Other scalings are refused.
func (r *reader) ropeScaling(typeRequired bool) *RopeScaling {
	var typ string
	r.str("rope_type", &typ)
	if typ == "" {
		r.str("type", &typ) // the name before transformers 4.45
	}
	switch typ {
	case "", "default":
		if typ == "" && typeRequired {
			r.fail("rope_type", "want default, linear or llama3", nil)
		}
		return nil
	case "linear", "llama3":
	default:
		r.unsupported("rope_type", fmt.Sprintf("%q RoPE scaling is not built; feather builds default, linear and llama3", typ))
		return nil
	}
	s := &RopeScaling{Type: typ}
	r.need("factor", func() bool { return r.positive("factor", &s.Factor) })
	if typ == "llama3" {
		r.need("low_freq_factor", func() bool { return r.positive("low_freq_factor", &s.LowFreqFactor) })
		r.need("high_freq_factor", func() bool { return r.positive("high_freq_factor", &s.HighFreqFactor) })
		r.need("original_max_position_embeddings", func() bool { return r.count("original_max_position_embeddings", &s.OriginalMaxPositions) })
		if r.err() == nil && s.HighFreqFactor <= s.LowFreqFactor {
			r.fail("high_freq_factor", fmt.Sprintf("want more than low_freq_factor %g", s.LowFreqFactor), s.HighFreqFactor)
		}
	}
	return s
}

// noSlidingLayers refuses layer_types naming sliding-window layers in a
// family built without them.
func (r *reader) noSlidingLayers() {
	types, ok := r.strings("layer_types")
	if ok && slices.Contains(types, "sliding_attention") {
		r.unsupported("layer_types", "sliding-window attention layers are built for gemma3_text only")
	}
}

// reader reads typed config.json fields, keeping the first error (in
// *errp, shared with the readers of nested objects, whose keys read with
// their path: rope_scaling.factor).
type reader struct {
	cfg    map[string]any
	prefix string
	errp   *error
}

func newReader(cfg map[string]any) *reader { return &reader{cfg: cfg, errp: new(error)} }

// err is the first error so far.
func (r *reader) err() error { return *r.errp }

// first records err unless one came before.
func (r *reader) first(err error) {
	if *r.errp == nil {
		*r.errp = err
	}
}

func (r *reader) fail(key, want string, got any) {
	r.first(fmt.Errorf("config.json: %s%s: %s, got %v", r.prefix, key, want, got))
}

// unsupported refuses a setting the decoder does not build, naming the
// way out.
func (r *reader) unsupported(key, why string) {
	r.first(fmt.Errorf("config.json: %s%s: %s. Export the model to ONNX instead: %s", r.prefix, key, why, ExportCommand))
}

// need fails when read finds no value for key.
func (r *reader) need(key string, read func() bool) {
	if !read() {
		if _, present := r.value(key); !present {
			r.fail(key, "want a number", nil)
		}
	}
}

// value is key's value; absent and null both read as absent.
func (r *reader) value(key string) (any, bool) {
	v, ok := r.cfg[key]
	return v, ok && v != nil
}

// sub is the object under key, read with key's path.
func (r *reader) sub(key string) (*reader, bool) {
	v, ok := r.value(key)
	if !ok {
		return nil, false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		r.fail(key, "want an object", v)
		return nil, false
	}
	return &reader{cfg: m, prefix: r.prefix + key + ".", errp: r.errp}, true
}

// int reads an integer, reporting whether key held one.
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

// count reads a size, which must be positive.
func (r *reader) count(key string, dst *int) bool {
	var n int
	if !r.int(key, &n) {
		return false
	}
	if n <= 0 {
		r.fail(key, "want a positive integer", n)
		return false
	}
	*dst = n
	return true
}

func (r *reader) float(key string, dst *float64) bool {
	v, ok := r.value(key)
	if !ok {
		return false
	}
	f, isNum := number(v)
	if !isNum {
		r.fail(key, "want a number", v)
		return false
	}
	*dst = f
	return true
}

// positive reads a number that must be above 0.
func (r *reader) positive(key string, dst *float64) bool {
	var f float64
	if !r.float(key, &f) {
		return false
	}
	if f <= 0 {
		r.fail(key, "want a positive number", f)
		return false
	}
	*dst = f
	return true
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

// strings reads a list of strings.
func (r *reader) strings(key string) ([]string, bool) {
	v, ok := r.value(key)
	if !ok {
		return nil, false
	}
	if s, isStrs := v.([]string); isStrs {
		return s, true
	}
	list, isList := v.([]any)
	var out []string
	for _, e := range list {
		s, isStr := e.(string)
		if !isStr {
			isList = false
			break
		}
		out = append(out, s)
	}
	if !isList {
		r.fail(key, "want a list of strings", v)
		return nil, false
	}
	return out, true
}

// act reads an activation's name, which must be one the decoder builds.
func (r *reader) act(key string, dst *string) {
	var s string
	r.str(key, &s)
	if s == "" {
		return
	}
	if !slices.Contains(Activations, s) {
		r.unsupported(key, fmt.Sprintf("activation %q is not built; feather builds %s", s, strings.Join(Activations, ", ")))
		return
	}
	*dst = s
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
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
