// Package testmodel builds small decoder-only language models as Hugging
// Face ONNX export folders (config.json, generation_config.json, tokenizer
// files, the ONNX graph with the I/O real exports have), computes their
// logits with a plain-Go reference forward pass (Reference, which covers
// every architecture package decoder builds), runs a decoder graph in
// ONNX Runtime (RunGraph), and provides "designed" models whose
// log-probabilities are known in closed form. Tests use them to check the
// ONNX backend and the decoder. Everything is generated from a seed: nothing
// is downloaded. Only tests import this package; the built-in model is
// harness/backends/onnx/smoke.
package testmodel

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/smoke"
)

// The tokenizer's special tokens and their ids (see corpustok).
const (
	EOSID     = corpustok.EOSID // <|endoftext|>, also the padding token
	BOSID     = corpustok.BOSID // <|begin_of_text|>
	IMStartID = corpustok.IMStartID
	IMEndID   = corpustok.IMEndID
	// MinVocab is the smallest vocabulary: the special tokens and one token per byte.
	MinVocab = corpustok.MinVocab
)

// ChatML is a ChatML chat template (as SmolLM and Qwen use) for
// Config.ChatTemplate.
const ChatML = corpustok.ChatML

// Arch is the decoder family.
type Arch string

const (
	// GPT2 has learned positions, LayerNorm, a GELU MLP and multi-head attention.
	GPT2 Arch = "gpt2"
	// Llama has RoPE, RMSNorm, a SwiGLU MLP and grouped-query attention.
	Llama Arch = "llama"
)

// Layouts: where the ONNX file goes in the folder.
const (
	LayoutTransformersJS = "onnx/model.onnx"           // transformers.js (default)
	LayoutRoot           = "model.onnx"                // plain export
	LayoutMerged         = "decoder_model_merged.onnx" // optimum, If on use_cache_branch
	LayoutMergedJS       = "onnx/decoder_model_merged.onnx"
)

// variants are the extra ONNX files Config.Variants may ask for, named
// <stem>_<variant>.onnx as transformers.js names them: fp16 (float16
// weights, cache and logits), int8 and uint8 (dynamic quantization as
// onnxruntime's quantize_dynamic writes it: 8-bit MatMul weights, 8-bit
// activations per call), quantized (uint8, transformers.js's q8 file), q4
// (MatMulNBits: 4-bit weights in blocks of 32, float activations), q4f16
// (the fp16 file with q4's MatMulNBits computing in float16: float16
// scales, activations and products) and bnb4 (MatMulBnb4: NF4 weights in
// blocks of 64, float activations).
var variants = []string{"fp16", "int8", "uint8", "quantized", "q4", "q4f16", "bnb4"}

