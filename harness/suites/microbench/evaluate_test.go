package microbench_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	mb "github.com/feather-eval/feather/harness/suites/microbench"
)

// scripted answers log P(continuation | context) from a table keyed
// "context|continuation"; an unscripted request is an error, so a test
// notices any request it did not design.
func scripted(table map[string]float64, truncated map[string]bool) func(lm.LLRequest) lm.LLResult {
	return func(r lm.LLRequest) lm.LLResult {
		k := r.Context + "|" + r.Continuation
		lp, ok := table[k]
		if !ok {
			return lm.LLResult{Err: fmt.Errorf("unscripted request %q", k)}
		}
		return lm.LLResult{LogProb: lp, ContextTokens: 1, ContinuationTokens: 1, Truncated: truncated[k]}
	}
}

var oneLevel = map[int]string{1: "only", 2: "second"}

func item(id, ctx string, gold int, group string, choices ...string) mb.Item {
	return mb.Item{ID: id, Level: 1, Group: group, Context: ctx, Choices: choices, Gold: gold, Source: "test"}
}

// designedSuite has one task per domain except D5, which has two, with
// scripted log-probabilities whose scores are computed by hand below.
func designedSuite() ([]*mb.Task, map[string]float64, map[string]bool, map[string]float64) {
	tasks := []*mb.Task{
		{ID: "pairs", Domain: "D1", Reduction: mb.Sum, Grouped: true, Levels: oneLevel, Items: []mb.Item{
			item("a1", "A1", 0, "p1", "x", "y"), item("a2", "A2", 1, "p1", "x", "y"),
			item("a3", "A3", 0, "p2", "x", "y"), item("a4", "A4", 1, "p2", "x", "y"),
		}},
		{ID: "pmi", Domain: "D2", Reduction: mb.PMI, Levels: oneLevel, Items: []mb.Item{
			item("b1", "B1", 0, "", "cat", "dog", "sun", "hat"),
			item("b2", "B2", 1, "", "cat", "dog", "sun", "hat"),
			item("b3", "B3", 2, "", "cat", "dog", "sun", "hat"),
			item("b4", "B4", 3, "", "cat", "dog", "sun", "hat"),
		}},
		{ID: "bytes", Domain: "D3", Reduction: mb.MeanByte, Levels: oneLevel, Items: []mb.Item{
			item("c1", "C1", 1, "", "a", "abcdefg"), item("c2", "C2", 0, "", "a", "abcdefg"), item("c3", "C3", 0, "", "a", "abcdefg"),
		}},
		{ID: "below", Domain: "D4", Reduction: mb.Sum, Levels: oneLevel, Items: []mb.Item{
			item("d1", "D1", 0, "", "x", "y"), item("d2", "D2", 1, "", "x", "y"),
		}},
		{ID: "kvaries", Domain: "D5", Reduction: mb.Sum, Levels: oneLevel, Items: []mb.Item{
			item("e1", "E1", 0, "", "x", "y"), item("e2", "E2", 1, "", "x", "y", "z"), item("e3", "E3", 3, "", "w", "x", "y", "z"),
		}},
		{ID: "threeq", Domain: "D5", Reduction: mb.Sum, Levels: oneLevel, Items: []mb.Item{
			item("f1", "F1", 0, "", "x", "y"), item("f2", "F2", 0, "", "x", "y"), item("f3", "F3", 0, "", "x", "y"), item("f4", "F4", 0, "", "x", "y"),
		}},
		{ID: "bpb", Domain: "D6", Reduction: mb.BitsPerByte, Levels: oneLevel, Items: []mb.Item{
			{ID: "doc-a", Level: 1, Text: strings.Repeat("a", 100), Source: "test"},
			{ID: "doc-b", Level: 2, Text: strings.Repeat("é", 30), Source: "test"}, // 60 UTF-8 bytes
		}},
	}
	table := map[string]float64{
		// pairs: p1 both right, p2 one wrong → 1 of 2 units.
		"A1| x": -1, "A1| y": -2, "A2| x": -3, "A2| y": -1,
		"A3| x": -1, "A3| y": -2, "A4| x": -1, "A4| y": -2,
		// pmi: the raw sum would pick "dog" in B1; pmi picks the gold in
		// B1-B3 and "cat" in B4.
		"Answer:| cat": -6, "Answer:| dog": -2, "Answer:| sun": -4, "Answer:| hat": -5,
		"B1| cat": -3, "B1| dog": -2.5, "B1| sun": -4.5, "B1| hat": -6,
		"B2| cat": -7, "B2| dog": -1, "B2| sun": -4, "B2| hat": -5,
		"B3| cat": -6, "B3| dog": -2, "B3| sun": -3, "B3| hat": -5,
		"B4| cat": -4, "B4| dog": -2, "B4| sun": -4, "B4| hat": -5.5,
		// bytes: " a" is 2 bytes, " abcdefg" 8; C1's gold loses on sum and wins per byte.
		"C1| a": -2, "C1| abcdefg": -4, "C2| a": -1, "C2| abcdefg": -8, "C3| a": -4, "C3| abcdefg": -8,
		// below: both wrong, accuracy 0 under chance 1/2.
		"D1| x": -2, "D1| y": -1, "D2| x": -1, "D2| y": -2,
		// kvaries: all right.
		"E1| x": -1, "E1| y": -2, "E2| x": -2, "E2| y": -1, "E2| z": -3,
		"E3| w": -4, "E3| x": -4, "E3| y": -4, "E3| z": -1,
		// threeq: 3 of 4.
		"F1| x": -1, "F1| y": -2, "F2| x": -1, "F2| y": -2, "F3| x": -1, "F3| y": -2, "F4| x": -2, "F4| y": -1,
	}
	truncated := map[string]bool{"A1| x": true, "C2| abcdefg": true}
	rolling := map[string]float64{
		strings.Repeat("a", 100): -100 * math.Ln2, // 100 bits over 100 bytes
		strings.Repeat("é", 30):  -120 * math.Ln2, // 120 bits over 60 bytes
	}
	return tasks, table, truncated, rolling
}

