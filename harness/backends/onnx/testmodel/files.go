package testmodel

import (
	"slices"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/layout"
)

// jsonFiles renders config.json (decoder's, with transformers.js's hints),
// generation_config.json and the tokenizer files.
func (m *Model) jsonFiles() ([]corpustok.File, error) {
	c := m.Config
	folder := decoder.Folder{Name: c.Name, EOSIDs: c.EOSIDs, FP16: c.FP16, Cache: !c.NoPast}
	cfg := folder.ConfigJSON(c.arch(), c.decoder())
	if c.Family != "" {
		cfg["model_type"] = c.Family
		cfg["architectures"] = []string{families[c.Family]}
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
	for _, v := range []string{"fp16", "q4f16"} {
		if slices.Contains(c.Variants, v) {
			kv[v] = "float16"
		}
	}
	if len(kv) > 0 {
		jsCfg["kv_cache_dtype"] = kv
	}
	if len(jsCfg) > 0 {
		cfg["transformers.js_config"] = jsCfg
	}

	out, err := folder.Files(cfg)
	if err != nil {
		return nil, err
	}
	if c.GenAIConfig {
		data, err := corpustok.JSON(map[string]any{"model": map[string]any{
			"type":    cfg["model_type"],
			"decoder": map[string]any{"filename": c.Layout, "num_hidden_layers": c.Layers},
		}})
		if err != nil {
			return nil, err
		}
		out = append(out, corpustok.File{Name: layout.GenAIConfig, Data: data})
	}
	tfiles, err := m.tok.Files(c.MaxPositions, c.ChatTemplate)
	if err != nil {
		return nil, err
	}
	return append(out, tfiles...), nil
}
