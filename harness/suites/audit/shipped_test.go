package audit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/testenv"
)

// gpt2 is the tokenizer for the token-length columns: the GPT-2 folder
// vendored in testdata.
func gpt2(t *testing.T) Tokenizer {
	tok, err := tokenizer.Load(testenv.Tokenizer("gpt2"))
	require.NoError(t, err)
	return tok
}

// TestShippedMicrobenchHasNoShortcut holds every μBench task to the
// threshold: no heuristic may score above 15 (chance-normalised) anywhere.
func TestShippedMicrobenchHasNoShortcut(t *testing.T) {
	tasks, err := microbench.Load(os.DirFS(filepath.Join(testenv.RepoRoot(), "testdata", "microbench")))
	require.NoError(t, err)
	tab, err := Microbench(context.Background(), tasks, gpt2(t))
	require.NoError(t, err)
	t.Logf("\n%s", tab.Markdown())
	assert.Len(t, tab.Rows, 17, "every choice task has a row")
	assert.Empty(t, tab.Over(), "heuristics above the threshold")
	validityPageShows(t, tab)
}

// validityPageShows keeps docs/validity.md true: it prints the audit of
// the shipped items.
func validityPageShows(t *testing.T, tab *Table) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "validity.md"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "\n"+tab.Markdown()+"\n", "docs/validity.md shows an old %s audit; paste this table there:\n%s", tab.Suite, tab.Markdown())
}

// TestShippedFeatherweightHasNoShortcut holds the shipped question file to
// the threshold: no heuristic may answer more than 35% right.
func TestShippedFeatherweightHasNoShortcut(t *testing.T) {
	ds, err := featherweight.Load(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "featherweight.jsonl"))
	require.NoError(t, err)
	tab, err := Featherweight(context.Background(), ds.Items, gpt2(t))
	require.NoError(t, err)
	t.Logf("\n%s", tab.Markdown())
	assert.Empty(t, tab.Over(), "heuristics above the threshold")
	validityPageShows(t, tab)
}
