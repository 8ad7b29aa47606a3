package leaderboard_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/report/leaderboard"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const fixtures = "../../../testdata/report"

// TestGolden merges the two fixture runs (one model appears in both) and
// compares leaderboard.md and summary.json with the committed files.
func TestGolden(t *testing.T) {
	set, err := runs.Load([]string{
		filepath.Join(fixtures, "runs", "20260704T101530Z"),
		filepath.Join(fixtures, "runs", "20260705T090000Z"),
	}, runs.Options{TasksDir: filepath.Join(fixtures, "tasks")})
	require.NoError(t, err)
	out := t.TempDir()
	md, err := leaderboard.Write(set, out)
	require.NoError(t, err)
	written, err := os.ReadFile(filepath.Join(out, leaderboard.MarkdownFile))
	require.NoError(t, err)
	assert.Equal(t, md, string(written))
	js, err := os.ReadFile(filepath.Join(out, leaderboard.JSONFile))
	require.NoError(t, err)
	for name, got := range map[string][]byte{"leaderboard.md": written, "summary.json": js} {
		p := filepath.Join(fixtures, "golden", name)
		if *update {
			require.NoError(t, os.WriteFile(p, got, 0o644))
			continue
		}
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s differs; rerun with -update if intended", p)
	}

	// The ranking rules, on the parsed summary.
	var s leaderboard.Summary
	require.NoError(t, json.Unmarshal(js, &s))
	var fb []string
	for _, m := range s.Featherbench.Models {
		fb = append(fb, m.Model)
	}
	assert.Equal(t, []string{"mid", "big", "local", "tiny"}, fb, "pass rate high to low")
	assert.Equal(t, []string{"tiny", "mid"}, s.Featherbench.Frontier)
	var mb []string
	var noise []bool
	for _, r := range s.Microbench.Ranked {
		mb = append(mb, r.Label)
		noise = append(noise, r.WithinNoise)
	}
	assert.Equal(t, []string{"Small 50M (20260704T101530Z)", "Small 50M (20260705T090000Z)", "Tiny 3M"}, mb)
	assert.Equal(t, []bool{false, true, false}, noise)
	assert.Len(t, s.Featherweight.Rows, 6, "three model runs × two styles")
}
