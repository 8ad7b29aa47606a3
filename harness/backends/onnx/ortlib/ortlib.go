// Package ortlib finds and loads ONNX Runtime's shared library. It applies
// the same rules as scripts/deps.sh: ONNXRUNTIME_LIB wins; otherwise the
// library `make deps` unpacked from the pinned onnxruntime-node package.
package ortlib

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/internal/cachedir"
)

const (
	// Env overrides the library path.
	Env = "ONNXRUNTIME_LIB"
	// PackageVersion is the onnxruntime-node release scripts/deps.sh pins.
	PackageVersion = "1.24.3"
	// MinAPI is the C API version onnxruntime_go v1.27 asks for (ORT 1.24).
	MinAPI = 24
	// fileName is the library's name inside the npm package.
	fileName = "libonnxruntime.so.1"
)

// DefaultPath is where `make deps` puts the library.
func DefaultPath() string {
	return cachedir.Path("onnxruntime", PackageVersion, fileName)
}

// Locate returns the library path, or an error that says how to get one.
// getenv is os.Getenv in production and a map in tests.
func Locate(getenv func(string) string) (string, error) {
	if p := getenv(Env); p != "" {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return "", fmt.Errorf("%s=%s: no such file. Point %s at libonnxruntime.so.1 from ONNX Runtime >= 1.24, or unset it to use the library `make deps` provisions at %s", Env, p, Env, DefaultPath())
		case st.IsDir():
			return "", fmt.Errorf("%s=%s is a directory; it must name the library file itself (…/libonnxruntime.so.1)", Env, p)
		}
		return p, nil
	}
	p := DefaultPath()
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("ONNX Runtime library not found at %s. Run `make deps` (it unpacks it from the onnxruntime-node %s npm package), or set %s to libonnxruntime.so.1 from ONNX Runtime >= 1.24", p, PackageVersion, Env)
	}
	return p, nil
}

var (
	mu      sync.Mutex
	loaded  string
	version string
)

// Init loads the library once per process. A failed attempt is not cached,
// so a caller may fix the path and try again.
func Init() error {
	mu.Lock()
	defer mu.Unlock()
	if loaded != "" {
		return nil
	}
	p, err := Locate(os.Getenv)
	if err != nil {
		return err
	}
	ort.SetSharedLibraryPath(p)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return explain(p, err)
	}
	loaded, version = p, ort.GetVersion()
	return nil
}

// Loaded reports the path and version of the loaded library.
func Loaded() (path, ver string) {
	mu.Lock()
	defer mu.Unlock()
	return loaded, version
}

// explain turns onnxruntime_go's loader errors into instructions.
func explain(path string, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Error setting ORT API base"):
		return fmt.Errorf("ONNX Runtime library %s does not provide C API %d: it is older than ONNX Runtime 1.24. Run `make deps` for the pinned %s build, or point %s at a newer libonnxruntime.so.1", path, MinAPI, PackageVersion, Env)
	case strings.Contains(msg, "Error loading ONNX shared library"), strings.Contains(msg, "OrtGetApiBase"):
		return fmt.Errorf("cannot load %s as ONNX Runtime (%v). Point %s at libonnxruntime.so.1, or unset it and run `make deps`", path, errors.Unwrap(err), Env)
	}
	return fmt.Errorf("initialising ONNX Runtime from %s: %w", path, err)
}
