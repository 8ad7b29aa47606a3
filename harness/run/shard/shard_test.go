package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/run/rundir"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Shard{"": {}, "1/1": {1, 1}, "2/3": {2, 3}, " 3 / 3 ": {3, 3}} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	const example = "want i/n with 1 ≤ i ≤ n, e.g. -shard 2/3 (FEATHER_SHARD=2/3) for the second of three shards"
	for in, want := range map[string]string{
		"3":    `-shard (FEATHER_SHARD) "3": ` + example,
		"a/3":  `-shard (FEATHER_SHARD) "a/3": ` + example,
		"0/3":  `-shard (FEATHER_SHARD) "0/3": shard 0 of 3 does not exist; ` + example,
		"4/3":  `-shard (FEATHER_SHARD) "4/3": shard 4 of 3 does not exist; ` + example,
		"1/0":  `-shard (FEATHER_SHARD) "1/0": shard 1 of 0 does not exist; ` + example,
		"-1/2": `-shard (FEATHER_SHARD) "-1/2": shard -1 of 2 does not exist; ` + example,
	} {
		_, err := Parse(in)
		assert.EqualError(t, err, want, in)
	}
	assert.Equal(t, "2/3", Shard{2, 3}.String())
	assert.Equal(t, "", Shard{}.String())
	assert.True(t, Shard{}.Whole())
}

// shards are the three shards of a run.
var shards = []Shard{{1, 3}, {2, 3}, {3, 3}}

// owners counts, for each key, the shards that take it under has.
func owners(keys []string, has func(Shard, string) bool) map[string][]int {
	out := map[string][]int{}
	for _, k := range keys {
		for _, s := range shards {
			if has(s, k) {
				out[k] = append(out[k], s.Index)
			}
		}
	}
	return out
}

func TestHasKeyIsAPartition(t *testing.T) {
	var keys []string
	for i := range 300 {
		keys = append(keys, fmt.Sprintf("task-%d/%d", i/3, i%3+1))
	}
	per := map[int]int{}
	for k, o := range owners(keys, Shard.HasKey) {
		require.Len(t, o, 1, "%s is in exactly one shard", k)
		per[o[0]]++
	}
	for _, s := range shards {
		assert.InDelta(t, 100, per[s.Index], 30, "shard %s takes about a third", s)
	}
	// Fixed by the hash alone: these values are part of the format.
	assert.True(t, Shard{3, 3}.HasKey("code-fizzbuzz/1"))
	assert.True(t, Shard{}.HasKey("anything"))
}

func TestHasPositionTakesBlocks(t *testing.T) {
	var got [][]int
	for _, s := range shards {
		var pos []int
		for i := range 10 {
			if s.HasPosition(i, 10) {
				pos = append(pos, i)
			}
		}
		got = append(got, pos)
	}
	assert.Equal(t, [][]int{{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}}, got)
}

func TestBalance(t *testing.T) {
	jobs := []Job{{"a", 7}, {"b", 5}, {"c", 4}, {"d", 4}, {"e", 3}, {"f", 3}, {"g", 1}}
	want := map[string]int{"a": 1, "b": 2, "c": 3, "d": 3, "e": 2, "f": 1, "g": 2}
	assert.Equal(t, want, Balance(jobs, 3))
	reversed := []Job{jobs[6], jobs[5], jobs[4], jobs[3], jobs[2], jobs[1], jobs[0]}
	assert.Equal(t, want, Balance(reversed, 3), "the order of the jobs does not matter")
	assert.Equal(t, map[string]int{"a": 1, "b": 1}, Balance([]Job{{"b", 1}, {"a", 1}}, 1))
}

func TestAnd(t *testing.T) {
	even := func(p ...string) bool { return len(p)%2 == 0 }
	short := func(p ...string) bool { return len(p) < 3 }
	assert.True(t, And(even, short)("a", "b"))
	assert.False(t, And(even, short)("a"))
	assert.False(t, And(even, short)("a", "b", "c", "d"))
	assert.True(t, And(nil, short)("a"))
	assert.True(t, And(nil, nil)("a"))
}

