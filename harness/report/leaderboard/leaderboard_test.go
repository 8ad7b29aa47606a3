package leaderboard_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/report/leaderboard"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherbench"
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
	// tiny ran in both runs: two rows, labelled by run, never one merged
	// row of both runs' trials.
	assert.Equal(t, []string{"mid", "big", "local", "tiny (20260705T090000Z)", "tiny (20260704T101530Z)"}, fb, "pass rate high to low")
	assert.Equal(t, []int{14, 14, 14, 14, 14}, trials(s.Featherbench.Models))
	assert.Equal(t, []string{"tiny (20260705T090000Z)", "mid"}, s.Featherbench.Frontier)
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

func trials(ms []leaderboard.FBModel) []int {
	var out []int
	for _, m := range ms {
		out = append(out, m.Trials)
	}
	return out
}

// TestLatencyWithoutTTFT: a model's median latency leaves out the trials
// that have none, and the board says how many.
func TestLatencyWithoutTTFT(t *testing.T) {
	lat := func(v float64) *float64 { return &v }
	set := &runs.Set{Featherbench: &runs.Featherbench{Records: []featherbench.Record{
		{RunID: "r", Task: "t", Model: "mixed", Trial: 1, LatencyS: lat(0.2)},
		{RunID: "r", Task: "t", Model: "mixed", Trial: 2, LatencyS: lat(0.4)},
		{RunID: "r", Task: "t", Model: "mixed", Trial: 3},
		{RunID: "r", Task: "t", Model: "timed", Trial: 1, LatencyS: lat(0.5)},
	}}}
	s := leaderboard.Build(set)
	require.Len(t, s.Featherbench.Models, 2)
	assert.Equal(t, [2]int{1, 0}, [2]int{s.Featherbench.Models[0].NoLatency, s.Featherbench.Models[1].NoLatency})
	js, err := json.Marshal(s.Featherbench.Models)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"median_latency_s":0.30000000000000004,"trials_without_latency":1,`)
	assert.Contains(t, string(js), `"median_latency_s":0.5,"median_wall_clock_s"`, "left out when every trial has one")
	md, err := leaderboard.Markdown(set, s)
	require.NoError(t, err)
	assert.Contains(t, md, "| 1 | mixed | — | 0 / 0 | — | 0.30 (1 n/a) | — | — | 3 |\n")
	assert.Contains(t, md, "| 2 | timed | — | 0 / 0 | — | 0.50 | — | — | 1 |\n")
	assert.Contains(t, md, `"(N n/a)" after a median latency counts the trials that have none (a server that answered without streaming), which the median leaves out.`)
}
