// Package smoke is feather's built-in model: a tiny deterministic
// Llama-style export (GQA, 4 layers of width 128, a 2048-token vocabulary,
// a ChatML template) written into the feather cache on first use. Its
// numbers measure the harness, not a language model. Its graph, weights
// and config.json are harness/backends/onnx/decoder's Llama at one fixed shape; the
// configurable test models (and the reference forward pass that checks
// them) live in harness/backends/onnx/testmodel, which production code never
// imports.
package smoke

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/feather-eval/feather/harness/backends/onnx/corpustok"
	"github.com/feather-eval/feather/internal/cachedir"
)

// A new version gets a new folder (Dir), so a cached older build is never
// mistaken for the current one.
const (
	Name    = "feather-smoke"
	Version = 3
	// MarkerFile marks a folder as a built-in model and lists its files
	// with their SHA-256, so a reader can check what ran.
	MarkerFile = "feather_builtin.json"
)

// Dir is where the smoke model lives: the feather cache.
func Dir() string {
	return cachedir.Path("models", fmt.Sprintf("%s-v%d", Name, Version))
}

// Builtin is the content of MarkerFile.
type Builtin struct {
	Name        string            `json:"name"`
	Version     int               `json:"version"`
	Smoke       bool              `json:"smoke"`
	Description string            `json:"description"`
	Files       map[string]string `json:"files"` // slash path → SHA-256 (hex)
}

// ReadBuiltin reads dir's marker; it returns nil and no error when dir
// has none (an ordinary model folder).
func ReadBuiltin(dir string) (*Builtin, error) {
	data, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var b Builtin
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, MarkerFile), err)
	}
	return &b, nil
}

// Ensure makes sure dir holds the complete smoke model, building it when
// it does not. The build happens in a temporary folder beside dir, renamed
// into place only when complete, so an interrupted build never leaves a
// half folder, and concurrent callers agree on one result.
func Ensure(dir string) error {
	if complete(dir) {
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists but is not a complete %s v%d model (its %s is missing or does not match its files); remove the folder and run again to rebuild it", dir, Name, Version, MarkerFile)
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("building the smoke model: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return fmt.Errorf("building the smoke model: %w", err)
	}
	defer os.RemoveAll(tmp) // nothing left after a successful rename
	files, err := folderFiles()
	if err != nil {
		return err
	}
	marker := Builtin{
		Name: Name, Version: Version, Smoke: true,
		Description: "Deterministic Llama-style model built by feather from a fixed seed; its scores measure the harness, not a language model.",
		Files:       map[string]string{},
	}
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		marker.Files[f.Name] = hex.EncodeToString(sum[:])
	}
	mdata, err := corpustok.JSON(marker)
	if err != nil {
		return err
	}
	// The marker goes last: a folder with a valid marker is complete.
	if err := corpustok.WriteFiles(tmp, append(files, corpustok.File{Name: MarkerFile, Data: mdata})); err != nil {
		return fmt.Errorf("building the smoke model: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if complete(dir) {
			return nil // another process finished first
		}
		return fmt.Errorf("building the smoke model: %w", err)
	}
	return nil
}

// complete checks the marker and every file it lists.
func complete(dir string) bool {
	b, err := ReadBuiltin(dir)
	if err != nil || b == nil || b.Name != Name || b.Version != Version || len(b.Files) == 0 {
		return false
	}
	names := make([]string, 0, len(b.Files))
	for n := range b.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n)))
		if err != nil {
			return false
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != b.Files[n] {
			return false
		}
	}
	return true
}
