package featherweight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runItems: four items whose scripted replies below are right, wrong,
// unparseable and a failed request.
var runItems = []Item{
	{ID: "q1", Category: "c1", Question: "One?", Choices: [4]string{"w", "x", "y", "z"}, Answer: 0},
	{ID: "q2", Category: "c1", Question: "Two?", Choices: [4]string{"w", "x", "y", "z"}, Answer: 2},
	{ID: "q3", Category: "c2", Question: "Three?", Choices: [4]string{"w", "x", "y", "z"}, Answer: 1},
	{ID: "q4", Category: "c2", Question: "Four?", Choices: [4]string{"w", "x", "y", "z"}, Answer: 3},
}

// scripted answers runItems by question: A, B, ???, and a failed request.
func scripted(req lm.GenerateRequest) lm.GenerateResult {
	for q, text := range map[string]string{"One?": "A", "Two?": "B", "Three?": "???"} {
		if strings.Contains(req.Prompt, q) {
			return lm.GenerateResult{Text: text, StopReason: lm.StopEOS}
		}
	}
	return lm.GenerateResult{StopReason: lm.StopError, Err: errors.New("HTTP 500")}
}

// wantUnits are scripted's units in a style.
func wantUnits(st Style) []unit.Unit {
	s := string(st)
	return []unit.Unit{
		{Path: []string{s, "q1"}, Section: 1, Status: unit.Pass, Log: `correct: reply "A" -> "A" by standalone_letter (answer A)`},
		{Path: []string{s, "q2"}, Section: 1, Status: unit.Fail, Log: `wrong: reply "B" -> "B" by standalone_letter (answer C)`, Miss: `answered "B", want C`},
		{Path: []string{s, "q3"}, Section: 1, Status: unit.Fail, Log: `parse error: reply "???" -> "" by parse_error (answer B)`, Miss: `answered "", want B`},
		{Path: []string{s, "q4"}, Section: 1, Status: unit.Error, Log: "no answer: HTTP 500"},
	}
}

// generatorFunc is a generator from a function, for batch failures.
type generatorFunc func(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error)

func (f generatorFunc) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return f(ctx, reqs)
}

// askedIDs are the items the model was sent, in order.
func askedIDs(m *fake.Model) []string {
	var ids []string
	for _, req := range m.Calls().Generate {
		for _, it := range runItems {
			if strings.Contains(req.Prompt, it.Question) {
				ids = append(ids, it.ID)
			}
		}
	}
	return ids
}

func TestRunUnitsAndScores(t *testing.T) {
	m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: scripted}
	var seen []unit.Unit
	r := &Run{Items: runItems, Styles: Styles, OnUnit: func(u unit.Unit) { seen = append(seen, u) }}
	assert.Equal(t, 8, r.Planned(), "4 items in 2 styles")
	out := r.Model(context.Background(), m.Info(), m)

	assert.Equal(t, lm.Info{Key: "m"}, out.Model)
	require.Len(t, out.Records, 8)
	for i, rec := range out.Records {
		assert.Equal(t, []string{string(Styles[i/4]), runItems[i%4].ID}, rec.Path())
	}
	assert.Equal(t, append(wantUnits(Plain), wantUnits(Completion)...), out.Units)
	assert.Equal(t, out.Units, Units(out.Records))
	assert.Equal(t, out.Units, seen, "OnUnit gets every unit")
	assert.Equal(t, 2, m.Calls().Batches, "one batch per style")

	se := 100 * math.Sqrt(0.25*0.75/4)
	assert.Equal(t, []unit.Score{{Section: []string{"plain"}, Value: 25, SE: se}, {Section: []string{"completion"}, Value: 25, SE: se}},
		Scores(out.Records))
	assert.Nil(t, Scores(nil))
}

// TestRunNotes: the lines a run logs, as the go test runner prints them.
func TestRunNotes(t *testing.T) {
	var notes []string
	logf := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: scripted}
	(&Run{Items: runItems, Styles: []Style{Plain}, Logf: logf}).Model(context.Background(), m.Info(), m)
	require.Len(t, notes, 2)
	assert.Regexp(t, `^4 plain prompts answered in [0-9.hmµns]+$`, notes[0])
	assert.Equal(t, "m plain: 25.0% (1/4, 95% CI 4.6–69.9), 1 parse errors, incomplete: 1 failed requests counted as wrong", notes[1])

	notes = nil
	right := &fake.Model{ModelInfo: lm.Info{Key: "r"}, Reply: fake.Text("A")}
	(&Run{Items: runItems[:1], Styles: []Style{Completion}, Logf: logf}).Model(context.Background(), right.Info(), right)
	require.Len(t, notes, 2)
	assert.Equal(t, "r completion: 100.0% (1/1, 95% CI 20.7–100.0), 0 parse errors", notes[1])
}

func TestRunSelectionCutsWork(t *testing.T) {
	tests := []struct {
		name     string
		selected func(path ...string) bool
		batches  int
		ids      []string
		units    []unit.Unit
	}{
		{"all", nil, 2, []string{"q1", "q2", "q3", "q4", "q1", "q2", "q3", "q4"}, append(wantUnits(Plain), wantUnits(Completion)...)},
		{"one style", func(p ...string) bool { return p[0] == "completion" }, 1, []string{"q1", "q2", "q3", "q4"}, wantUnits(Completion)},
		{"items", func(p ...string) bool { return p[1] == "q2" || p[0] == "plain" && p[1] == "q4" },
			2, []string{"q2", "q4", "q2"}, []unit.Unit{wantUnits(Plain)[1], wantUnits(Plain)[3], wantUnits(Completion)[1]}},
		{"none", func(...string) bool { return false }, 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: scripted}
			r := &Run{Items: runItems, Styles: Styles, Selected: tt.selected}
			assert.Equal(t, tt.batches > 0, r.Any())
			assert.Equal(t, len(tt.units), r.Planned(), "a unit per selected item and style")
			out := r.Model(context.Background(), m.Info(), m)
			assert.Equal(t, tt.batches, m.Calls().Batches)
			assert.Equal(t, tt.ids, askedIDs(m))
			assert.Equal(t, tt.units, out.Units)
			assert.Len(t, out.Records, len(tt.ids))
		})
	}
}

