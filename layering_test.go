package feather_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// TestLayering holds the package map docs/DEVELOPING.md draws: suites →
// harness/lm ← backends, both over harness/run and internal/. Outside
// their tests, nothing under harness/lm, harness/run or internal/ depends
// on a suite or a backend; a suite depends on no backend but the catalog
// (which knows no backend); a backend depends on no suite.
func TestLayering(t *testing.T) {
	const module = "github.com/feather-eval/feather/"
	cmd := exec.Command(testenv.GoCommand(t), "list", "-tags=cuda,openrouter", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./...")
	cmd.Dir = testenv.RepoRoot()
	out, err := cmd.Output()
	require.NoError(t, err)
	under := func(pkg, dir string) bool {
		return pkg == module+dir || strings.HasPrefix(pkg, module+dir+"/")
	}
	var broken []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, dep := range strings.Fields(deps) {
			suite, backend := under(dep, "harness/suites"), under(dep, "harness/backends")
			var bad bool
			switch {
			case under(pkg, "harness/lm") || under(pkg, "harness/run") || under(pkg, "internal"):
				bad = suite || backend
			case under(pkg, "harness/suites"):
				bad = backend && dep != module+"harness/backends/catalog"
			case under(pkg, "harness/backends"):
				bad = suite
			}
			if bad {
				broken = append(broken, strings.TrimPrefix(pkg, module)+" → "+strings.TrimPrefix(dep, module))
			}
		}
	}
	assert.Empty(t, broken, "dependencies against the package map")
}
