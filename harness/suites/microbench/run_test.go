package microbench_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/unit"
	mb "github.com/feather-eval/feather/harness/suites/microbench"
)

// paths selects exactly the unit paths given as "task/id".
func paths(want ...string) func(path ...string) bool {
	return func(path ...string) bool { return slices.Contains(want, strings.Join(path, "/")) }
}

func TestRunSelectedCutsTheWork(t *testing.T) {
	tasks, m := designedModel()
	r := &mb.Run{Tasks: tasks, Selected: paths("pmi/b4", "bpb/doc-b")}
	require.True(t, r.AnySelected())
	assert.Equal(t, 2, r.Planned(), "an item and a document")
	res, err := r.Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	calls := m.Calls()
	assert.Len(t, calls.LogLikelihood, 8, "4 choices and their 4 null requests")
	assert.Equal(t, []string{strings.Repeat("é", 30)}, calls.Rolling)
	assert.Equal(t, 2, calls.Batches)
	require.Len(t, res.Items, 1)
	assert.Equal(t, []string{"pmi", "b4"}, res.Items[0].Path())
	require.Len(t, res.Documents, 1)
	assert.Equal(t, []string{"bpb", "doc-b"}, res.Documents[0].Path())

	assert.False(t, (&mb.Run{Tasks: tasks, Selected: paths()}).AnySelected())
	assert.Zero(t, (&mb.Run{Tasks: tasks, Selected: paths()}).Planned())
	assert.True(t, (&mb.Run{Tasks: tasks}).AnySelected(), "nil Selected selects every unit")
	all := 0
	for _, tk := range tasks {
		all += len(tk.Items)
	}
	assert.Equal(t, all, (&mb.Run{Tasks: tasks}).Planned())
}

func TestRunUnits(t *testing.T) {
	tasks, m := designedModel()
	inner := m.LogProb
	m.LogProb = func(r lm.LLRequest) lm.LLResult {
		if r.Context == "A3" && r.Continuation == " y" {
			return lm.LLResult{Err: errors.New("backend exploded")}
		}
		return inner(r)
	}
	tasks[len(tasks)-1].Items[1].Text = "unscripted" // doc-b's request fails
	r := &mb.Run{Tasks: tasks, Selected: paths("pairs/a1", "pairs/a3", "pairs/a4", "bytes/c2", "bpb/doc-a", "bpb/doc-b")}
	res, err := r.Evaluate(context.Background(), m.Info(), m)
	assert.True(t, mb.Partial(err), "%v", err)

	assert.Equal(t, []unit.Unit{
		{Path: []string{"pairs", "a1"}, Status: unit.Pass, Log: `correct: chose gold "x" (-1.0000), ahead of "y" (-2.0000), left-truncated`},
		{Path: []string{"pairs", "a3"}, Status: unit.Error, Log: `not scored: choice 1 " y": backend exploded`},
		{Path: []string{"pairs", "a4"}, Status: unit.Fail, Log: `wrong: chose "x" (-1.0000) over gold "y" (-2.0000)`, Miss: `chose "x", want "y"`},
		{Path: []string{"bytes", "c2"}, Status: unit.Pass, Log: `correct: chose gold "a" (-0.5000), ahead of "abcdefg" (-1.0000), left-truncated`},
		{Path: []string{"bpb", "doc-a"}, Status: unit.Measured, Log: "1.0000 bits per byte: 100.0 bits over 100 bytes, 10 tokens in 1 windows"},
		{Path: []string{"bpb", "doc-b"}, Status: unit.Error, Log: "not scored: unscripted text"},
	}, r.Units(res))

	// A selected unit the result has no record of is skipped, not failed.
	wider := &mb.Run{Tasks: tasks, Selected: paths("pairs/a1", "pairs/a2", "bpb/doc-c", "bpb/doc-a")}
	tasks[len(tasks)-1].Items[1].ID = "doc-c"
	assert.Equal(t, []unit.Unit{
		{Path: []string{"pairs", "a1"}, Status: unit.Pass, Log: `correct: chose gold "x" (-1.0000), ahead of "y" (-2.0000), left-truncated`},
		{Path: []string{"pairs", "a2"}, Status: unit.Unsupported, Log: "not scored: outside the -run filter"},
		{Path: []string{"bpb", "doc-a"}, Status: unit.Measured, Log: "1.0000 bits per byte: 100.0 bits over 100 bytes, 10 tokens in 1 windows"},
		{Path: []string{"bpb", "doc-c"}, Status: unit.Unsupported, Log: "not scored: outside the -run filter"},
	}, wider.Units(res))
}

func TestRunScores(t *testing.T) {
	tasks, m := designedModel()
	res, err := (&mb.Run{Tasks: tasks}).Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	assert.Equal(t, []unit.Score{{Value: *res.Index, SE: *res.StandardErrors.Index}}, mb.Scores(res))
	assert.InDelta(t, 40.57185520612712, mb.Scores(res)[0].Value, 1e-9)

	tasks, m = designedModel()
	res, err = (&mb.Run{Tasks: tasks, Selected: paths("pairs/a1")}).Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	s := mb.Scores(res)
	require.Len(t, s, 1)
	assert.Nil(t, s[0].Section)
	assert.True(t, math.IsNaN(s[0].Value), "a run -run cut short has no index")
	assert.Zero(t, s[0].SE)
}

