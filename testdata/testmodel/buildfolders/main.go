// Command buildfolders writes the model folders listed in
// testdata/testmodel/cases.json into a directory, one per case, for
// scripts/goldens/testmodel.mjs to run through transformers.js.
//
//	go run ./testdata/testmodel/buildfolders OUTDIR
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
)

// Case is one entry of cases.json.
type Case struct {
	Config     testmodel.Config `json:"config"`
	Variant    string           `json:"variant"`
	Batch      bool             `json:"batch"`
	BigramNext map[string]int   `json:"bigram_next"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: buildfolders OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(out string) error {
	data, err := os.ReadFile(filepath.Join("testdata", "testmodel", "cases.json"))
	if err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	var cases map[string]Case
	if err := json.Unmarshal(data, &cases); err != nil {
		return fmt.Errorf("cases.json: %w", err)
	}
	for name, c := range cases {
		dir := filepath.Join(out, name)
		if c.BigramNext == nil {
			if _, err := testmodel.Build(dir, c.Config); err != nil {
				return fmt.Errorf("case %s: %w", name, err)
			}
			continue
		}
		next := map[int]int{}
		for k, v := range c.BigramNext {
			p, err := strconv.Atoi(k)
			if err != nil {
				return fmt.Errorf("case %s: bigram_next key %q is not a token id", name, k)
			}
			next[p] = v
		}
		if _, err := testmodel.BuildBigram(dir, testmodel.BigramConfig{Config: c.Config, Next: next}); err != nil {
			return fmt.Errorf("case %s: %w", name, err)
		}
	}
	return nil
}
