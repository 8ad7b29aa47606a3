package runs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/run/shard"
)

const fixture = "20260704T101530Z"

// shardOf copies the fixture run's suites into parent/<job>/<stamp> and
// marks it as shard s.
func shardOf(t *testing.T, parent, job, stamp string, s shard.Shard, suites ...string) string {
	t.Helper()
	dir := filepath.Join(parent, job, stamp)
	for _, suite := range suites {
		require.NoError(t, os.CopyFS(filepath.Join(dir, suite), os.DirFS(filepath.Join(fixtures, fixture, suite))))
	}
	require.NoError(t, shard.WriteMarker(dir, s))
	return dir
}

func TestLoadMergesShards(t *testing.T) {
	parent := t.TempDir()
	shardOf(t, parent, "job-2", "20260704T101531Z", shard.Shard{Index: 2, Count: 2}, runs.FeatherweightDir, runs.MicrobenchDir)
	first := shardOf(t, parent, "job-1", "20260704T101532Z", shard.Shard{Index: 1, Count: 2}, runs.FeatherbenchDir)
	require.NoError(t, os.Symlink("20260704T101532Z", filepath.Join(parent, "job-1", "latest")))

	whole, err := runs.Load([]string{filepath.Join(fixtures, fixture)}, runs.Options{})
	require.NoError(t, err)
	set, err := runs.Load([]string{parent}, runs.Options{})
	require.NoError(t, err, "a folder of shards")
	assert.Equal(t, []string{"20260704T101532Z"}, set.Stamps(), "one run, named by its first shard")
	assert.Len(t, set.Dirs, 2)
	assert.Equal(t, "shards 1/2 (20260704T101532Z), 2/2 (20260704T101531Z) merged as run 20260704T101532Z", set.Notes[0])
	assert.Equal(t, whole.Featherbench.Categories(), set.Featherbench.Categories(), "the shard's record of its tasks is kept")
	require.Len(t, set.Featherbench.Records, len(whole.Featherbench.Records))
	for i, r := range set.Featherbench.Records {
		assert.Equal(t, whole.Featherbench.Records[i].RunID, r.RunID, "the fixture's records keep their run id")
	}
	require.Len(t, set.Featherweight.Runs, 1)
	assert.Equal(t, "20260704T101531Z", set.Featherweight.Runs[0].Stamp, "the first shard with Featherweight results")
	assert.Equal(t, whole.Featherweight.Runs[0].Results, set.Featherweight.Runs[0].Results)
	assert.Len(t, set.Microbench.Results, len(whole.Microbench.Results))

	again, err := runs.Load([]string{first, filepath.Join(parent, "job-2", "20260704T101531Z")}, runs.Options{})
	require.NoError(t, err, "the shard directories themselves")
	assert.Equal(t, set.Stamps(), again.Stamps())
}

func TestLoadRefusesShards(t *testing.T) {
	parent := t.TempDir()
	all := []string{runs.FeatherbenchDir, runs.FeatherweightDir, runs.MicrobenchDir}
	a := shardOf(t, parent, "a", "20260704T101531Z", shard.Shard{Index: 1, Count: 3}, all...)
	b := shardOf(t, parent, "b", "20260704T101532Z", shard.Shard{Index: 3, Count: 3}, all...)
	c := shardOf(t, parent, "c", "20260704T101533Z", shard.Shard{Index: 2, Count: 4}, all...)
	d := shardOf(t, parent, "d", "20260704T101534Z", shard.Shard{Index: 1, Count: 3}, all...)
	e := shardOf(t, parent, "e", "20260704T101535Z", shard.Shard{Index: 2, Count: 3}, runs.FeatherweightDir)
	f := shardOf(t, parent, "f", "20260704T101536Z", shard.Shard{Index: 1, Count: 2}, runs.FeatherweightDir)
	g := shardOf(t, parent, "g", "20260704T101537Z", shard.Shard{Index: 2, Count: 2}, runs.FeatherweightDir)
	h := shardOf(t, parent, "h", "20260704T101538Z", shard.Shard{Index: 1, Count: 2}, runs.FeatherbenchDir)
	i := shardOf(t, parent, "i", "20260704T101539Z", shard.Shard{Index: 2, Count: 2}, runs.FeatherbenchDir)
	empty := t.TempDir()
	real := func(p string) string {
		r, err := filepath.EvalSymlinks(p)
		require.NoError(t, err)
		return r
	}
	tests := []struct {
		name string
		dirs []string
		want string
	}{
		{"missing", []string{a, b}, "cannot merge shards: shard 2/3 missing (have 1/3 in " + real(a) + ", 3/3 in " + real(b) + "); pass all 3 shard run directories"},
		{"mixed counts", []string{a, c}, "cannot merge shards: " + real(a) + " is shard 1/3 but " + real(c) + " is shard 2/4; pass the shards of one run, all i/3"},
		{"a shard twice", []string{a, b, e, d}, "cannot merge shards: " + real(a) + " and " + real(d) + " are both shard 1/3; pass each shard of the run once"},
		{"overlapping units", []string{f, g}, "cannot merge shards: Featherweight item alpha/plain/geo01 is in both " + real(f) + " and " + real(g) + "; the shards of a run are disjoint"},
		{"overlapping trials", []string{h, i}, "cannot merge shards: Featherbench trial " + firstTrial(t) + " is in both " + real(h) + " and " + real(i) + "; the shards of a run are disjoint"},
		{"a folder without shards", []string{empty}, empty + " holds no results: a run directory has a featherweight/, microbench/ or featherbench/ subdirectory; pass results/latest or results/<stamp>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runs.Load(tt.dirs, runs.Options{})
			assert.EqualError(t, err, tt.want)
		})
	}
}

// firstTrial is model/task/trial of the fixture's first Featherbench record.
func firstTrial(t *testing.T) string {
	t.Helper()
	set, err := runs.Load([]string{filepath.Join(fixtures, fixture)}, runs.Options{})
	require.NoError(t, err)
	r := set.Featherbench.Records[0]
	return fmt.Sprintf("%s/%s/%d", r.Model, r.Task, r.Trial)
}