// Config describes a model. Zero fields take the defaults in Defaults.
type Config struct {
	Arch Arch
	// Vocab is the vocabulary size; the tokenizer has exactly this many tokens.
	Vocab, Hidden, Layers, Heads, KVHeads, Intermediate, MaxPositions int
	// HeadDim defaults to Hidden/Heads.
	HeadDim int
	// TiedEmbeddings makes the LM head the transposed token embedding.
	TiedEmbeddings bool
	RopeTheta      float64
	// NormEps is rms_norm_eps (Llama) or layer_norm_epsilon (GPT-2).
	NormEps float64
	Seed    uint64

	// Layout is the ONNX file's path in the folder (see the Layout constants).
	Layout string
	// Variants lists extra files to write: "fp16", "int8", "uint8",
	// "quantized", "q4", "q4f16", "bnb4".
	Variants []string
	// QDQ stores the 8-bit variants' weights as DequantizeLinear (the QDQ
	// format: float activations) instead of quantize_dynamic's
	// MatMulInteger with activations quantized per call.
	QDQ bool
	// NoPast exports without past_key_values inputs and present outputs.
	NoPast bool
	// PositionIDs adds the position_ids input; without it the graph derives
	// positions from the attention mask (cumulative sum), as HF does.
	PositionIDs bool
	// LogitsToKeep adds an int64 scalar input of this name,
	// "num_logits_to_keep" or "logits_to_keep": the LM head then runs on
	// the last k positions only (all when k is 0), as in exports that
	// offer it.
	LogitsToKeep string
	// GroupQueryAttention writes attention as onnxruntime's fused
	// GroupQueryAttention operator, as onnxruntime-genai's model builder
	// does and onnx-community conversions may (Llama with a cache only); without
	// PositionIDs the operator also applies rotary embeddings itself, as
	// the builder's CPU exports do.
	GroupQueryAttention bool
	// GenAIConfig writes genai_config.json naming Layout as the decoder, as
	// onnxruntime-genai's model builder does (its files have the model's
	// own name, such as phi3-mini-4k-instruct-cpu-int4-rtn-block-32.onnx).
	GenAIConfig bool
	// Family writes config.json's model_type and architectures as that
	// family's exports do: "qwen3", "gemma3_text" or "phi3" (empty: llama
	// or gpt2 by Arch). The graph stays Arch's: what tells the families
	// apart to a loader is config.json and the file's inputs and outputs,
	// and those are what a family fixture reproduces.
	Family string
	// FP16 stores the main file's weights, cache and logits in float16.
	FP16 bool
	// ExternalData stores large tensors in <file>_data beside each ONNX file.
	ExternalData bool
	// ChatTemplate is written into tokenizer_config.json when set.
	ChatTemplate string
	// EOSIDs is generation_config.json's eos_token_id (a list when several);
	// config.json gets the first. Defaults to the tokenizer's EOS.
	EOSIDs []int
	// Name is config.json's _name_or_path.
	Name string
}

// families maps Config.Family to config.json's architectures entry.
var families = map[string]string{
	"qwen3":       "Qwen3ForCausalLM",
	"gemma3_text": "Gemma3ForCausalLM",
	"phi3":        "Phi3ForCausalLM",
}

// Defaults fills zero fields: a two-layer model small enough for tests.
func (c Config) Defaults() Config {
	if c.Arch == "" {
		c.Arch = Llama
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.Vocab, 512)
	def(&c.Hidden, 64)
	def(&c.Layers, 2)
	def(&c.Heads, 4)
	def(&c.KVHeads, c.Heads)
	if c.Heads > 0 {
		def(&c.HeadDim, c.Hidden/c.Heads)
	}
	if c.Arch == GPT2 {
		def(&c.Intermediate, 4*c.Hidden)
		def(&c.MaxPositions, 1024)
	} else {
		def(&c.Intermediate, (8*c.Hidden/3+7)/8*8)
		def(&c.MaxPositions, 2048)
	}
	if c.RopeTheta == 0 {
		c.RopeTheta = 10000
	}
	if c.NormEps == 0 {
		c.NormEps = 1e-5
	}
	if c.Layout == "" {
		c.Layout = LayoutTransformersJS
	}
	if len(c.EOSIDs) == 0 {
		c.EOSIDs = []int{EOSID}
	}
	return c
}

// merged reports whether the layout is optimum's merged decoder.
func (c Config) merged() bool { return path.Base(c.Layout) == LayoutMerged }

