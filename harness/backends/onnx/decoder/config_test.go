package decoder_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// Real config.json files of the models the decoder is for, as the Hub
// serves them, read into the graph's family and shape.
func TestRealConfigs(t *testing.T) {
	tests := []struct {
		model string
		json  string
		arch  decoder.Arch
		want  decoder.Config
	}{
		{"HuggingFaceTB/SmolLM2-135M", `{
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 0, "eos_token_id": 0,
  "hidden_act": "silu", "hidden_size": 576, "initializer_range": 0.041666666666666664, "intermediate_size": 1536,
  "is_llama_config": true, "max_position_embeddings": 8192, "mlp_bias": false, "model_type": "llama",
  "num_attention_heads": 9, "num_hidden_layers": 30, "num_key_value_heads": 3, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_interleaved": false, "rope_scaling": null, "rope_theta": 100000, "tie_word_embeddings": true,
  "torch_dtype": "bfloat16", "transformers_version": "4.40.1", "use_cache": true, "vocab_size": 49152}`,
			decoder.Llama, decoder.Config{Vocab: 49152, Hidden: 576, Layers: 30, Heads: 9, KVHeads: 3, HeadDim: 64, Intermediate: 1536,
				MaxPositions: 8192, TiedEmbeddings: true, RopeTheta: 100000, NormEps: 1e-5, HiddenAct: "silu", DType: "bfloat16"}},
		{"meta-llama/Llama-3.2-1B", `{
  "architectures": ["LlamaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 128000,
  "eos_token_id": 128001, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 8192, "max_position_embeddings": 131072, "mlp_bias": false, "model_type": "llama",
  "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0",
  "use_cache": true, "vocab_size": 128256}`,
			decoder.Llama, decoder.Config{Vocab: 128256, Hidden: 2048, Layers: 16, Heads: 32, KVHeads: 8, HeadDim: 64, Intermediate: 8192,
				MaxPositions: 131072, TiedEmbeddings: true, RopeTheta: 500000, NormEps: 1e-5, HiddenAct: "silu", DType: "bfloat16",
				RopeScaling: &decoder.RopeScaling{Type: "llama3", Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalMaxPositions: 8192}}},
		{"Qwen/Qwen2.5-0.5B", `{
  "architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 151643, "eos_token_id": 151643,
  "hidden_act": "silu", "hidden_size": 896, "initializer_range": 0.02, "intermediate_size": 4864,
  "max_position_embeddings": 32768, "max_window_layers": 24, "model_type": "qwen2", "num_attention_heads": 14,
  "num_hidden_layers": 24, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
  "sliding_window": 32768, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "transformers_version": "4.40.1",
  "use_cache": true, "use_mrope": false, "use_sliding_window": false, "vocab_size": 151936}`,
			decoder.Qwen2, decoder.Config{Vocab: 151936, Hidden: 896, Layers: 24, Heads: 14, KVHeads: 2, HeadDim: 64, Intermediate: 4864,
				MaxPositions: 32768, TiedEmbeddings: true, RopeTheta: 1e6, NormEps: 1e-6, HiddenAct: "silu", AttentionBias: true, DType: "bfloat16"}},
		{"Qwen/Qwen3-0.6B", `{
  "architectures": ["Qwen3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 151643,
  "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu", "hidden_size": 1024, "initializer_range": 0.02,
  "intermediate_size": 3072, "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
  "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_scaling": null,
  "rope_theta": 1000000, "sliding_window": null, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
  "transformers_version": "4.51.0", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936}`,
			decoder.Qwen3, decoder.Config{Vocab: 151936, Hidden: 1024, Layers: 28, Heads: 16, KVHeads: 8, HeadDim: 128, Intermediate: 3072,
				MaxPositions: 40960, TiedEmbeddings: true, RopeTheta: 1e6, NormEps: 1e-6, HiddenAct: "silu", DType: "bfloat16"}},
		{"openai-community/gpt2", `{
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1, "bos_token_id": 50256,
  "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2",
  "n_ctx": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1,
  "summary_activation": null, "summary_first_dropout": 0.1, "summary_proj_to_labels": true, "summary_type": "cls_index",
  "summary_use_proj": true, "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257}`,
			decoder.GPT2, decoder.Config{Vocab: 50257, Hidden: 768, Layers: 12, Heads: 12, KVHeads: 12, HeadDim: 64, Intermediate: 3072,
				MaxPositions: 1024, TiedEmbeddings: true, NormEps: 1e-5, HiddenAct: "gelu_new", AttentionBias: true}},
		{"EleutherAI/pythia-70m", `{
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu", "hidden_size": 512,
  "initializer_range": 0.02, "intermediate_size": 2048, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
  "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6, "rotary_emb_base": 10000, "rotary_pct": 0.25,
  "tie_word_embeddings": false, "torch_dtype": "float16", "transformers_version": "4.24.0", "use_cache": true,
  "use_parallel_residual": true, "vocab_size": 50304}`,
			decoder.GPTNeoX, decoder.Config{Vocab: 50304, Hidden: 512, Layers: 6, Heads: 8, KVHeads: 8, HeadDim: 64, Intermediate: 2048,
				MaxPositions: 2048, RopeTheta: 10000, NormEps: 1e-5, HiddenAct: "gelu", RotaryDims: 16, ParallelResidual: true,
				AttentionBias: true, DType: "float16"}},
		{"google/gemma-3-1b-pt", `{
  "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "attn_logit_softcapping": null,
  "bos_token_id": 2, "cache_implementation": "hybrid", "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 1152, "initializer_range": 0.02, "intermediate_size": 6912,
  "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 26,
  "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
  "rope_local_base_freq": 10000, "rope_scaling": null, "rope_theta": 1000000, "sliding_window": 512,
  "sliding_window_pattern": 6, "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0", "use_cache": true,
  "vocab_size": 262144}`,
			decoder.Gemma3, decoder.Config{Vocab: 262144, Hidden: 1152, Layers: 26, Heads: 4, KVHeads: 1, HeadDim: 256, Intermediate: 6912,
				MaxPositions: 32768, TiedEmbeddings: true, RopeTheta: 1e6, LocalRopeTheta: 10000, NormEps: 1e-6, HiddenAct: "gelu_pytorch_tanh",
				DType: "bfloat16", QueryPreAttnScalar: 256, SlidingWindow: 512, SlidingLayers: every6th(26)}},
		{"google/gemma-3-270m", `{
  "_sliding_window_pattern": 6, "architectures": ["Gemma3ForCausalLM"], "attention_bias": false, "attention_dropout": 0.0,
  "attn_logit_softcapping": null, "bos_token_id": 2, "eos_token_id": 1, "final_logit_softcapping": null, "head_dim": 256,
  "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 640, "initializer_range": 0.02, "intermediate_size": 2048,
  "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention",
    "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
  "max_position_embeddings": 32768, "model_type": "gemma3_text", "num_attention_heads": 4, "num_hidden_layers": 18,
  "num_key_value_heads": 1, "pad_token_id": 0, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06,
  "rope_local_base_freq": 10000.0, "rope_scaling": null, "rope_theta": 1000000.0, "sliding_window": 512,
  "torch_dtype": "bfloat16", "transformers_version": "4.55.0.dev0", "use_bidirectional_attention": false, "use_cache": true,
  "vocab_size": 262144}`,
			decoder.Gemma3, decoder.Config{Vocab: 262144, Hidden: 640, Layers: 18, Heads: 4, KVHeads: 1, HeadDim: 256, Intermediate: 2048,
				MaxPositions: 32768, TiedEmbeddings: true, RopeTheta: 1e6, LocalRopeTheta: 10000, NormEps: 1e-6, HiddenAct: "gelu_pytorch_tanh",
				DType: "bfloat16", QueryPreAttnScalar: 256, SlidingWindow: 512, SlidingLayers: every6th(18)}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			a, c, err := decoder.FromConfigJSON([]byte(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.arch, a)
			assert.Equal(t, tt.want, c)
		})
	}
}