func designedModel() ([]*mb.Task, *fake.Model) {
	tasks, table, truncated, rolling := designedSuite()
	m := &fake.Model{
		ModelInfo: lm.Info{Key: "designed", Name: "Designed", Backend: "fake", Path: "/models/designed", Params: 1234567},
		LogProb:   scripted(table, truncated),
		Rolling: func(text string) lm.RollingResult {
			lp, ok := rolling[text]
			if !ok {
				return lm.RollingResult{Err: errors.New("unscripted text")}
			}
			return lm.RollingResult{LogProb: lp, Tokens: 10, Bytes: len(text), Windows: 1}
		},
	}
	return tasks, m
}

func TestEvaluateDesignedScores(t *testing.T) {
	tasks, m := designedModel()
	for _, tk := range tasks {
		require.NoError(t, tk.Validate())
	}
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	require.NoError(t, err)

	// Hand-computed: score = 100·max(0,(acc−chance)/(1−chance)),
	// se = 100·√(acc(1−acc)/units)/(1−chance).
	want := []struct {
		id                   string
		units, correct       int
		chance, score, se    float64
		accuracy             float64
		truncated, itemCount int
	}{
		{"pairs", 2, 1, 0.25, 100.0 / 3, 47.14045207910317, 0.5, 1, 4},
		{"pmi", 4, 3, 0.25, 200.0 / 3, 28.867513459481287, 0.75, 0, 4},
		{"bytes", 3, 2, 0.5, 100.0 / 3, 54.433105395181734, 2.0 / 3, 1, 3},
		{"below", 2, 0, 0.5, 0, 0, 0, 0, 2},
		{"kvaries", 3, 3, 13.0 / 36, 100, 0, 1, 0, 3},
		{"threeq", 4, 3, 0.5, 50, 43.30127018922193, 0.75, 0, 4},
	}
	require.Len(t, res.Tasks, len(tasks))
	for i, w := range want {
		tr := res.Tasks[i]
		assert.Equal(t, w.id, tr.ID)
		assert.Equal(t, w.units, tr.Units, w.id)
		assert.Equal(t, w.correct, tr.CorrectUnits, w.id)
		assert.Equal(t, w.itemCount, tr.Items, w.id)
		assert.InDelta(t, w.chance, tr.Chance, 1e-12, w.id)
		assert.InDelta(t, w.accuracy, tr.Accuracy, 1e-12, w.id)
		assert.InDelta(t, w.score, tr.Score, 1e-9, w.id)
		assert.InDelta(t, w.se, tr.SE, 1e-9, w.id)
		assert.Equal(t, w.truncated, tr.Truncated, w.id)
		assert.Equal(t, w.truncated, res.TruncatedItems[w.id], w.id)
		assert.True(t, tr.Complete, w.id)
	}

	// Bits per byte: (100+120) bits / (100+60) bytes = 1.375.
	bpb := res.Tasks[6]
	require.NotNil(t, bpb.BitsPerByte)
	assert.InDelta(t, 1.375, *bpb.BitsPerByte, 1e-12)
	assert.InDelta(t, 100*math.Log(2.5/1.375)/math.Log(5), bpb.Score, 1e-9)
	assert.InDelta(t, 37.1457013741808, bpb.Score, 1e-9)
	assert.InDelta(t, 0.46875, *bpb.BitsPerByteSE, 1e-12) // √(2·(37.5²+37.5²))/160
	assert.InDelta(t, 21.18187276907768, bpb.SE, 1e-9)
	assert.Equal(t, 160, bpb.Bytes)
	require.Len(t, bpb.Levels, 2)
	assert.InDelta(t, 1.0, *bpb.Levels[0].BitsPerByte, 1e-12)
	assert.InDelta(t, 2.0, *bpb.Levels[1].BitsPerByte, 1e-12)

	// Domains: one task each, D5 the mean of 100 and 50.
	wantDomains := map[string]float64{"D1": 100.0 / 3, "D2": 200.0 / 3, "D3": 100.0 / 3, "D4": 0, "D5": 75, "D6": 37.1457013741808}
	require.Len(t, res.DomainScores, 6)
	for d, v := range wantDomains {
		assert.InDelta(t, v, res.DomainScores[d], 1e-9, d)
	}
	assert.InDelta(t, 21.650635094610966, res.StandardErrors.Domains["D5"], 1e-9) // √(0²+43.30²)/2
	require.NotNil(t, res.Index)
	assert.InDelta(t, 40.57185520612712, *res.Index, 1e-9)
	assert.InDelta(t, 12.816465217905755, *res.StandardErrors.Index, 1e-9)
	assert.True(t, res.Complete)

	// The spec's fields.
	assert.Equal(t, "/models/designed", res.ModelPath)
	assert.Equal(t, int64(1234567), res.NumParameters)
	assert.Equal(t, mb.Seed, res.Seed)
	assert.Equal(t, 512, res.MaxLength)
	assert.InDelta(t, 50, res.TaskScores["threeq"], 1e-12)
}

