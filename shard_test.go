package feather_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/leaderboard"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

var optShard = options.String("shard", "", "run only shard i of n (e.g. 2/3) so that n jobs share a run: Featherweight by item, μBench by task (balanced by text size), Featherbench by trial; feather report and feather leaderboard merge the shards' run directories")

// runShard is this run's -shard: the whole run when it is not given.
var runShard = sync.OnceValues(func() (shard.Shard, error) { return shard.Parse(*optShard) })

// fwItems are the items of -fw.data, which Featherweight's shards split.
var fwItems = sync.OnceValues(func() ([]featherweight.Item, error) {
	ds, err := featherweight.Load(*optFWData)
	if err != nil {
		return nil, err
	}
	return ds.Items, nil
})

// shardSelected is a suite's selection (nil: every unit) cut to this
// run's -shard. A sharded run marks its run directory with its shard when
// t ends, so that merging can check that the shards are all there.
func shardSelected(t *testing.T, suite string, selected func(path ...string) bool) func(path ...string) bool {
	t.Helper()
	s, err := runShard()
	if err == nil {
		selected, err = inShard(s, suite, selected)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !s.Whole() {
		t.Cleanup(func() { markShard(t, run, s) })
	}
	return selected
}

// inShard is a suite's selection ANDed with its part of shard s.
func inShard(s shard.Shard, suite string, selected func(path ...string) bool) (func(path ...string) bool, error) {
	if s.Whole() {
		return selected, nil
	}
	part, err := suitePart(s, suite)
	return shard.And(selected, part), err
}

// suitePart is a suite's part of shard s, over its unit paths.
func suitePart(s shard.Shard, suite string) (func(path ...string) bool, error) {
	switch suite {
	case "featherweight":
		items, err := fwItems()
		return featherweight.InShard(s, items), err
	case "microbench":
		tasks, err := mbTasks()
		return microbench.InShard(s, tasks), err
	case "featherbench":
		return featherbench.InShard(s), nil
	}
	return nil, fmt.Errorf("-shard: no suite %q", suite)
}

// markShard writes the shard marker into the run directory, if a suite
// made one: a run that wrote nothing leaves nothing behind.
func markShard(t *testing.T, d *rundir.Dir, s shard.Shard) {
	if !d.Created() {
		return
	}
	p, err := d.Path()
	if err == nil {
		err = shard.WriteMarker(p, s)
	}
	if err != nil {
		t.Error(err)
	}
}

// TestShardOption: a shard reaches each suite as its part of the run,
// ANDed with the suite's own selection, and marks a run directory that a
// suite wrote.
func TestShardOption(t *testing.T) {
	s := shard.Shard{Index: 2, Count: 3}
	onlyM := func(path ...string) bool { return path[0] == "m" }
	fb, err := inShard(s, "featherbench", onlyM)
	require.NoError(t, err)
	for trial := range 6 {
		tr := fmt.Sprint(trial + 1)
		assert.Equal(t, s.HasKey("code-x/"+tr), fb("m", "code-x", tr), "trial %s", tr)
		assert.False(t, fb("n", "code-x", tr), "the suite's selection still holds")
	}
	whole, err := inShard(shard.Shard{}, "featherbench", onlyM)
	require.NoError(t, err)
	assert.False(t, whole("n"), "unsharded, the selection is the suite's own")
	assert.True(t, whole("m", "code-x", "1"))

	_, err = inShard(s, "other", nil)
	assert.EqualError(t, err, `-shard: no suite "other"`)
	for _, suite := range []string{"featherweight", "microbench"} {
		p, err := inShard(s, suite, nil)
		require.NoError(t, err, suite)
		assert.True(t, p(), suite)
	}

	d := rundir.New(filepath.Join(t.TempDir(), "results"), time.Now())
	markShard(t, d, s)
	assert.False(t, d.Created(), "no suite wrote: no run directory")
	p, err := d.Path()
	require.NoError(t, err)
	markShard(t, d, s)
	got, ok, err := shard.ReadMarker(p)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, s, got)
}

// TestShardedRunsMergeLikeAWholeRun runs every suite on the built-in smoke
// model once whole and once in three shards, and checks that feather
// leaderboard and feather report, given the folder of shards, write what
// they write for the whole run, apart from run stamps and timings.
func TestShardedRunsMergeLikeAWholeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every suite four times on the smoke model")
	}
	root := t.TempDir()
	whole := shardRun(t, filepath.Join(root, "whole"), shard.Shard{})
	shards := filepath.Join(root, "shards")
	for i := 1; i <= 3; i++ {
		shardRun(t, filepath.Join(shards, fmt.Sprintf("job-%d", i)), shard.Shard{Index: i, Count: 3})
	}

	want, got := loadRuns(t, whole), loadRuns(t, shards)
	assert.Equal(t, boardOf(t, want), boardOf(t, got), "leaderboard.md and summary.json")
	for suite, md := range reportOf(t, want, whole) {
		assert.Equal(t, md, reportOf(t, got, shards)[suite], "report %s", suite)
	}
	require.Len(t, got.Microbench.Results, 1)
	assert.True(t, mbComparable(t, want.Microbench.Results[0]) == mbComparable(t, got.Microbench.Results[0]), "the μBench result file")
	for i := 1; i <= 3; i++ {
		fw, mb, fb := shardUnits(t, filepath.Join(shards, fmt.Sprintf("job-%d", i)))
		assert.True(t, fw > 0 && mb > 0 && fb > 0, "shard %d has units of every suite: %d, %d, %d", i, fw, mb, fb)
	}
}

