package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/shard"
)

// shardFolder splits the fixture run into two shards in a fresh folder, as
// a CI job downloads them: Featherbench in shard 1/2, the rest in 2/2.
func shardFolder(t *testing.T) string {
	t.Helper()
	folder := t.TempDir()
	for i, suites := range [][]string{{"featherbench"}, {"featherweight", "microbench"}} {
		dir := filepath.Join(folder, "shard-"+string(rune('1'+i)), "20260704T10153"+string(rune('1'+i))+"Z")
		for _, s := range suites {
			require.NoError(t, os.CopyFS(filepath.Join(dir, s), os.DirFS(filepath.Join(fixtureRunDir("20260704T101530Z"), s))))
		}
		require.NoError(t, shard.WriteMarker(dir, shard.Shard{Index: i + 1, Count: 2}))
	}
	return folder
}

// stampsIn are run stamps, which differ between a run and its shards.
var stampsIn = regexp.MustCompile(`\d{8}T\d{6}Z`)

func withoutStamps(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return stampsIn.ReplaceAllString(string(b), "STAMP")
}

// TestShardsMergeInReportAndLeaderboard: given a folder of shards, both
// commands write what they write for the unsharded run.
func TestShardsMergeInReportAndLeaderboard(t *testing.T) {
	folder := shardFolder(t)
	whole := t.TempDir()
	tasks := filepath.Join(reportFixtures, "tasks")
	for _, args := range [][]string{
		{"leaderboard", fixtureRunDir("20260704T101530Z"), "--tasks", tasks, "--out", filepath.Join(whole, "leaderboard")},
		{"leaderboard", folder, "--tasks", tasks, "--out", filepath.Join(folder, "leaderboard")},
		{"report", fixtureRunDir("20260704T101530Z"), "--tasks", tasks, "--out", filepath.Join(whole, "report")},
		{"report", folder, "--tasks", tasks},
	} {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, dispatch(args, strings.NewReader(""), &stdout, &stderr), stderr.String())
	}
	for _, f := range []string{"leaderboard/leaderboard.md", "leaderboard/summary.json", "report/featherbench.md", "report/featherweight.md", "report/microbench.md"} {
		assert.Equal(t, withoutStamps(t, filepath.Join(whole, f)), withoutStamps(t, filepath.Join(folder, f)), f)
	}
}

func TestShardsMissingAreRefused(t *testing.T) {
	folder := shardFolder(t)
	one := filepath.Join(folder, "shard-1", "20260704T101531Z")
	real, err := filepath.EvalSymlinks(one)
	require.NoError(t, err)
	want := "cannot merge shards: shard 2/2 missing (have 1/2 in " + real + "); pass all 2 shard run directories\n"
	for _, cmd := range []string{"leaderboard", "report"} {
		var stdout, stderr bytes.Buffer
		assert.Equal(t, 1, dispatch([]string{cmd, one, "--out", t.TempDir()}, strings.NewReader(""), &stdout, &stderr), cmd)
		assert.Equal(t, "feather "+cmd+": "+want, stderr.String(), cmd)
	}
}
