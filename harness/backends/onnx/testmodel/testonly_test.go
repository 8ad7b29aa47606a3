package testmodel_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// Production code carries no test fixtures: no package of the module (its
// test files aside), and so neither the CLI nor the root test package's
// non-test build, depends on testmodel, whatever build tags are set. The
// one exception is a package of test support (testSupport), which may
// build on testmodel as long as only tests import it in turn. The
// built-in model comes from harness/backends/onnx/smoke instead.
// testSupport are the packages that build test models from testmodel for
// other packages' tests and benchmarks.
var testSupport = []string{"github.com/feather-eval/feather/harness/backends/llamacpp/twin"}

func TestOnlyTestsImportTestmodel(t *testing.T) {
	const (
		module  = "github.com/feather-eval/feather"
		fixture = module + "/harness/backends/onnx/testmodel"
	)
	goCmd := testenv.GoCommand(t)
	list := func(args ...string) []string {
		cmd := exec.Command(goCmd, append([]string{"list"}, args...)...)
		cmd.Dir = testenv.RepoRoot()
		out, err := cmd.Output()
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		require.NoError(t, err, "go list %s: %s", strings.Join(args, " "), stderr)
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	for _, tags := range []string{"", "cuda,openrouter"} {
		deps := list("-tags="+tags, "-deps", "-f", "{{.ImportPath}}", "./cmd/feather", ".")
		assert.True(t, slices.Contains(deps, module+"/harness/backends/onnx/smoke"), "tags %q: the CLI builds the smoke model, so the list must show it", tags)
		assert.False(t, slices.Contains(deps, fixture), "tags %q: cmd/feather or the root package depends on testmodel", tags)

		imports := map[string][]string{}
		for _, line := range list("-tags="+tags, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...") {
			pkg, deps, _ := strings.Cut(line, " ")
			imports[pkg] = strings.Fields(deps)
		}
		for _, fixture := range append([]string{fixture}, testSupport...) {
			var importers []string
			for pkg, deps := range imports {
				if slices.Contains(deps, fixture) && !slices.Contains(testSupport, pkg) {
					importers = append(importers, pkg)
				}
			}
			assert.Empty(t, importers, "tags %q: these packages import %s outside their tests", tags, fixture)
		}
	}
}
