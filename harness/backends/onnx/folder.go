package onnx

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/layout"
)

// foundFile is an ONNX decoder file in a model folder.
type foundFile struct {
	Rel     string // relative to the folder
	Variant string // layout.FP32 for the unsuffixed file
}

// locateONNX returns the ONNX file of variant ("" or "fp32" for the
// unsuffixed file) in dir, or an error listing the files the folder has.
func locateONNX(dir, variant string) (string, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", fmt.Errorf("model folder %s does not exist; download a Hugging Face ONNX export there (see the README's \"Running your own models\")", dir)
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", fmt.Errorf("model path %s is a file; it must be the export's folder (holding config.json and the .onnx file)", dir)
	}
	var tried []string
	for _, c := range layout.Candidates(variant) {
		rel := filepath.FromSlash(c)
		tried = append(tried, rel)
		if st, err := os.Stat(filepath.Join(dir, rel)); err == nil && !st.IsDir() {
			return filepath.Join(dir, rel), nil
		}
	}
	if variant == "" || variant == layout.FP32 {
		if file, err := genAIDecoder(dir); file != "" || err != nil {
			return file, err
		}
	}
	found := listONNX(dir)
	if len(found) == 0 {
		return "", fmt.Errorf("%s has no ONNX decoder file (looked for %s) and no Hugging Face checkpoint (model.safetensors or model.safetensors.index.json); download the model's repository, which has one or the other, or export one with `optimum-cli export onnx --task text-generation-with-past`", dir, strings.Join(tried, ", "))
	}
	var names, variants []string
	seen := map[string]bool{}
	for _, f := range found {
		names = append(names, fmt.Sprintf("%s (%s)", f.Rel, f.Variant))
		if !seen[f.Variant] {
			seen[f.Variant] = true
			variants = append(variants, f.Variant)
		}
	}
	want := variant
	if want == "" {
		want = layout.FP32
	}
	return "", fmt.Errorf("%s has no %s variant (looked for %s); it has %s. Set the model's \"variant\" to one of: %s",
		dir, want, strings.Join(tried, ", "), strings.Join(names, ", "), strings.Join(variants, ", "))
}

// genAIDecoder returns the decoder file dir's genai_config.json names, ""
// when the folder has no such file.
func genAIDecoder(dir string) (string, error) {
	cfgPath := filepath.Join(dir, layout.GenAIConfig)
	data, err := os.ReadFile(cfgPath)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", err
	}
	name, err := layout.GenAIDecoder(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", cfgPath, err)
	}
	file := filepath.Join(dir, filepath.FromSlash(name))
	if st, err := os.Stat(file); err != nil || st.IsDir() {
		return "", fmt.Errorf("%s names the decoder %s, which is not in %s; download it (and its .onnx.data) into the folder", cfgPath, name, dir)
	}
	return file, nil
}

// listONNX lists the decoder files in dir and dir/onnx, sorted by path.
func listONNX(dir string) []foundFile {
	var out []foundFile
	for _, sub := range []string{"", "onnx"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range entries {
			v, ok := layout.Variant(path.Join(sub, e.Name()))
			if !ok || e.IsDir() {
				continue
			}
			out = append(out, foundFile{Rel: filepath.Join(sub, e.Name()), Variant: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}
