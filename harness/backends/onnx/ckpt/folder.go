package ckpt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// Kind is what a folder holds besides ONNX files.
type Kind int

const (
	// None: no checkpoint weights.
	None Kind = iota
	// Safetensors: config.json with model.safetensors or its index.
	Safetensors
	// Pickle: config.json with PyTorch pickles only (.bin, .pth, .pt).
	Pickle
)

// Detect says whether dir is a checkpoint folder and of which kind.
func Detect(dir string) Kind {
	if _, err := os.Stat(filepath.Join(dir, "config.json")); err != nil {
		return None
	}
	for _, name := range []string{safetensors.SingleFile, safetensors.IndexFile} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			return Safetensors
		}
	}
	if len(pickles(dir)) > 0 {
		return Pickle
	}
	return None
}

// pickles lists the pickled weight files at dir's root, sorted.
func pickles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if !e.IsDir() && safetensors.Pickled(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// PickleError refuses a folder whose weights are pickles only, saying why
// and what to do instead.
func PickleError(dir string) error {
	return fmt.Errorf("%s holds its weights only as PyTorch pickles (%s) and no model.safetensors; feather never loads pickles, since unpickling an untrusted file can run any code. "+
		"Use a revision of the repository that has model.safetensors (the Hub's safetensors conversion bot opens one as a pull request, refs/pr/N: name it as ORG/NAME@refs/pr/N), "+
		"or, if you trust the files, convert them with transformers: AutoModelForCausalLM.from_pretrained(%q).save_pretrained(%q, safe_serialization=True)",
		dir, strings.Join(pickles(dir), ", "), dir, dir+"-safetensors")
}
