package testmodel

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

	"github.com/feather-eval/feather/harness/cachedir"
)

// The built-in smoke model: its numbers measure the harness, not a
// language model. A new version gets a new folder (SmokeDir), so a cached
// older build is never mistaken for the current one.
const (
	SmokeName    = "feather-smoke"
	SmokeVersion = 1
	// MarkerFile marks a folder as a built-in model and lists its files
	// with their SHA-256, so a reader can check what ran.
	MarkerFile = "feather_builtin.json"
)

// SmokeConfig is the smoke model: Llama-style with GQA, 4 layers of width
// 128, our 2048-token tokenizer (every merge learned from our corpus), a
// ChatML template so chat prompts work too, and <|im_end|> as a second EOS.
func SmokeConfig() Config {
	return Config{
		Arch: Llama, Vocab: 2048, Hidden: 128, Layers: 4, Heads: 4, KVHeads: 2, Intermediate: 384,
		MaxPositions: 2048, TiedEmbeddings: true, Seed: 0xfea7e5, PositionIDs: true,
		ChatTemplate: ChatML, EOSIDs: []int{EOSID, IMEndID}, Name: SmokeName,
	}
}

// PerfFixture is a model about the shape of a small real one (6 layers,
// width 256, GQA, a 32k vocabulary) for benchmarks of the ONNX backend.
func PerfFixture() Config {
	return Config{
		Arch: Llama, Vocab: 32000, Hidden: 256, Layers: 6, Heads: 4, KVHeads: 2, Intermediate: 688,
		MaxPositions: 2048, TiedEmbeddings: true, Seed: 32000, PositionIDs: true, Name: "feather-perf",
	}
}

// SmokeDir is where the smoke model lives: the feather cache.
func SmokeDir() string {
	return cachedir.Path("models", fmt.Sprintf("%s-v%d", SmokeName, SmokeVersion))
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

// Smoke makes sure dir holds the complete smoke model, building it when
// it does not. The build happens in a temporary folder beside dir, renamed
// into place only when complete, so an interrupted build never leaves a
// half folder, and concurrent callers agree on one result.
func Smoke(dir string) error {
	if smokeComplete(dir) {
		return nil
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists but is not a complete %s v%d model (its %s is missing or does not match its files); remove the folder and run again to rebuild it", dir, SmokeName, SmokeVersion, MarkerFile)
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
	m, err := newModel(SmokeConfig().Defaults())
	if err != nil {
		return err
	}
	files, err := m.files()
	if err != nil {
		return err
	}
	marker := Builtin{
		Name: SmokeName, Version: SmokeVersion, Smoke: true,
		Description: "Deterministic Llama-style model built by feather from a fixed seed; its scores measure the harness, not a language model.",
		Files:       map[string]string{},
	}
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		marker.Files[f.name] = hex.EncodeToString(sum[:])
	}
	mdata, err := marshalJSON(marker)
	if err != nil {
		return err
	}
	// The marker goes last: a folder with a valid marker is complete.
	if err := writeFiles(tmp, append(files, file{MarkerFile, mdata})); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if smokeComplete(dir) {
			return nil // another process finished first
		}
		return fmt.Errorf("building the smoke model: %w", err)
	}
	return nil
}

// smokeComplete checks the marker and every file it lists.
func smokeComplete(dir string) bool {
	b, err := ReadBuiltin(dir)
	if err != nil || b == nil || b.Name != SmokeName || b.Version != SmokeVersion || len(b.Files) == 0 {
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