// shardRun runs the three suites on the smoke model in shard s into a
// fresh run directory under results, and returns the run directory.
func shardRun(t *testing.T, results string, s shard.Shard) string {
	t.Helper()
	rd := rundir.New(results, time.Now())
	e := selectModels(t, "models/featherweight.example.json", []string{"smoke"})[0]
	m := openModel(t, e)
	info := modelInfo(e, m)

	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	fw := &featherweight.Run{Items: ds.Items, Styles: featherweight.Styles, Selected: featherweight.InShard(s, ds.Items)}
	out := fw.Model(t.Context(), info, m.(lm.Generator))
	require.NoError(t, featherweight.NewResults(ds.Info, func() (string, error) { return rd.Sub("featherweight") }).Add(out.ModelResult))

	tasks, err := mbTasks()
	require.NoError(t, err)
	mbc := &microbench.Collector{Dir: func() (string, error) { return rd.Sub("microbench") }, Stamp: rd.Stamp}
	mb := &microbench.Run{Tasks: tasks, Selected: microbench.InShard(s, tasks), Save: func(r *microbench.Result) error { _, err := mbc.Save(r); return err }}
	_, err = mb.Evaluate(t.Context(), info, m.(lm.Scorer))
	require.NoError(t, err)

	fbRunSmoke(t, rd, s)
	p, err := rd.Path()
	require.NoError(t, err)
	if !s.Whole() {
		require.NoError(t, shard.WriteMarker(p, s))
	}
	return p
}

// fbRunSmoke runs Featherbench's security tasks, two trials each, on the
// smoke model, without rubric judging.
func fbRunSmoke(t *testing.T, rd *rundir.Dir, s shard.Shard) {
	t.Helper()
	fb, err := featherbench.NewRun(featherbench.Config{
		TasksDir: "tasks", Categories: []string{"security"}, Catalog: "models/models.json", Models: []string{"smoke"},
		Trials: 2, Concurrency: 8, Rubric: featherbench.RubricOptions{Off: true}, Dir: rd, Selected: featherbench.InShard(s),
	})
	require.NoError(t, err)
	for _, e := range fb.Models() {
		_, err := fb.RunModel(t.Context(), e, openModel(t, e).(lm.Generator))
		require.NoError(t, err)
	}
	require.NoError(t, fb.Finish(nil))
}

func loadRuns(t *testing.T, dir string) *runs.Set {
	t.Helper()
	set, err := runs.Load([]string{dir}, runs.Options{TasksDir: "tasks"})
	require.NoError(t, err)
	for i := range set.Featherbench.Records {
		r := &set.Featherbench.Records[i]
		r.LatencyS, r.WallClockS = nil, nil // timings differ from run to run
	}
	return set
}

// stamps are run stamps, which differ between the runs compared.
var stamps = regexp.MustCompile(`\d{8}T\d{6}Z(-\d+)?`)

func boardOf(t *testing.T, set *runs.Set) string {
	t.Helper()
	s := leaderboard.Build(set)
	md, err := leaderboard.Markdown(set, s)
	require.NoError(t, err)
	js, err := json.MarshalIndent(s, "", "  ")
	require.NoError(t, err)
	return stamps.ReplaceAllString(md+string(js), "STAMP")
}

// reportOf is each suite's Markdown of feather report, by suite.
func reportOf(t *testing.T, set *runs.Set, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	if fb := set.Featherbench; fb != nil {
		out["featherbench"] = report.FeatherbenchMarkdown(fb.Records, fb.Categories())
	}
	data, results, warnings := report.MergeFeatherweight(set.Featherweight)
	md, err := report.FeatherweightMarkdown(data, results, warnings)
	require.NoError(t, err)
	out["featherweight"] = md
	out["microbench"] = report.MicrobenchMarkdown(set.Microbench.Results)
	for k, v := range out {
		out[k] = stamps.ReplaceAllString(v, "STAMP")
	}
	_, err = report.Build(report.Options{RunDirs: []string{dir}, TasksDir: "tasks", Out: filepath.Join(t.TempDir(), "report")})
	require.NoError(t, err, "feather report reads %s", dir)
	return out
}

// mbComparable is a μBench result file's content but for its stamp, its
// duration and the choices' log-probabilities: the smoke model's float32
// sums differ in the last digits with what else is in the batch, which the
// verdicts and every score above are compared without.
func mbComparable(t *testing.T, r *microbench.Result) string {
	t.Helper()
	c := *r
	c.Run, c.ScoringSeconds = "", 0
	c.Items = slices.Clone(c.Items)
	for i, it := range c.Items {
		c.Items[i].Choices = slices.Clone(it.Choices)
		for k := range it.Choices {
			c.Items[i].Choices[k].LogProb, c.Items[i].Choices[k].Value, c.Items[i].Choices[k].NullLogProb = 0, 0, nil
		}
	}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	return string(b)
}

// shardUnits counts the units one shard's run recorded in each suite.
func shardUnits(t *testing.T, results string) (fw, mb, fb int) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(results, "2*"))
	require.NoError(t, err)
	require.Len(t, dirs, 1)
	_, models, err := featherweight.ReadModelFiles(filepath.Join(dirs[0], "featherweight"))
	require.NoError(t, err)
	mbr, err := microbench.ReadResult(filepath.Join(dirs[0], "microbench", "smoke.json"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dirs[0], "featherbench", "results-*.jsonl"))
	require.NoError(t, err)
	recs, err := featherbench.ReadRecords(files...)
	require.NoError(t, err)
	return len(models[0].Records), len(mbr.Items) + len(mbr.Documents), len(recs)
}