func TestEvaluateBatchesAndComputesNullRequestsOnce(t *testing.T) {
	tasks, m := designedModel()
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	require.NoError(t, err)
	calls := m.Calls()
	assert.Equal(t, 2, calls.Batches, "one LogLikelihood and one RollingLogLikelihood call")
	// 8 + 16 + 6 + 4 + 9 + 8 choice requests and 4 distinct null requests.
	assert.Len(t, calls.LogLikelihood, 55)
	assert.Equal(t, mb.Requests{LogLikelihood: 55, Null: 4, Rolling: 2}, res.Requests)
	seen := map[lm.LLRequest]int{}
	for _, r := range calls.LogLikelihood {
		seen[r]++
	}
	for _, c := range []string{" cat", " dog", " sun", " hat"} {
		assert.Equal(t, 1, seen[lm.LLRequest{Context: mb.NullContext, Continuation: c}], "null request for %q", c)
	}
	for r, n := range seen {
		assert.Equal(t, 1, n, "request %+v sent %d times", r, n)
	}
	assert.Len(t, calls.Rolling, 2)
}

func TestEvaluateRecordsItems(t *testing.T) {
	tasks, m := designedModel()
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	require.NoError(t, err)

	b1, ok := res.Item("pmi", "b1")
	require.True(t, ok)
	assert.Equal(t, 0, b1.Prediction)
	assert.True(t, b1.Correct)
	require.Len(t, b1.Choices, 4)
	assert.Equal(t, " dog", b1.Choices[1].Continuation)
	assert.Equal(t, -2.5, b1.Choices[1].LogProb)
	require.NotNil(t, b1.Choices[1].NullLogProb)
	assert.Equal(t, -2.0, *b1.Choices[1].NullLogProb)
	assert.Equal(t, -0.5, b1.Choices[1].Value)

	c1, _ := res.Item("bytes", "c1")
	assert.Equal(t, 8, c1.Choices[1].Bytes)
	assert.Equal(t, -0.5, c1.Choices[1].Value)
	assert.Equal(t, 1, c1.Prediction)
	c2, _ := res.Item("bytes", "c2")
	assert.True(t, c2.Truncated)
	assert.True(t, c2.Choices[1].Truncated)
	assert.False(t, c2.Choices[0].Truncated)

	// E3 ties three choices at −4 below the gold; F-items have no tie.
	e3, _ := res.Item("kvaries", "e3")
	assert.False(t, e3.Tie)
	a4, _ := res.Item("pairs", "a4")
	assert.False(t, a4.Correct)
	assert.Equal(t, 0, a4.Prediction)

	assert.Equal(t, map[string]bool{
		"pairs/a1": true, "pairs/a2": true, "pairs/a3": true, "pairs/a4": false,
		"pmi/b1": true, "pmi/b2": true, "pmi/b3": true, "pmi/b4": false,
		"bytes/c1": true, "bytes/c2": true, "bytes/c3": false,
		"below/d1": false, "below/d2": false,
		"kvaries/e1": true, "kvaries/e2": true, "kvaries/e3": true,
		"threeq/f1": true, "threeq/f2": true, "threeq/f3": true, "threeq/f4": false,
	}, res.Outcomes())

	doc, ok := res.Document("doc-b")
	require.True(t, ok)
	assert.Equal(t, 60, doc.Bytes)
	assert.InDelta(t, 120, doc.Bits, 1e-9)
	assert.InDelta(t, 2, doc.BitsPerByte, 1e-12)
}

