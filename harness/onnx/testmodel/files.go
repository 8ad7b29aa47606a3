package testmodel

import (
	"fmt"
	"slices"

	"github.com/feather-eval/feather/harness/onnx/corpustok"
)

// transformersVersion is written where Hugging Face records the version
// that saved a file; loaders ignore it.
const transformersVersion = "4.46.0"

// jsonFiles renders config.json, generation_config.json and the tokenizer
// files with Hugging Face's field names (sorted keys, as transformers
// writes them).
func (m *Model) jsonFiles() ([]file, error) {
	c := m.Config
	dtype := "float32"
	if c.FP16 {
		dtype = "float16"
	}
	cfg := map[string]any{
		"bos_token_id":         BOSID,
		"eos_token_id":         c.EOSIDs[0],
		"pad_token_id":         EOSID,
		"vocab_size":           c.Vocab,
		"tie_word_embeddings":  c.TiedEmbeddings,
		"torch_dtype":          dtype,
		"use_cache":            !c.NoPast,
		"transformers_version": transformersVersion,
		"initializer_range":    0.02,
	}
	if c.Name != "" {
		cfg["_name_or_path"] = c.Name
	}
	switch c.Arch {
	case Llama:
		cfg["architectures"] = []string{"LlamaForCausalLM"}
		cfg["model_type"] = "llama"
		cfg["hidden_size"] = c.Hidden
		cfg["intermediate_size"] = c.Intermediate
		cfg["num_hidden_layers"] = c.Layers
		cfg["num_attention_heads"] = c.Heads
		cfg["num_key_value_heads"] = c.KVHeads
		cfg["head_dim"] = c.HeadDim
		cfg["hidden_act"] = "silu"
		cfg["max_position_embeddings"] = c.MaxPositions
		cfg["rms_norm_eps"] = c.NormEps
		cfg["rope_theta"] = c.RopeTheta
		cfg["rope_scaling"] = nil
		cfg["attention_bias"] = false
		cfg["attention_dropout"] = 0.0
		cfg["mlp_bias"] = false
	case GPT2:
		// GPT-2's config.json uses its own names (n_embd, n_layer, …);
		// transformers maps hidden_size and friends onto them.
		cfg["architectures"] = []string{"GPT2LMHeadModel"}
		cfg["model_type"] = "gpt2"
		cfg["n_embd"] = c.Hidden
		cfg["n_layer"] = c.Layers
		cfg["n_head"] = c.Heads
		cfg["n_inner"] = c.Intermediate
		cfg["n_positions"] = c.MaxPositions
		cfg["n_ctx"] = c.MaxPositions
		cfg["activation_function"] = "gelu"
		cfg["layer_norm_epsilon"] = c.NormEps
		cfg["resid_pdrop"] = 0.0
		cfg["embd_pdrop"] = 0.0
		cfg["attn_pdrop"] = 0.0
	}
	// transformers.js reads these hints, as onnx-community exports write
	// them: which files have external data, and which dtypes (file
	// suffixes) keep their cache in float16.
	jsCfg := map[string]any{}
	if c.ExternalData {
		jsCfg["use_external_data_format"] = true
	}
	kv := map[string]any{}
	if c.FP16 {
		kv["fp32"] = "float16" // the unsuffixed file is the float16 one
	}
	if slices.Contains(c.Variants, "fp16") {
		kv["fp16"] = "float16"
	}
	if len(kv) > 0 {
		jsCfg["kv_cache_dtype"] = kv
	}
	if len(jsCfg) > 0 {
		cfg["transformers.js_config"] = jsCfg
	}

	gen := map[string]any{
		"_from_model_config":   true,
		"bos_token_id":         BOSID,
		"pad_token_id":         EOSID,
		"transformers_version": transformersVersion,
	}
	if len(c.EOSIDs) == 1 {
		gen["eos_token_id"] = c.EOSIDs[0]
	} else {
		gen["eos_token_id"] = c.EOSIDs
	}

	var out []file
	for _, f := range []struct {
		name string
		v    any
	}{
		{"config.json", cfg},
		{"generation_config.json", gen},
	} {
		data, err := corpustok.JSON(f.v)
		if err != nil {
			return nil, fmt.Errorf("testmodel: encoding %s: %w", f.name, err)
		}
		out = append(out, file{f.name, data})
	}
	tfiles, err := m.tok.Files(c.MaxPositions, c.ChatTemplate)
	if err != nil {
		return nil, err
	}
	for _, f := range tfiles {
		out = append(out, file{f.Name, f.Data})
	}
	return out, nil
}
