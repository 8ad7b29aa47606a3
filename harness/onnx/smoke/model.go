package smoke

import (
	"fmt"

	"github.com/feather-eval/feather/harness/onnx/corpustok"
	"github.com/feather-eval/feather/harness/onnx/seeded"
)

// The model's shape and seed. testmodel.SmokeConfig describes the same
// model for the reference forward pass, and a test there holds its build
// byte-identical to this package's.
const (
	Vocab        = 2048 // every merge learned from corpustok's corpus
	Hidden       = 128
	Layers       = 4
	Heads        = 4
	KVHeads      = 2 // grouped-query attention
	HeadDim      = Hidden / Heads
	Intermediate = 384
	MaxPositions = 2048
	Seed         = 0xfea7e5
	ropeTheta    = 10000
	normEps      = 1e-5
)

// EOSIDs are generation_config.json's eos_token_id: <|im_end|> ends a
// chat turn too.
func EOSIDs() []int { return []int{corpustok.EOSID, corpustok.IMEndID} }

// onnxFile is where transformers.js exports put the graph.
const onnxFile = "onnx/model.onnx"

// folderFiles renders the model folder: the JSON files, the tokenizer
// files and the ONNX graph, identical on every machine.
func folderFiles() ([]corpustok.File, error) {
	cfg := map[string]any{
		"_name_or_path":           Name,
		"architectures":           []string{"LlamaForCausalLM"},
		"attention_bias":          false,
		"attention_dropout":       0.0,
		"bos_token_id":            corpustok.BOSID,
		"eos_token_id":            corpustok.EOSID,
		"head_dim":                HeadDim,
		"hidden_act":              "silu",
		"hidden_size":             Hidden,
		"initializer_range":       0.02,
		"intermediate_size":       Intermediate,
		"max_position_embeddings": MaxPositions,
		"mlp_bias":                false,
		"model_type":              "llama",
		"num_attention_heads":     Heads,
		"num_hidden_layers":       Layers,
		"num_key_value_heads":     KVHeads,
		"pad_token_id":            corpustok.EOSID,
		"rms_norm_eps":            normEps,
		"rope_scaling":            nil,
		"rope_theta":              ropeTheta,
		"tie_word_embeddings":     true,
		"torch_dtype":             "float32",
		"transformers_version":    transformersVersion,
		"use_cache":               true,
		"vocab_size":              Vocab,
	}
	gen := map[string]any{
		"_from_model_config":   true,
		"bos_token_id":         corpustok.BOSID,
		"eos_token_id":         EOSIDs(),
		"pad_token_id":         corpustok.EOSID,
		"transformers_version": transformersVersion,
	}
	var out []corpustok.File
	for _, f := range []struct {
		name string
		v    any
	}{{"config.json", cfg}, {"generation_config.json", gen}} {
		data, err := corpustok.JSON(f.v)
		if err != nil {
			return nil, fmt.Errorf("smoke: encoding %s: %w", f.name, err)
		}
		out = append(out, corpustok.File{Name: f.name, Data: data})
	}
	tok, err := corpustok.New(Vocab)
	if err != nil {
		return nil, err
	}
	tfiles, err := tok.Files(MaxPositions, corpustok.ChatML)
	if err != nil {
		return nil, err
	}
	out = append(out, tfiles...)
	data, err := graph(weights()).Marshal()
	if err != nil {
		return nil, fmt.Errorf("smoke: encoding %s: %w", onnxFile, err)
	}
	return append(out, corpustok.File{Name: onnxFile, Data: data}), nil
}

// transformersVersion is written where Hugging Face records the version
// that saved a file; loaders ignore it.
const transformersVersion = "4.46.0"

// weights draws every parameter with Hugging Face's names; the LM head is
// the tied embedding.
func weights() map[string]*seeded.Tensor {
	w := map[string]*seeded.Tensor{}
	add := func(name string, init seeded.Init, shape ...int) {
		w[name] = seeded.NewTensor(Seed, name, init, shape...)
	}
	q, kv := Heads*HeadDim, KVHeads*HeadDim
	add(embedName, seeded.Embed, Vocab, Hidden)
	for i := 0; i < Layers; i++ {
		add(layerName(i, "input_layernorm.weight"), seeded.Norm, Hidden)
		add(layerName(i, "self_attn.q_proj.weight"), seeded.Linear, Hidden, q)
		add(layerName(i, "self_attn.k_proj.weight"), seeded.Linear, Hidden, kv)
		add(layerName(i, "self_attn.v_proj.weight"), seeded.Linear, Hidden, kv)
		add(layerName(i, "self_attn.o_proj.weight"), seeded.Linear, q, Hidden)
		add(layerName(i, "post_attention_layernorm.weight"), seeded.Norm, Hidden)
		add(layerName(i, "mlp.gate_proj.weight"), seeded.Linear, Hidden, Intermediate)
		add(layerName(i, "mlp.up_proj.weight"), seeded.Linear, Hidden, Intermediate)
		add(layerName(i, "mlp.down_proj.weight"), seeded.Linear, Intermediate, Hidden)
	}
	add("model.norm.weight", seeded.Norm, Hidden)
	return w
}

const embedName = "model.embed_tokens.weight"

func layerName(i int, rest string) string {
	return fmt.Sprintf("model.layers.%d.%s", i, rest)
}