func TestMarker(t *testing.T) {
	dir := t.TempDir()
	_, ok, err := ReadMarker(dir)
	require.NoError(t, err)
	assert.False(t, ok, "a run without a marker is whole")
	require.NoError(t, WriteMarker(dir, Shard{2, 3}))
	b, err := os.ReadFile(filepath.Join(dir, MarkerFile))
	require.NoError(t, err)
	assert.Equal(t, "{\"index\":2,\"count\":3}\n", string(b))
	s, ok, err := ReadMarker(dir)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, Shard{2, 3}, s)
	require.NoError(t, WriteMarker(dir, Shard{2, 3}), "the same shard again (-resume)")
	assert.EqualError(t, WriteMarker(dir, Shard{1, 3}), dir+" holds shard 2/3, not 1/3: resume a shard with its own -shard")

	require.NoError(t, os.WriteFile(filepath.Join(dir, MarkerFile), []byte(`{"index":4,"count":3}`), 0o644))
	_, _, err = ReadMarker(dir)
	assert.EqualError(t, err, filepath.Join(dir, MarkerFile)+`: not a shard marker: want {"index": i, "count": n} with 1 ≤ i ≤ n`)
}

func TestCheck(t *testing.T) {
	p := func(dir string, i, n int) Part { return Part{Dir: dir, Shard: Shard{i, n}} }
	got, err := Check([]Part{p("c", 3, 3), p("a", 1, 3), p("b", 2, 3)})
	require.NoError(t, err)
	assert.Equal(t, []Part{p("a", 1, 3), p("b", 2, 3), p("c", 3, 3)}, got, "in shard order")

	_, err = Check([]Part{p("a", 1, 3), p("c", 3, 3)})
	assert.EqualError(t, err, "cannot merge shards: shard 2/3 missing (have 1/3 in a, 3/3 in c); pass all 3 shard run directories")
	_, err = Check([]Part{p("a", 1, 3), p("b", 2, 3), p("b2", 2, 3), p("c", 3, 3)})
	assert.EqualError(t, err, "cannot merge shards: b and b2 are both shard 2/3; pass each shard of the run once")
	_, err = Check([]Part{p("a", 1, 3), p("b", 2, 4)})
	assert.EqualError(t, err, "cannot merge shards: a is shard 1/3 but b is shard 2/4; pass the shards of one run, all i/3")
}

func TestMarkRun(t *testing.T) {
	s := Shard{Index: 2, Count: 3}
	d := rundir.New(filepath.Join(t.TempDir(), "results"), time.Now())
	require.NoError(t, MarkRun(d, s))
	assert.False(t, d.Created(), "no suite wrote: no run directory")
	p, err := d.Path()
	require.NoError(t, err)
	require.NoError(t, MarkRun(d, Shard{}))
	_, ok, err := ReadMarker(p)
	require.NoError(t, err)
	assert.False(t, ok, "a whole run has no marker")
	require.NoError(t, MarkRun(d, s))
	got, ok, err := ReadMarker(p)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, s, got)
}

func TestCheckResume(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results")
	sharded := rundir.New(results, time.Date(2026, 7, 4, 10, 15, 30, 0, time.UTC))
	p, err := sharded.Path()
	require.NoError(t, err)
	require.NoError(t, WriteMarker(p, Shard{Index: 2, Count: 3}))
	whole := rundir.New(results, time.Date(2026, 7, 4, 11, 0, 0, 0, time.UTC))
	w, err := whole.Path()
	require.NoError(t, err)

	assert.NoError(t, CheckResume(sharded, Shard{Index: 2, Count: 3}))
	assert.NoError(t, CheckResume(whole, Shard{}))
	assert.EqualError(t, CheckResume(sharded, Shard{Index: 1, Count: 3}), p+" holds shard 2/3, not 1/3: resume a shard with its own -shard")
	assert.EqualError(t, CheckResume(sharded, Shard{}), p+" holds shard 2/3, not the whole run (no -shard): resume a shard with its own -shard")
	assert.EqualError(t, CheckResume(whole, Shard{Index: 1, Count: 2}), w+" holds a whole run, not shard 1/2: resume it without -shard")
}
