package feather_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/report/leaderboard"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

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
	info := e.Info(m)

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

// TestShardOption: -shard reaches a suite as its part of the run, marks
// the run directory, and a bad value stops the run before anything runs.
// It runs TestFeatherweight in a child test binary.
func TestShardOption(t *testing.T) {
	if os.Getenv("FEATHER_SHARD_CHILD") != "" {
		t.Skip("the child runs the suite itself")
	}
	child := func(args ...string) ([]byte, error) {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "FEATHER_SHARD_CHILD=1", "FEATHER_PROGRESS=0", "FEATHER_SHARD=", "FEATHER_MODELS=")
		return cmd.CombinedOutput()
	}
	out, err := child("-test.run=^$", "-shard=4/3")
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	assert.Equal(t, 2, exit.ExitCode())
	assert.Contains(t, string(out), `feather: -shard (FEATHER_SHARD) "4/3": shard 4 of 3 does not exist`)

	results := filepath.Join(t.TempDir(), "results")
	out, err = child("-test.run=^TestFeatherweight$", "-fw.style=plain", "-shard=2/3", "-results="+results)
	require.NoError(t, err, "%s", out)
	runDir, err := filepath.EvalSymlinks(filepath.Join(results, "latest"))
	require.NoError(t, err)
	s, ok, err := shard.ReadMarker(runDir)
	require.NoError(t, err)
	require.True(t, ok, "the run directory says which shard it holds")
	assert.Equal(t, shard.Shard{Index: 2, Count: 3}, s)
	var file struct {
		Items []struct{ ID string } `json:"items"`
	}
	b, err := os.ReadFile(filepath.Join(runDir, "featherweight", "models", "smoke.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &file))
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	part := featherweight.InShard(s, ds.Items)
	var want []string
	for _, it := range ds.Items {
		if part("plain", it.ID) {
			want = append(want, it.ID)
		}
	}
	var got []string
	for _, it := range file.Items {
		got = append(got, it.ID)
	}
	assert.Equal(t, want, got, "the second third of the items, and only those")
}
