package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompareCommand: the ways of naming A and B, what each compares, and
// the exit status --fail-on-regression gives.
func TestCompareCommand(t *testing.T) {
	a, b := fixtureRunDir("20260704T101530Z"), fixtureRunDir("20260705T090000Z")
	// results/latest, for the default run, in a folder of its own.
	work := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(work, "results"), 0o755))
	abs, err := filepath.Abs(a)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(abs, filepath.Join(work, "results", "latest")))

	for _, tt := range []struct {
		name    string
		args    []string
		chdir   string // the working folder, for results/latest
		code    int
		heads   []string // the comparisons' headings, in order
		stderr  string
		section string // a summary row that must be there
	}{
		{name: "two models in one run", args: []string{"alpha", "beta", a}, heads: []string{"# beta against alpha"},
			section: "| Featherweight · plain | 89 items | 37.1% | 60.7% | +23.6 pts [+8.6, +37.2] | 14 | 35 | 0.003802 | B better |"},
		{name: "two models in results/latest", args: []string{"tiny", "mid"}, chdir: work, heads: []string{"# mid against tiny"},
			section: "| Featherbench | 5 tasks |"},
		{name: "one model in two runs, every model", args: []string{a, b},
			heads: []string{"# alpha (20260705T090000Z) against alpha (20260704T101530Z)", "# mb-small (20260705T090000Z) against mb-small (20260704T101530Z)", "# tiny (20260705T090000Z) against tiny (20260704T101530Z)"}},
		{name: "one model in two runs, --model", args: []string{a, b, "--model", "tiny"}, heads: []string{"# tiny (20260705T090000Z) against tiny (20260704T101530Z)"},
			section: "| Featherbench | 6 tasks | 41.7% | 58.3% |"},
		{name: "MODEL@RUN_DIR", args: []string{"tiny@" + a, "tiny@" + b}, heads: []string{"# tiny (20260705T090000Z) against tiny (20260704T101530Z)"}},
		{name: "MODEL@STAMP", args: []string{"alpha@20260705T090000Z", "beta", a, b}, heads: []string{"# beta against alpha (20260705T090000Z)"}},
		{name: "a regression without the switch exits 0", args: []string{"beta", "alpha", a}, heads: []string{"# alpha against beta"}},
		{name: "--fail-on-regression", args: []string{"beta", "alpha", a, "--fail-on-regression"}, code: 1, heads: []string{"# alpha against beta"},
			stderr: "feather compare: B is significantly worse than A (--fail-on-regression):\n" +
				"  Featherweight · plain: alpha scores 23.6 points below beta (B − A -23.6 pts [-37.2, -8.6], p = 0.003802)\n" +
				"  Featherweight · completion: alpha scores 19.4 points below beta (B − A -19.4 pts [-32.0, -5.7], p = 0.00956)\n"},
		{name: "--fail-on-regression, no regression", args: []string{"alpha", "beta", a, "--fail-on-regression"}, heads: []string{"# beta against alpha"}},

		{name: "ambiguous model", args: []string{"alpha", "beta", a, b}, code: 2,
			stderr: "feather compare: alpha is in 2 runs; name one: alpha@20260704T101530Z, alpha@20260705T090000Z\n"},
		{name: "unknown model", args: []string{"alpha", "gamma", a}, code: 2,
			stderr: "feather compare: no model \"gamma\" in " + a + "; the runs hold: alpha, beta, big, local, mb-small, mb-tiny, mid, tiny\n"},
		{name: "model not in that run", args: []string{"beta@20260705T090000Z", "alpha", a, b}, code: 2,
			stderr: "feather compare: beta has no results in run 20260705T090000Z; its runs: 20260704T101530Z\n"},
		{name: "no suite in common", args: []string{"alpha", "tiny", a}, code: 2,
			stderr: "feather compare: alpha and tiny have no suite in common: Featherweight · plain: only alpha has results; Featherweight · completion: only alpha has results; Featherbench: only tiny has results\n"},
		{name: "the same run twice", args: []string{a, a}, code: 2,
			stderr: "feather compare: " + a + " and " + a + " are the same run (20260704T101530Z); name two runs, or two models\n"},
		{name: "--model not in both", args: []string{a, b, "--model", "beta"}, code: 2,
			stderr: "feather compare: --model beta is not in both runs: 20260704T101530Z has alpha, beta, big, local, mb-small, mb-tiny, mid, tiny; 20260705T090000Z has alpha, mb-small, tiny\n"},
		{name: "a missing run directory", args: []string{"alpha", "beta"}, chdir: t.TempDir(), code: 2,
			stderr: "feather compare: results/latest is not a run directory; run the suites first (make bench), or pass run directories such as results/<stamp>\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.chdir != "" {
				t.Chdir(tt.chdir)
			}
			var stdout, stderr bytes.Buffer
			code := dispatch(append([]string{"compare"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			if tt.stderr != "" {
				assert.Equal(t, tt.stderr, stderr.String())
			} else {
				assert.Empty(t, stderr.String())
			}
			var heads []string
			for _, l := range strings.Split(stdout.String(), "\n") {
				if strings.HasPrefix(l, "# ") {
					heads = append(heads, l)
				}
			}
			assert.Equal(t, tt.heads, heads)
			assert.Contains(t, stdout.String(), tt.section)
		})
	}
}

// TestCompareUsage: A and B are needed; --model goes with two runs.
func TestCompareUsage(t *testing.T) {
	a := fixtureRunDir("20260704T101530Z")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "feather compare: give A and B: two run directories, or two models (MODEL or MODEL@RUN) and the run directories they are in\n"},
		{[]string{"alpha"}, "feather compare: give A and B: two run directories, or two models (MODEL or MODEL@RUN) and the run directories they are in\n"},
		{[]string{"alpha", "beta", "gamma", a}, "feather compare: give A and B: two run directories, or two models (MODEL or MODEL@RUN) and the run directories they are in\n"},
		{[]string{"alpha", "beta", a, "--model", "alpha"}, "feather compare: --model is for two run directories; name the models as A and B instead\n"},
		{[]string{"@" + a, "beta", a}, "feather compare: \"@" + a + "\" names no model; write MODEL or MODEL@RUN\n"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 2, dispatch(append([]string{"compare"}, tt.args...), strings.NewReader(""), &stdout, &stderr), "%q", tt.args)
		assert.True(t, strings.HasSuffix(stderr.String(), tt.want), "%q: %s", tt.args, stderr.String())
		assert.Empty(t, stdout.String())
	}
}

// TestCompareOut: --out writes the Markdown there, whole.
func TestCompareOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "compare.md")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"compare", "--out", out, "alpha", "beta", fixtureRunDir("20260704T101530Z")}, strings.NewReader(""), &stdout, &stderr), stderr.String())
	assert.Empty(t, stdout.String())
	assert.Equal(t, "feather compare: wrote "+out+"\n", stderr.String())
	md, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(md), "# beta against alpha\n"))
	assert.Contains(t, string(md), "### 49 items differ")
}
