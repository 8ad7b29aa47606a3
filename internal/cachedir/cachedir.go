// Package cachedir says where feather keeps what `make deps` provisions
// (ONNX Runtime, tokenizer packages, built-in models). scripts/deps.sh uses
// the same rules, so the harness finds exactly what the script wrote.
package cachedir

import (
	"os"
	"path/filepath"
)

// Env is the variable that overrides the cache location.
const Env = "FEATHER_CACHE"

// Dir returns $FEATHER_CACHE, else $XDG_CACHE_HOME/feather, else
// $HOME/.cache/feather.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "feather")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".cache", "feather")
	}
	return filepath.Join(os.TempDir(), "feather-cache")
}

// Path joins elements under the cache directory.
func Path(elem ...string) string {
	return filepath.Join(append([]string{Dir()}, elem...)...)
}