// every6th is Gemma 3's layer pattern: five sliding-window layers, then
// a global one.
func every6th(layers int) []bool {
	out := make([]bool, layers)
	for i := range out {
		out[i] = (i+1)%6 != 0
	}
	return out
}

// Gemma's embedding scale is √hidden in the weights' type.
func TestEmbedScale(t *testing.T) {
	for _, tt := range []struct {
		hidden int
		dtype  string
		want   float32
	}{
		{1152, "bfloat16", 34},
		{3072, "bfloat16", 55.5},
		{1152, "float32", 33.941125},
		{1152, "", 33.941125},
		{1152, "float16", 33.9375},
		{640, "bfloat16", 25.25},
	} {
		assert.Equal(t, tt.want, decoder.EmbedScale(decoder.Config{Hidden: tt.hidden, DType: tt.dtype}), "%d %s", tt.hidden, tt.dtype)
	}
}

// What transformers 5 writes: the RoPE settings in rope_parameters, the
// weight type in dtype.
func TestTransformers5Config(t *testing.T) {
	a, c, err := decoder.FromConfigJSON([]byte(`{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4,
		"rope_parameters": {"rope_type": "default", "rope_theta": 20000, "partial_rotary_factor": 0.5}, "dtype": "bfloat16"}`))
	require.NoError(t, err)
	assert.Equal(t, decoder.GPTNeoX, a)
	assert.Equal(t, 20000.0, c.RopeTheta)
	assert.Equal(t, 8, c.RotaryDims)
	assert.Equal(t, "bfloat16", c.DType)
	assert.Nil(t, c.RopeScaling)

	_, c, err = decoder.FromConfigJSON([]byte(`{"model_type": "llama", "rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}}`))
	require.NoError(t, err)
	assert.Equal(t, &decoder.RopeScaling{Type: "linear", Factor: 2}, c.RopeScaling)
}