func TestEvaluateTiesGoToTheLowestIndex(t *testing.T) {
	task := &mb.Task{ID: "tie", Domain: "D1", Reduction: mb.Sum, Levels: oneLevel, Items: []mb.Item{
		item("t1", "T", 2, "", "x", "y", "z"),
		item("t2", "U", 0, "", "x", "y", "z"),
	}}
	m := &fake.Model{LogProb: scripted(map[string]float64{
		"T| x": -3, "T| y": -1, "T| z": -1, // y and z tie: y (index 1) is the prediction
		"U| x": -2, "U| y": -2, "U| z": -2, // all tie: x
	}, nil)}
	res, err := mb.Evaluate(context.Background(), m, lm.Info{}, []*mb.Task{task}, mb.Options{})
	require.NoError(t, err)
	t1, _ := res.Item("tie", "t1")
	t2, _ := res.Item("tie", "t2")
	assert.Equal(t, []any{1, true, false}, []any{t1.Prediction, t1.Tie, t1.Correct})
	assert.Equal(t, []any{0, true, true}, []any{t2.Prediction, t2.Tie, t2.Correct})
}

func TestEvaluateSelectedCutsTheWork(t *testing.T) {
	tasks, m := designedModel()
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{
		Selected: func(task, item string) bool { return task == "pmi" && item == "b4" },
	})
	require.NoError(t, err)
	calls := m.Calls()
	assert.Len(t, calls.LogLikelihood, 8, "4 choices and their 4 null requests")
	assert.Empty(t, calls.Rolling)
	assert.Equal(t, 1, calls.Batches)
	assert.Len(t, res.Items, 1)
	assert.False(t, res.Complete)
	assert.Nil(t, res.Index, "no index from a partial run")
	assert.Empty(t, res.DomainScores)
	assert.Equal(t, map[string]float64{"pmi": 0}, res.TaskScores)
	for _, tr := range res.Tasks {
		assert.False(t, tr.Complete, tr.ID)
	}
}

func TestEvaluateRequestErrors(t *testing.T) {
	tasks, m := designedModel()
	inner := m.LogProb
	m.LogProb = func(r lm.LLRequest) lm.LLResult {
		switch r.Context + "|" + r.Continuation {
		case "A3| y":
			return lm.LLResult{Err: errors.New("backend exploded")}
		case "Answer:| hat":
			return lm.LLResult{LogProb: math.NaN()}
		}
		return inner(r)
	}
	res, err := mb.Evaluate(context.Background(), m, m.Info(), tasks, mb.Options{})
	var re *mb.RequestErrors
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 5, re.Failed, "a3 and the four pmi items (hat's null is NaN)")
	assert.Equal(t, 22, re.Total)
	assert.False(t, re.All())
	assert.Equal(t, "pairs/a3", re.FirstItem)
	assert.Contains(t, err.Error(), `choice 1 " y": backend exploded`)

	a3, _ := res.Item("pairs", "a3")
	assert.Contains(t, a3.Error, "backend exploded")
	pairs := res.Tasks[0]
	assert.Equal(t, 1, pairs.Errors)
	assert.Equal(t, 1, pairs.Units, "the pair with a failed member is not scored")
	assert.False(t, pairs.Complete)
	b1, _ := res.Item("pmi", "b1")
	assert.Contains(t, b1.Error, `under the null context "Answer:"`)
	assert.Contains(t, b1.Error, "NaN")
	assert.Nil(t, res.Index)
	assert.NotContains(t, res.DomainScores, "D1")
	assert.Contains(t, res.DomainScores, "D3")
}

