package hub

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/layout"
)

// File is one file of a repository at a commit, as the tree listing gives it.
type File struct {
	Path string // slash-separated, relative to the repository root
	Size int64
	// ETag names the blob: the sha256 of an LFS file, else its git blob id.
	ETag string
}

// externalSuffixRE matches the names exporters give the external data of
// an ONNX file F: F_data, F.data, and numbered shards F_data_1, ….
//
// This is a guess by name, and only for choosing files before anything is
// downloaded: the true list is inside F, which is not here yet, and a
// pull plans (and a dry run reports) its whole download up front. After F
// is fetched, Pull reads the list F itself holds (onnxpb.ExternalFiles, as
// the backend does) and fetches what the guess missed.
var externalSuffixRE = regexp.MustCompile(`^(?:_data|\.data)(?:_[0-9]+)?$`)

// fp32 names the unsuffixed ONNX file, as the catalog's "variant" does.
const fp32 = layout.FP32

// CheckVariant refuses a variant the catalog would refuse.
func CheckVariant(v string) error {
	if !layout.ValidVariant(v) {
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

// selectFiles picks from a repository's files what the onnx backend opens for
// variant, in listing order, or says what the repository lacks.
func selectFiles(files []File, variant string) ([]File, error) {
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
	tried := layout.Candidates(variant)
	for _, p := range tried {
		if _, ok := byPath[p]; ok {
			return p, nil
		}
	}
	var found, variants []string
	for p := range byPath {
		v, ok := layout.Variant(p)
		if !ok {
			continue
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
