package hub

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/layout"
	"github.com/feather-eval/feather/harness/backends/safetensors"
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
// variant, in listing order, or says what the repository lacks: an ONNX
// decoder and its data when the repository has one, else a safetensors
// checkpoint.
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
	switch {
	case err == nil:
		want[model] = true
		dir, base := path.Split(model)
		for p := range byPath {
			if d, b := path.Split(p); d == dir && strings.HasPrefix(b, base) && externalSuffixRE.MatchString(b[len(base):]) {
				want[p] = true
			}
		}
	case variant != "" && variant != fp32:
		if _, ok := pickCheckpoint(byPath); ok && !hasONNX(byPath) {
			return nil, fmt.Errorf("no ONNX files, so no %s variant: the repository is a safetensors checkpoint, which runs without a variant (in float32, or float16 with a catalog entry's \"dtype\")", variant)
		}
		return nil, err
	default:
		weights, ok := pickCheckpoint(byPath)
		if !ok {
			return nil, noWeights(byPath, err)
		}
		for _, p := range weights {
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

// shardRE matches the shards save_pretrained writes beside its index.
var shardRE = regexp.MustCompile(`^model-[0-9]+-of-[0-9]+\.safetensors$`)

// pickCheckpoint picks a Hugging Face checkpoint's weights, as the onnx
// backend opens a folder without ONNX files: model.safetensors, or else
// model.safetensors.index.json with the shards beside it (by their names
// here; once the index has arrived, Pull fetches whatever else it names).
// Other weight formats (.bin and .pth pickles, .gguf, .h5, .msgpack) are
// never chosen.
func pickCheckpoint(byPath map[string]File) ([]string, bool) {
	if _, ok := byPath[safetensors.SingleFile]; ok {
		return []string{safetensors.SingleFile}, true
	}
	if _, ok := byPath[safetensors.IndexFile]; !ok {
		return nil, false
	}
	out := []string{safetensors.IndexFile}
	for p := range byPath {
		if shardRE.MatchString(p) {
			out = append(out, p)
		}
	}
	return out, true
}

// hasONNX reports whether any decoder file of any variant is there.
func hasONNX(byPath map[string]File) bool {
	for p := range byPath {
		if _, ok := layout.Variant(p); ok {
			return true
		}
	}
	return false
}

// pickleFiles are the root files holding PyTorch pickles, sorted.
func pickleFiles(byPath map[string]File) []string {
	var out []string
	for p := range byPath {
		if !strings.Contains(p, "/") && safetensors.Pickled(p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// noWeights explains a repository with no ONNX decoder of the variant
// asked for and no safetensors checkpoint; noONNX is pickONNX's error.
func noWeights(byPath map[string]File, noONNX error) error {
	if pickles := pickleFiles(byPath); len(pickles) > 0 && !hasONNX(byPath) {
		return fmt.Errorf("the repository has its weights only as PyTorch pickles (%s), and feather never loads pickles: unpickling an untrusted file can run any code. "+
			"Pull a revision that has model.safetensors (the Hub's safetensors conversion bot opens one as a pull request: ORG/NAME@refs/pr/N), or one with an onnx/ folder", strings.Join(pickles, ", "))
	}
	if hasONNX(byPath) {
		return noONNX // it lists the variants there are
	}
	return fmt.Errorf("no ONNX decoder file (looked for %s) and no safetensors checkpoint (%s or %s); pick a repository that has either, such as one from onnx-community or the model's own",
		strings.Join(layout.Candidates(""), ", "), safetensors.SingleFile, safetensors.IndexFile)
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