// Validate reports the first field that makes no model, naming the fix.
// It expects Defaults to have been applied.
func (c Config) Validate() error {
	switch {
	case c.Arch != GPT2 && c.Arch != Llama:
		return fmt.Errorf("testmodel: Arch %q is not a known architecture; use %q or %q", c.Arch, GPT2, Llama)
	case c.Vocab < MinVocab:
		return fmt.Errorf("testmodel: Vocab %d is below %d, the special tokens plus the 256 byte tokens", c.Vocab, MinVocab)
	case c.Hidden <= 0 || c.Layers <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 || c.Intermediate <= 0 || c.MaxPositions <= 0:
		return fmt.Errorf("testmodel: Hidden, Layers, Heads, KVHeads, HeadDim, Intermediate and MaxPositions must be positive (got %d, %d, %d, %d, %d, %d, %d)",
			c.Hidden, c.Layers, c.Heads, c.KVHeads, c.HeadDim, c.Intermediate, c.MaxPositions)
	case c.Heads%c.KVHeads != 0:
		return fmt.Errorf("testmodel: Heads %d is not a multiple of KVHeads %d; grouped-query attention shares each KV head among Heads/KVHeads query heads", c.Heads, c.KVHeads)
	case c.Arch == GPT2 && c.KVHeads != c.Heads:
		return fmt.Errorf("testmodel: GPT-2 has no grouped-query attention; leave KVHeads 0 or set it to Heads (%d)", c.Heads)
	case c.Arch == GPT2 && c.HeadDim*c.Heads != c.Hidden:
		return fmt.Errorf("testmodel: GPT-2 needs HeadDim×Heads = Hidden (%d×%d ≠ %d)", c.HeadDim, c.Heads, c.Hidden)
	case c.Arch == Llama && c.HeadDim%2 != 0:
		return fmt.Errorf("testmodel: HeadDim %d must be even for RoPE", c.HeadDim)
	case c.RopeTheta <= 0 || c.NormEps <= 0:
		return fmt.Errorf("testmodel: RopeTheta and NormEps must be positive")
	case !strings.HasSuffix(c.Layout, ".onnx") || path.IsAbs(c.Layout) || path.Clean(c.Layout) != c.Layout || strings.HasPrefix(c.Layout, ".."):
		return fmt.Errorf("testmodel: Layout %q must be a relative path to a .onnx file such as %q, %q or %q", c.Layout, LayoutTransformersJS, LayoutRoot, LayoutMerged)
	case c.LogitsToKeep != "" && c.LogitsToKeep != "num_logits_to_keep" && c.LogitsToKeep != "logits_to_keep":
		return fmt.Errorf("testmodel: LogitsToKeep %q is not an input exports have; use \"num_logits_to_keep\" or \"logits_to_keep\"", c.LogitsToKeep)
	case c.GroupQueryAttention && (c.Arch != Llama || c.NoPast || c.merged()):
		return fmt.Errorf("testmodel: GroupQueryAttention needs Arch %q with a cache in an unmerged file (as the exports that use it are)", Llama)
	case c.Family != "" && (c.Arch != Llama || families[c.Family] == ""):
		return fmt.Errorf("testmodel: Family %q is not a Llama-shaped family this package writes; use one of qwen3, gemma3_text, phi3", c.Family)
	case c.merged() && c.NoPast:
		return fmt.Errorf("testmodel: Layout %q is the merged decoder, which has a cache by definition; drop NoPast", c.Layout)
	}
	for _, v := range c.Variants {
		if !slices.Contains(variants, v) {
			return fmt.Errorf("testmodel: unknown variant %q; known variants are %s", v, strings.Join(variants, ", "))
		}
	}
	for _, id := range c.EOSIDs {
		if id < 0 || id >= c.Vocab {
			return fmt.Errorf("testmodel: EOSIDs entry %d is outside the vocabulary [0, %d)", id, c.Vocab)
		}
	}
	return nil
}

// SmokeConfig is the built-in smoke model (harness/backends/onnx/smoke) as a
// Config, so tests can run the reference forward pass on it.
func SmokeConfig() Config {
	return Config{
		Arch: Llama, Vocab: smoke.Vocab, Hidden: smoke.Hidden, Layers: smoke.Layers, Heads: smoke.Heads,
		KVHeads: smoke.KVHeads, Intermediate: smoke.Intermediate, MaxPositions: smoke.MaxPositions,
		TiedEmbeddings: true, Seed: smoke.Seed, PositionIDs: true,
		ChatTemplate: ChatML, EOSIDs: smoke.EOSIDs(), Name: smoke.Name,
	}
}

// PerfFixture is a model about the shape of a small real one (6 layers,
// width 256, GQA, a 32k vocabulary) for benchmarks of the ONNX backend.
func PerfFixture() Config {
	return Config{
		Arch: Llama, Vocab: 32000, Hidden: 256, Layers: 6, Heads: 4, KVHeads: 2, Intermediate: 688,
		MaxPositions: 2048, TiedEmbeddings: true, Seed: 32000, PositionIDs: true, Name: "feather-perf",
	}
}
