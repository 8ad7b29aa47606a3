package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// TestValidatePrintsTheAudit: the shipped μBench items come with their
// shortcut table, and none of its cells is over the threshold.
func TestValidatePrintsTheAudit(t *testing.T) {
	code, out, _ := runCLI(t, "validate", "-microbench", "../../testdata/microbench")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "ok   microbench ../../testdata/microbench: 18 tasks, 1060 items\n\n"+
		"| task | longest | shortest | last-mention | first-mention | most-overlap | least-overlap | first-pos | last-pos | max |\n"+
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"+
		"| agreement | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 | 0.0 |\n")
	assert.Contains(t, out, "\nSupra-μBench shortcut audit: chance-normalised score (0–100) of each heuristic; above 15 (bold) gives answers away: none is over.\n")
}

// TestValidateFlagsAShortcut: hand-written items whose right answer is
// always the longest choice show up as a bold cell, named under the table.
func TestValidateFlagsAShortcut(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../testdata/microbench")))
	path := filepath.Join(dir, "continuation.jsonl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var it map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &it))
		it["choices"].([]any)[int(it["gold"].(float64))] = "did the one sensible thing that anybody in that place would do."
		b, err := json.Marshal(it)
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	code, out, _ := runCLI(t, "validate", "-microbench", dir)
	assert.Equal(t, 0, code, "a shortcut is reported, not failed: %s", out)
	assert.Regexp(t, `\n\| continuation \| \*\*[0-9.]+\*\* \|`, out)
	assert.Regexp(t, `gives answers away: 1 cell over \(continuation/longest [0-9.]+\)\.\n`, out)
}

func TestValidateTokenizerColumns(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	code, _, errs := runCLI(t, "validate", "-microbench", "../../testdata/microbench", "-tokenizer", missing)
	assert.Equal(t, 2, code)
	assert.Equal(t, "feather validate: -tokenizer "+missing+": tokenizer folder: stat "+missing+": no such file or directory\n", errs)

	code, out, _ := runCLI(t, "validate", "-microbench", "../../testdata/microbench", "-tokenizer", testenv.Tokenizer("gpt2"))
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "\n| task | longest | shortest | longest-tok | shortest-tok | last-mention |")
}