// A config.json without model_type is known by its architectures.
func TestModelTypeFromArchitectures(t *testing.T) {
	a, _, err := decoder.FromConfigJSON([]byte(`{"architectures": ["Qwen3ForCausalLM"], "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16}`))
	require.NoError(t, err)
	assert.Equal(t, decoder.Qwen3, a)
}

// The export command every refusal of an unsupported model offers.
const export = "Export the model to ONNX instead: optimum-cli export onnx --model <id> --task text-generation-with-past <dir>"

func TestConfigRefusals(t *testing.T) {
	tests := []struct {
		json, want string
	}{
		{`{"model_type": "mamba"}`, `config.json: model_type "mamba" is not an architecture feather builds; it builds llama, qwen2, qwen3, gpt2, gpt_neox, gemma3_text. ` + export},
		{`{"vocab_size": 10}`, "config.json: model_type is missing; feather builds llama, qwen2, qwen3, gpt2, gpt_neox, gemma3_text. Export other models to ONNX: optimum-cli export onnx --model <id> --task text-generation-with-past <dir>"},
		{`{"model_type": 3}`, "config.json: model_type: want a string, got 3"},
		{`{"model_type": "llama", "architectures": ["LlamaForSequenceClassification"]}`, "config.json: architectures: want [LlamaForCausalLM], llama's language model, got LlamaForSequenceClassification"},
		{`{"model_type": "llama", "architectures": "LlamaForCausalLM"}`, "config.json: architectures: want a list of strings, got LlamaForCausalLM"},
		{`{"model_type": "llama", "rope_scaling": {"rope_type": "yarn", "factor": 4}}`, `config.json: rope_scaling.rope_type: "yarn" RoPE scaling is not built; feather builds default, linear and llama3. ` + export},
		{`{"model_type": "llama", "rope_scaling": {"type": "dynamic", "factor": 2}}`, `config.json: rope_scaling.rope_type: "dynamic" RoPE scaling is not built; feather builds default, linear and llama3. ` + export},
		{`{"model_type": "llama", "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 1, "high_freq_factor": 4}}`, "config.json: rope_scaling.original_max_position_embeddings: want a number, got <nil>"},
		{`{"model_type": "llama", "rope_scaling": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 1, "original_max_position_embeddings": 8192}}`, "config.json: rope_scaling.high_freq_factor: want more than low_freq_factor 4, got 1"},
		{`{"model_type": "llama", "rope_scaling": {"factor": 2}}`, "config.json: rope_scaling.rope_type: want default, linear or llama3, got <nil>"},
		{`{"model_type": "llama", "rope_scaling": "linear"}`, "config.json: rope_scaling: want an object, got linear"},
		{`{"model_type": "llama", "partial_rotary_factor": 0.5}`, "config.json: partial_rotary_factor: 0.5: partial rotary embeddings are built for gpt_neox only. " + export},
		{`{"model_type": "qwen2", "use_sliding_window": true}`, "config.json: use_sliding_window: qwen2 with sliding-window attention is not built. " + export},
		{`{"model_type": "qwen3", "layer_types": ["full_attention", "sliding_attention"]}`, "config.json: layer_types: sliding-window attention layers are built for gemma3_text only. " + export},
		{`{"model_type": "qwen2", "use_mrope": true}`, "config.json: use_mrope: multimodal RoPE (Qwen2-VL) is not built. " + export},
		{`{"model_type": "llama", "hidden_act": "selu"}`, `config.json: hidden_act: activation "selu" is not built; feather builds gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, quick_gelu, relu, silu, swish. ` + export},
		{`{"model_type": "gpt2", "add_cross_attention": true}`, "config.json: add_cross_attention: GPT-2 with cross-attention is an encoder-decoder's half, not a language model. " + export},
		{`{"model_type": "llama", "torch_dtype": "float8_e4m3fn"}`, `config.json: torch_dtype: "float8_e4m3fn" weights are not read; feather reads float32, float16 and bfloat16. ` + export},
		{`{"model_type": "llama", "quantization_config": {"quant_method": "gptq", "bits": 4}}`, "config.json: quantization_config: a gptq-quantized checkpoint is not read; use the unquantized model. " + export},
		{`{"model_type": "llama", "hidden_size": 64.5}`, "config.json: hidden_size: want an integer, got 64.5"},
		{`{"model_type": "llama", "num_hidden_layers": 0}`, "config.json: num_hidden_layers: want a positive integer, got 0"},
		{`{"model_type": "llama", "rms_norm_eps": -1}`, "config.json: rms_norm_eps: want a positive number, got -1"},
		{`{"model_type": "llama", "hidden_size": 100, "num_attention_heads": 3}`, "config.json: hidden_size 100 is not a multiple of num_attention_heads 3"},
		{`{"model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 5}`, "config.json: num_attention_heads 32 is not a multiple of num_key_value_heads 5"},
		{`{"model_type": "llama", "hidden_size": 60, "num_attention_heads": 4}`, "config.json: head_dim: RoPE turns pairs of dims; want an even head size, got 15"},
		{`{"model_type": "gpt2", "n_embd": 100, "n_head": 3}`, "config.json: n_embd 100 is not a multiple of n_head 3"},
		{`{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, "rotary_pct": 0.1}`, "config.json: rotary_pct: turns 1 of each head's 16 dims; RoPE needs an even number from 2 to the head size, got 0.1"},
		{`{"model_type": "qwen3", "tie_word_embeddings": "yes"}`, "config.json: tie_word_embeddings: want true or false, got yes"},
		{`{"model_type": "llama", "layer_types": "full"}`, "config.json: layer_types: want a list of strings, got full"},
		{`{"model_type": "gemma3_text", "final_logit_softcapping": 30}`, "config.json: final_logit_softcapping: soft-capping (30) is not built. " + export},
		{`{"model_type": "gemma3_text", "use_bidirectional_attention": true}`, "config.json: use_bidirectional_attention: bidirectional attention is an encoder's, not a language model's. " + export},
		{`{"model_type": "gemma3_text", "num_hidden_layers": 2, "layer_types": ["full_attention"]}`, "config.json: layer_types: want one entry for each of the 2 layers, got 1 entries"},
		{`{"model_type": "gemma3_text", "num_hidden_layers": 2, "layer_types": ["full_attention", "chunked_attention"]}`, "config.json: layer_types: want sliding_attention or full_attention, got chunked_attention"},
		{`{"model_type": "gemma3_text", "sliding_window": null}`, "config.json: sliding_window: want the window of the sliding_attention layers, got <nil>"},
		{`{"model_type": "gemma3_text", "rope_parameters": {"full_attention": {"rope_theta": 1e6}, "sliding_attention": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}}}`,
			"config.json: rope_parameters.sliding_attention.rope_type: scaled RoPE in sliding-window layers is not built. " + export},
		{`not json`, "config.json: invalid character 'o' in literal null (expecting 'u')"},
	}
	for _, tt := range tests {
		_, _, err := decoder.FromConfigJSON([]byte(tt.json))
		assert.EqualError(t, err, tt.want, tt.json)
	}
}

// config.json written for a Config reads back as that Config, for every
// family and option: what the test models and random checkpoints write is
// what a checkpoint's loader builds.
func TestConfigRoundTrip(t *testing.T) {
	for _, tc := range archCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cfg
			c.Seed = 0
			cfg := decoder.Folder{EOSIDs: []int{0}}.ConfigJSON(tc.arch, c)
			data, err := corpustok.JSON(cfg)
			require.NoError(t, err)
			a, got, err := decoder.FromConfigJSON(data)
			require.NoError(t, err)
			assert.Equal(t, tc.arch, a)
			want := c
			if want.DType == "" {
				want.DType = "float32"
			}
			if want.HiddenAct == "" {
				want.HiddenAct = map[string]string{"llama": "silu", "qwen2": "silu", "qwen3": "silu", "gpt2": "gelu_new", "gpt_neox": "gelu", "gemma3_text": "gelu_pytorch_tanh"}[a.ModelType()]
			}
			assert.Equal(t, want, got)
			var back map[string]any
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, tc.arch.ModelType(), back["model_type"])
		})
	}
}
