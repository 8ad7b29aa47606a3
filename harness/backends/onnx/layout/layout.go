// Package layout holds the rules for which files of a Hugging Face ONNX
// export the onnx backend opens: the decoder file names it tries, in
// order, and how a variant picks one. It depends on the standard library
// alone so that the catalog (variant validation) and the hub (what
// `feather pull` fetches) can share the rules without loading ONNX Runtime.
package layout

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// FP32 is the variant that names the unsuffixed file (model.onnx); the
// empty variant means the same.
const FP32 = "fp32"

// bases are the ONNX file names of decoder exports, in the order they are
// tried: transformers.js and optimum write model.onnx (optionally under
// onnx/); optimum's merged decoder carries a use_cache_branch input.
var bases = []string{"model", "onnx/model", "decoder_model_merged", "onnx/decoder_model_merged"}

var (
	variantRE = regexp.MustCompile(`^[a-z0-9]+$`)
	fileRE    = regexp.MustCompile(`^(?:onnx/)?(?:model|decoder_model_merged)(?:_([a-z0-9]+))?\.onnx$`)
)

// ValidVariant reports whether v can name a variant: empty, or a
// lower-case file-name suffix such as fp16, q4, q4f16, quantized or fp32.
func ValidVariant(v string) bool {
	return v == "" || variantRE.MatchString(v)
}

// Candidates returns the slash-separated paths, relative to the model
// folder, that the onnx backend tries for variant, in order; the first
// that exists is opened. Variant "" or FP32 names the unsuffixed files,
// any other <v> the files <base>_<v>.onnx.
func Candidates(variant string) []string {
	suffix := ""
	if variant != "" && variant != FP32 {
		suffix = "_" + variant
	}
	out := make([]string, len(bases))
	for i, b := range bases {
		out[i] = b + suffix + ".onnx"
	}
	return out
}

// Variant reports whether rel (slash-separated, relative to the model
// folder) is a decoder file the backend could open for some variant, and
// which: FP32 for the unsuffixed file.
func Variant(rel string) (variant string, ok bool) {
	m := fileRE.FindStringSubmatch(path.Clean(rel))
	if m == nil {
		return "", false
	}
	if m[1] == "" {
		return FP32, true
	}
	return m[1], true
}

// GenAIConfig is the file onnxruntime-genai's model builder writes beside
// its export (Phi-3's and Phi-4's official ONNX repositories, many
// "-onnx" folders): it names the decoder file, which has the model's own
// name (phi3-mini-4k-instruct-cpu-int4-rtn-block-32.onnx) rather than
// model.onnx.
const GenAIConfig = "genai_config.json"

// GenAIDecoder returns the decoder file a genai_config.json names
// (model.decoder.filename), slash-separated and relative to its folder.
func GenAIDecoder(data []byte) (string, error) {
	var cfg struct {
		Model struct {
			Decoder struct {
				Filename string `json:"filename"`
			} `json:"decoder"`
		} `json:"model"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", fmt.Errorf("not valid JSON: %w", err)
	}
	name := cfg.Model.Decoder.Filename
	switch {
	case name == "":
		return "", fmt.Errorf("model.decoder.filename is missing")
	case !strings.HasSuffix(name, ".onnx") || path.IsAbs(name) || path.Clean(name) != name || strings.HasPrefix(name, ".."):
		return "", fmt.Errorf("model.decoder.filename %q is not a .onnx file inside the folder", name)
	}
	return name, nil
}