// TestRunOnScoring: while the model scores, OnScoring hears the scorer's
// progress, first in requests, then in the documents' windows, each
// announced at 0 as its call starts and ending at its total, all before
// the first unit.
func TestRunOnScoring(t *testing.T) {
	tasks, m := designedModel()
	var events []string
	r := &mb.Run{
		Tasks: tasks,
		OnScoring: func(kind string, done, total int) {
			events = append(events, fmt.Sprintf("%s %d/%d", kind, done, total))
		},
		OnUnit: func(unit.Unit) { events = append(events, "unit") },
	}
	_, err := r.Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	calls := m.Calls()
	n, docs := len(calls.LogLikelihood), len(calls.Rolling)
	require.Greater(t, n, 1)
	require.Greater(t, docs, 1)
	var want []string
	for i := 0; i <= n; i++ {
		want = append(want, fmt.Sprintf("requests %d/%d", i, n))
	}
	for i := 0; i <= docs; i++ {
		want = append(want, fmt.Sprintf("windows %d/%d", i, docs))
	}
	require.Greater(t, len(events), len(want))
	assert.Equal(t, want, events[:len(want)])
	for _, e := range events[len(want):] {
		assert.Equal(t, "unit", e)
	}
}

// TestRunOnUnitSaveAndNotes: every unit reaches OnUnit, then the result is
// saved, then the notes are logged.
func TestRunOnUnitSaveAndNotes(t *testing.T) {
	for _, levels := range []bool{false, true} {
		t.Run(fmt.Sprint("levels=", levels), func(t *testing.T) {
			tasks, m := designedModel()
			var events []string
			var saved *mb.Result
			r := &mb.Run{
				Tasks:      tasks,
				ShowLevels: levels,
				OnUnit:     func(u unit.Unit) { events = append(events, "unit "+strings.Join(u.Path, "/")) },
				Save:       func(res *mb.Result) error { saved = res; events = append(events, "save"); return nil },
				Log:        func(text string) { events = append(events, text) },
			}
			res, err := r.Evaluate(context.Background(), m.Info(), m)
			require.NoError(t, err)
			assert.Same(t, res, saved)
			var want []string
			for _, u := range r.Units(res) {
				want = append(want, "unit "+strings.Join(u.Path, "/"))
			}
			assert.Len(t, want, 22)
			want = append(want, "save", mb.Summary(res)+"\n")
			if levels {
				want = append(want, mb.LevelsTable(res))
			}
			assert.Equal(t, want, events)
		})
	}
}

func TestRunErrors(t *testing.T) {
	t.Run("nothing scored: saved, no notes", func(t *testing.T) {
		tasks, m := designedModel()
		m.LogProb = func(lm.LLRequest) lm.LLResult { return lm.LLResult{Err: errors.New("no")} }
		var saved, units int
		var notes []string
		r := &mb.Run{Tasks: tasks, Selected: paths("pairs/a1"),
			OnUnit: func(unit.Unit) { units++ },
			Save:   func(*mb.Result) error { saved++; return nil },
			Log:    func(s string) { notes = append(notes, s) }}
		res, err := r.Evaluate(context.Background(), m.Info(), m)
		require.NotNil(t, res)
		var re *mb.RequestErrors
		require.ErrorAs(t, err, &re)
		assert.True(t, re.All())
		assert.False(t, mb.Partial(err))
		assert.Equal(t, 1, saved)
		assert.Equal(t, 1, units)
		assert.Empty(t, notes)
	})
	t.Run("failed batch: no result", func(t *testing.T) {
		tasks, _ := designedModel()
		saved := false
		r := &mb.Run{Tasks: tasks, Save: func(*mb.Result) error { saved = true; return nil }}
		res, err := r.Evaluate(context.Background(), lm.Info{}, batchError{})
		assert.Nil(t, res)
		assert.ErrorContains(t, err, "μBench: scoring")
		assert.False(t, mb.Partial(err))
		assert.False(t, saved)
	})
	t.Run("failed save ends the run", func(t *testing.T) {
		tasks, m := designedModel()
		var notes []string
		r := &mb.Run{Tasks: tasks, Save: func(*mb.Result) error { return errors.New("disk full") },
			Log: func(s string) { notes = append(notes, s) }}
		res, err := r.Evaluate(context.Background(), m.Info(), m)
		assert.NotNil(t, res)
		assert.EqualError(t, err, "disk full")
		assert.Empty(t, notes)
	})
	assert.False(t, mb.Partial(nil))
	assert.False(t, mb.Partial(errors.New("other")))
	assert.True(t, mb.Partial(fmt.Errorf("wrapped: %w", &mb.RequestErrors{Failed: 1, Total: 2})))
}

