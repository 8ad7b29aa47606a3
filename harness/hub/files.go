package hub

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// File is one file of a repository at a commit, as the tree listing gives it.
type File struct {
	Path string // slash-separated, relative to the repository root
	Size int64
	// ETag names the blob: the sha256 of an LFS file, else its git blob id.
	ETag string
}

// The rules below mirror harness/onnx's locateONNX and checkExternalData
// and the catalog's "variant" check, which are not exported; keep them in
// step (TestPulledSnapshotOpens in cmd/feather opens pulled variants with
// the onnx backend to hold them together).
var (
	// onnxBases are tried in this order for a variant.
	onnxBases = []string{"model", "onnx/model", "decoder_model_merged", "onnx/decoder_model_merged"}
	onnxRE    = regexp.MustCompile(`^(?:onnx/)?(?:model|decoder_model_merged)(?:_([a-z0-9]+))?\.onnx$`)
	variantRE = regexp.MustCompile(`^[a-z0-9]+$`)
	// externalRE matches the external data files exporters write beside
	// an ONNX file F: F_data, F.data, and numbered shards F_data_1, ….
	externalSuffixRE = regexp.MustCompile(`^(?:_data|\.data)(?:_[0-9]+)?$`)
)

// fp32 names the unsuffixed ONNX file, as the catalog's "variant" does.
const fp32 = "fp32"

// CheckVariant refuses a variant the catalog would refuse.
func CheckVariant(v string) error {
	if v != "" && !variantRE.MatchString(v) {
		return fmt.Errorf("variant %q is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16 (or fp32 for the unsuffixed file)", v)
	}
	return nil
}

// rootFiles are read from the folder's root by the tokenizer, the chat
// template loader and the onnx backend when present.
var rootFiles = []string{
	"config.json", "generation_config.json",
	"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json",
	"chat_template.json", "chat_template.jinja",
}

// onnxCandidates is the ordered list of paths the onnx backend tries for
// variant ("" or fp32 for the unsuffixed file).
func onnxCandidates(variant string) []string {
	suffix := ""
	if variant != "" && variant != fp32 {
		suffix = "_" + variant
	}
	out := make([]string, len(onnxBases))
	for i, b := range onnxBases {
		out[i] = b + suffix + ".onnx"
	}
	return out
}

// Select picks from a repository's files what the onnx backend opens for
// variant, in listing order, or says what the repository lacks.
func Select(files []File, variant string) ([]File, error) {
	if err := CheckVariant(variant); err != nil {
		return nil, err
	}
	byPath := map[string]File{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	want := map[string]bool{}
	for _, p := range rootFiles {
		if _, ok := byPath[p]; ok {
			want[p] = true
		}
	}
	if !want["config.json"] {
		return nil, fmt.Errorf("no config.json at the repository's root; it is not a model export the onnx backend can open")
	}
	if !want["tokenizer.json"] {
		_, v := byPath["vocab.json"]
		_, m := byPath["merges.txt"]
		if !v || !m {
			return nil, fmt.Errorf("no tokenizer.json (nor vocab.json with merges.txt) at the repository's root; the onnx backend needs the tokenizer")
		}
		want["vocab.json"], want["merges.txt"] = true, true
	}
	for p := range byPath {
		if strings.HasPrefix(p, "additional_chat_templates/") && strings.HasSuffix(p, ".jinja") {
			want[p] = true
		}
	}
	model, err := pickONNX(byPath, variant)
	if err != nil {
		return nil, err
	}
	want[model] = true
	dir, base := path.Split(model)
	for p := range byPath {
		if d, b := path.Split(p); d == dir && strings.HasPrefix(b, base) && externalSuffixRE.MatchString(b[len(base):]) {
			want[p] = true
		}
	}
	var out []File
	for _, f := range files {
		if want[f.Path] {
			out = append(out, f)
			delete(want, f.Path) // a path listed twice is fetched once
		}
	}
	return out, nil
}

// pickONNX returns the first candidate of variant present, or an error
// listing the variants the repository has.
func pickONNX(byPath map[string]File, variant string) (string, error) {
	tried := onnxCandidates(variant)
	for _, p := range tried {
		if _, ok := byPath[p]; ok {
			return p, nil
		}
	}
	var found, variants []string
	for p := range byPath {
		m := onnxRE.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		v := m[1]
		if v == "" {
			v = fp32
		}
		found = append(found, fmt.Sprintf("%s (%s)", p, v))
		if !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	if len(found) == 0 {
		return "", fmt.Errorf("no ONNX decoder file (looked for %s); pick a repository with an onnx/ folder, such as one from onnx-community", strings.Join(tried, ", "))
	}
	slices.Sort(found)
	slices.Sort(variants)
	want := variant
	if want == "" {
		want = fp32
	}
	return "", fmt.Errorf("no %s variant (looked for %s); it has %s. Choose one (--variant, or a catalog entry's \"variant\") of: %s",
		want, strings.Join(tried, ", "), strings.Join(found, ", "), strings.Join(variants, ", "))
}