func TestRunStopStartsNothing(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	cancel()
	m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: scripted}
	var seen []unit.Unit
	out := (&Run{Items: runItems, Styles: Styles, Stop: stop, OnUnit: func(u unit.Unit) { seen = append(seen, u) }}).
		Model(context.Background(), m.Info(), m)
	assert.Zero(t, m.Calls().Batches, "no prompt was sent")
	assert.Empty(t, out.Records)
	assert.Empty(t, out.Units)
	assert.Empty(t, seen)
}

// TestRunStopFinishesTheBatch: a stop during a batch lets it finish and
// starts no later style.
func TestRunStopFinishesTheBatch(t *testing.T) {
	stop, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: func(req lm.GenerateRequest) lm.GenerateResult {
		cancel()
		return scripted(req)
	}}
	out := (&Run{Items: runItems, Styles: Styles, Stop: stop}).Model(context.Background(), m.Info(), m)
	assert.Equal(t, 1, m.Calls().Batches)
	assert.Equal(t, wantUnits(Plain), out.Units)
	assert.Len(t, out.Records, 4)
}

// TestRunOnUnitAsItGoes: a style's units are reported before the next
// style's batch is sent.
func TestRunOnUnitAsItGoes(t *testing.T) {
	var seen []unit.Unit
	var seenAtCompletion []int
	g := generatorFunc(func(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
		if strings.HasPrefix(reqs[0].Prompt, "Question:") { // a completion prompt
			seenAtCompletion = append(seenAtCompletion, len(seen))
		}
		out := make([]lm.GenerateResult, len(reqs))
		for i, req := range reqs {
			out[i] = scripted(req)
		}
		return out, nil
	})
	(&Run{Items: runItems, Styles: Styles, OnUnit: func(u unit.Unit) { seen = append(seen, u) }}).
		Model(context.Background(), lm.Info{Key: "m"}, g)
	assert.Equal(t, []int{4}, seenAtCompletion)
	assert.Len(t, seen, 8)
}

// TestRunBatchFailure: a batch that fails whole is one failing unit, the
// style's own, with no records; the next style still runs.
func TestRunBatchFailure(t *testing.T) {
	calls := 0
	g := generatorFunc(func(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
		if calls++; calls == 1 {
			return nil, errors.New("connection refused")
		}
		out := make([]lm.GenerateResult, len(reqs))
		for i, req := range reqs {
			out[i] = scripted(req)
		}
		return out, nil
	})
	var seen []unit.Unit
	out := (&Run{Items: runItems, Styles: Styles, OnUnit: func(u unit.Unit) { seen = append(seen, u) }}).
		Model(context.Background(), lm.Info{Key: "m"}, g)
	want := append([]unit.Unit{{Path: []string{"plain"}, Section: 1, Status: unit.Error, Log: "model m, plain prompts: connection refused"}},
		wantUnits(Completion)...)
	assert.Equal(t, want, out.Units)
	assert.Equal(t, want, seen)
	assert.Len(t, out.Records, 4)
	assert.Equal(t, []unit.Score{{Section: []string{"completion"}, Value: 25, SE: 100 * math.Sqrt(0.25*0.75/4)}}, Scores(out.Records))
}

// readTree is every file under dir by its slash path, "" when dir is absent.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	return out
}

// TestResultsWritesEachModel: every Add leaves the model's file and the
// summaries over the models so far on disk, the folder made at the first.
func TestResultsWritesEachModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "featherweight")
	asked := 0
	w := NewResults(sampleData, func() (string, error) {
		asked++
		return dir, nil
	})
	require.NoError(t, w.Add(ModelResult{Model: lm.Info{Key: "none"}}))
	assert.Zero(t, asked, "a model without records creates no folder")
	assert.NoDirExists(t, dir)

	results := sampleResults()
	for i, r := range results {
		require.NoError(t, w.Add(r))
		want := t.TempDir()
		for _, done := range results[:i+1] {
			_, err := WriteModelFile(want, sampleData, done)
			require.NoError(t, err)
		}
		require.NoError(t, WriteSummaries(want, sampleData, results[:i+1]))
		assert.Equal(t, readTree(t, want), readTree(t, dir), "after %s", r.Model.Key)
	}
	assert.Equal(t, len(results), asked)
}

func TestResultsErrors(t *testing.T) {
	w := NewResults(sampleData, func() (string, error) { return "", errors.New("no results folder") })
	assert.EqualError(t, w.Add(sampleResults()[0]), "no results folder")

	w = NewResults(sampleData, func() (string, error) { return t.TempDir(), nil })
	bad := ModelResult{Model: lm.Info{Key: "../x"}, Records: []Record{rec("geo01", "geography", Plain, true, false)}}
	assert.EqualError(t, w.Add(bad), `model key "../x" cannot name a results file; use letters, digits, '-', '_' or '.'`)
}