func TestCollectorWritesResultsAndLeaderboard(t *testing.T) {
	tasks, m := designedModel()
	res, err := (&mb.Run{Tasks: tasks}).Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	root := t.TempDir()
	dir := filepath.Join(root, "microbench")
	made := 0
	c := &mb.Collector{
		Dir:   func() (string, error) { made++; return dir, os.MkdirAll(dir, 0o755) },
		Stamp: func() string { return "20260704T101530Z" },
	}
	_, err = os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist, "nothing made before the first save")

	p1, err := c.Save(res)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "designed.json"), p1)
	assert.Equal(t, "20260704T101530Z", res.Run)
	back, err := mb.ReadResult(p1)
	require.NoError(t, err)
	assert.Equal(t, res, back)
	board, err := os.ReadFile(filepath.Join(dir, "leaderboard.md"))
	require.NoError(t, err)
	assert.Equal(t, mb.Leaderboard([]*mb.Result{res}), string(board))

	// The same model again gets its own file; the leaderboard lists both.
	p2, err := c.Save(res)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "designed-2.json"), p2)
	board, err = os.ReadFile(filepath.Join(dir, "leaderboard.md"))
	require.NoError(t, err)
	assert.Equal(t, mb.Leaderboard([]*mb.Result{res, res}), string(board))
	assert.Equal(t, 2, made)

	_, err = (&mb.Collector{Dir: func() (string, error) { return "", errors.New("no run dir") }}).Save(res)
	assert.EqualError(t, err, "no run dir")
}

// TestCollectorReplacesAnEarlierAttempt: a resumed run (-resume, after a
// crash or a kill) scores its models again into the same folder. Each
// model's file from the attempt before, whole or cut short mid-write, is
// replaced, not joined by a second file: the leaderboard counts every
// model once and reads no torn file.
func TestCollectorReplacesAnEarlierAttempt(t *testing.T) {
	tasks, m := designedModel()
	res, err := (&mb.Run{Tasks: tasks}).Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	for _, earlier := range []struct {
		name string
		file func(whole []byte) []byte
	}{
		{"whole", func(whole []byte) []byte { return whole }},
		{"cut short", func(whole []byte) []byte { return whole[:len(whole)/2] }},
	} {
		t.Run(earlier.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := (&mb.Collector{Dir: func() (string, error) { return dir, nil }}).Save(res)
			require.NoError(t, err)
			whole, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, earlier.file(whole), 0o644))

			resumed := &mb.Collector{Dir: func() (string, error) { return dir, nil }}
			p2, err := resumed.Save(res)
			require.NoError(t, err)
			assert.Equal(t, p, p2)
			again, err := os.ReadFile(p2)
			require.NoError(t, err)
			assert.Equal(t, whole, again)
			names, err := filepath.Glob(filepath.Join(dir, "*"))
			require.NoError(t, err)
			assert.Equal(t, []string{filepath.Join(dir, "designed.json"), filepath.Join(dir, "leaderboard.md")}, names, "no second file, no temporary file left")
			board, err := os.ReadFile(filepath.Join(dir, "leaderboard.md"))
			require.NoError(t, err)
			assert.Equal(t, mb.Leaderboard([]*mb.Result{res}), string(board))
		})
	}
}

func TestCollectorReportsTheResultFileWhenTheLeaderboardFails(t *testing.T) {
	tasks, m := designedModel()
	res, err := (&mb.Run{Tasks: tasks, Selected: paths("pairs/a1")}).Evaluate(context.Background(), m.Info(), m)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "stray.json"), []byte(`{"suite": "Featherbench"}`), 0o644))
	c := &mb.Collector{Dir: func() (string, error) { return dir, nil }}
	p, err := c.Save(res)
	assert.Equal(t, filepath.Join(dir, "designed.json"), p)
	assert.ErrorContains(t, err, `suite is "Featherbench"`)
	assert.Empty(t, res.Run, "no Stamp, no run recorded")
}

// TestItemUnitLog: a right answer is shown against the best other
// choice, the margin it won by, never against itself.
func TestItemUnitLog(t *testing.T) {
	choices := func(vs ...float64) []mb.ChoiceRecord {
		out := make([]mb.ChoiceRecord, len(vs))
		for i, v := range vs {
			out[i] = mb.ChoiceRecord{Text: string(rune('a' + i)), Value: v}
		}
		return out
	}
	for _, tt := range []struct {
		name string
		rec  mb.ItemRecord
		want string
	}{
		{"right", mb.ItemRecord{Choices: choices(-3, -1, -2), Gold: 1, Prediction: 1, Correct: true}, `correct: chose gold "b" (-1.0000), ahead of "c" (-2.0000)`},
		{"right on a tie", mb.ItemRecord{Choices: choices(-1, -1), Gold: 0, Prediction: 0, Correct: true, Tie: true}, `correct: chose gold "a" (-1.0000), tied with "b" (-1.0000): a tie goes to the first choice`},
		{"wrong", mb.ItemRecord{Choices: choices(-3, -1), Gold: 0, Prediction: 1}, `wrong: chose "b" (-1.0000) over gold "a" (-3.0000)`},
	} {
		assert.Equal(t, tt.want, tt.rec.Unit().Log, tt.name)
	}
}
