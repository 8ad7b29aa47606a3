//go:build !openrouter

package feather_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSuiteThatRanNoModelFails: a suite whose every selected model needs
// a backend this build lacks fails, names each model and what it needs,
// and writes no run directory; before, it printed ok having measured
// nothing. It runs the suites in a child test binary with a catalog of
// one OpenRouter model (this file is built without -tags openrouter).
func TestSuiteThatRanNoModelFails(t *testing.T) {
	if os.Getenv("FEATHER_EMPTY_RUN_CHILD") != "" {
		t.Skip("the child runs the suites themselves")
	}
	dir := t.TempDir()
	cat := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{"owl": {"model": "acme/owl", "provider_order": ["acme"], "enabled": true}}`), 0o644))
	for _, tt := range []struct{ test, catalog, models string }{
		{"TestFeatherweight", "-fw.catalog", "-fw.models"},
		{"TestMicrobench", "-mb.catalog", "-mb.models"},
		{"TestFeatherbench", "-fb.catalog", "-fb.models"},
	} {
		t.Run(tt.test, func(t *testing.T) {
			results := filepath.Join(dir, tt.test)
			cmd := exec.Command(os.Args[0], "-test.run=^"+tt.test+"$", tt.catalog+"="+cat, "-results="+results, "-fb.no-rubric")
			cmd.Env = append(os.Environ(), "FEATHER_EMPTY_RUN_CHILD=1", "FEATHER_PROGRESS=0", "FEATHER_MODELS=", "FEATHER_FB_MODELS=", "FEATHER_SHARD=")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "the suite must fail: %s", out)
			assert.Contains(t, string(out), "no selected model could run in this build, so nothing was measured and no results were written:\n"+
				`          model "owl": backend unavailable in this build: live OpenRouter calls need -tags openrouter and OPENROUTER_API_KEY`)
			assert.Contains(t, string(out), "run the built-in model offline with "+tt.models+"=smoke")
			assert.NoDirExists(t, results, "nothing that looks like a result")
		})
	}
}
