package decoder

import (
	"fmt"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
)

// transformersVersion is written where Hugging Face records the version
// that saved a file; loaders ignore it.
const transformersVersion = "4.46.0"

// Folder is what a model folder's JSON files say beyond the shape.
type Folder struct {
	Name   string // config.json's _name_or_path; omitted when empty
	EOSIDs []int  // generation_config.json's eos_token_id; config.json gets the first
	FP16   bool   // torch_dtype float16: the main file stores float16 (else Config.DType, float32 when unset)
	Cache  bool   // use_cache: the main file has past_key_values
}

// ConfigJSON is config.json with Hugging Face's field names (encode it
// with corpustok.JSON: sorted keys, as transformers writes them).
func (f Folder) ConfigJSON(a Arch, c Config) map[string]any {
	dtype := "float32"
	if c.DType != "" {
		dtype = c.DType
	}
	if f.FP16 {
		dtype = "float16"
	}
	cfg := map[string]any{
		"bos_token_id":         corpustok.BOSID,
		"eos_token_id":         f.EOSIDs[0],
		"pad_token_id":         corpustok.EOSID,
		"vocab_size":           c.Vocab,
		"tie_word_embeddings":  c.TiedEmbeddings,
		"torch_dtype":          dtype,
		"use_cache":            f.Cache,
		"transformers_version": transformersVersion,
		"initializer_range":    0.02,
	}
	if f.Name != "" {
		cfg["_name_or_path"] = f.Name
	}
	a.ConfigFields(c, cfg)
	return cfg
}

// GenerationConfigJSON is generation_config.json.
func (f Folder) GenerationConfigJSON() map[string]any {
	gen := map[string]any{
		"_from_model_config":   true,
		"bos_token_id":         corpustok.BOSID,
		"pad_token_id":         corpustok.EOSID,
		"transformers_version": transformersVersion,
	}
	if len(f.EOSIDs) == 1 {
		gen["eos_token_id"] = f.EOSIDs[0]
	} else {
		gen["eos_token_id"] = f.EOSIDs
	}
	return gen
}

// Files encodes cfg (ConfigJSON's map, perhaps with fields added) as
// config.json and GenerationConfigJSON as generation_config.json.
func (f Folder) Files(cfg map[string]any) ([]corpustok.File, error) {
	var out []corpustok.File
	for _, j := range []struct {
		name string
		v    any
	}{{"config.json", cfg}, {"generation_config.json", f.GenerationConfigJSON()}} {
		data, err := corpustok.JSON(j.v)
		if err != nil {
			return nil, fmt.Errorf("decoder: encoding %s: %w", j.name, err)
		}
		out = append(out, corpustok.File{Name: j.name, Data: data})
	}
	return out, nil
}