func TestEvaluateBatchFailures(t *testing.T) {
	tasks, _ := designedModel()
	_, err := mb.Evaluate(context.Background(), batchError{}, lm.Info{}, tasks, mb.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scoring 55 continuations: server lost its prompt log-probs")

	_, err = mb.Evaluate(context.Background(), shortBatch{}, lm.Info{}, tasks, mb.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "returned 0 log-likelihoods for 55 requests")
}

type batchError struct{}

func (batchError) LogLikelihood(context.Context, []lm.LLRequest, lm.ScoreOptions) ([]lm.LLResult, error) {
	return nil, errors.New("server lost its prompt log-probs")
}
func (batchError) RollingLogLikelihood(context.Context, []string, lm.ScoreOptions) ([]lm.RollingResult, error) {
	return nil, errors.New("unused")
}

type shortBatch struct{}

func (shortBatch) LogLikelihood(context.Context, []lm.LLRequest, lm.ScoreOptions) ([]lm.LLResult, error) {
	return nil, nil
}
func (shortBatch) RollingLogLikelihood(context.Context, []string, lm.ScoreOptions) ([]lm.RollingResult, error) {
	return nil, nil
}

// maxLengthSpy records the options each call received.
type maxLengthSpy struct{ got []int }

func (s *maxLengthSpy) LogLikelihood(_ context.Context, reqs []lm.LLRequest, o lm.ScoreOptions) ([]lm.LLResult, error) {
	s.got = append(s.got, o.MaxLength)
	return make([]lm.LLResult, len(reqs)), nil
}
func (s *maxLengthSpy) RollingLogLikelihood(_ context.Context, texts []string, o lm.ScoreOptions) ([]lm.RollingResult, error) {
	s.got = append(s.got, o.MaxLength)
	out := make([]lm.RollingResult, len(texts))
	for i := range out {
		out[i].LogProb = -1
	}
	return out, nil
}

func TestEvaluatePassesMaxLength(t *testing.T) {
	tasks, _ := designedModel()
	for _, tc := range []struct{ opt, want int }{{0, 512}, {256, 256}} {
		s := &maxLengthSpy{}
		res, err := mb.Evaluate(context.Background(), s, lm.Info{}, tasks, mb.Options{MaxLength: tc.opt})
		require.NoError(t, err)
		assert.Equal(t, []int{tc.want, tc.want}, s.got)
		assert.Equal(t, tc.want, res.MaxLength)
	}
}

// The whole suite in one LogLikelihood and one RollingLogLikelihood call.
func TestEvaluateFullSuiteBatches(t *testing.T) {
	tasks := suiteTasks(t)
	m := &fake.Model{
		// A length-biased "model": shorter continuations are likelier.
		LogProb: func(r lm.LLRequest) lm.LLResult {
			return lm.LLResult{LogProb: -float64(len(r.Continuation)), ContinuationTokens: 1}
		},
		Rolling: func(text string) lm.RollingResult {
			return lm.RollingResult{LogProb: -1.5 * math.Ln2 * float64(len(text)), Bytes: len(text), Windows: 1}
		},
	}
	res, err := mb.Evaluate(context.Background(), m, lm.Info{Key: "fake"}, tasks, mb.Options{})
	require.NoError(t, err)
	calls := m.Calls()
	assert.Equal(t, 2, calls.Batches)

	choices, nulls := 0, map[string]bool{}
	for _, tk := range tasks {
		for _, it := range tk.Items {
			choices += len(it.Choices)
			if tk.Reduction == mb.PMI {
				for i := range it.Choices {
					nulls[it.Continuation(i)] = true
				}
			}
		}
	}
	assert.Equal(t, 3577, choices)
	assert.Equal(t, 289, len(nulls))
	assert.Len(t, calls.LogLikelihood, choices+len(nulls))
	assert.Equal(t, mb.Requests{LogLikelihood: choices + len(nulls), Null: len(nulls), Rolling: 6}, res.Requests)
	assert.Len(t, res.Items, 1054)
	assert.Len(t, res.Documents, 6)
	assert.True(t, res.Complete)
	require.NotNil(t, res.Index)
	assert.InDelta(t, mb.BPBScore(1.5), res.TaskScores["bpb"], 1e-9)
	assert.Len(t, res.TaskScores, 18)
	assert.Len(t, res.DomainScores, 6)
	assert.Equal(t, mb.Fingerprint(tasks), res.ItemsSHA256)
}
