package audit

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

func heuristic(t *testing.T, name string, tok Tokenizer) Heuristic {
	t.Helper()
	for _, h := range Heuristics(tok) {
		if h.Name == name {
			return h
		}
	}
	t.Fatalf("no heuristic %q", name)
	return Heuristic{}
}

func TestHeuristicPicks(t *testing.T) {
	for _, tc := range []struct {
		name, ctx string
		choices   []string
		want      int
	}{
		{"longest", "", []string{"ab", "abcd", "abc"}, 1},
		{"longest", "", []string{"ab", "cd"}, 0},    // a tie goes to the earliest
		{"longest", "", []string{"ééé", "abcd"}, 1}, // characters, not bytes
		{"shortest", "", []string{"abc", "ab", "ab"}, 1},
		{"last-mention", "The ball is in the box. Sam puts it in the bag.", []string{"box", "bag", "cup"}, 1},
		{"last-mention", "The box is full of boxes.", []string{"box", "boxes"}, 1},       // whole words only
		{"last-mention", "Put it in the BAG, not the box.", []string{"bag.", "box."}, 1}, // case and end punctuation ignored
		{"last-mention", "Nothing here.", []string{"a", "b"}, 0},
		{"first-mention", "The ball is in the box. Sam puts it in the bag.", []string{"bag", "box"}, 1},
		{"first-mention", "The bag.", []string{"cup", "bag"}, 1}, // an absent choice ranks below a present one
		{"most-overlap", "The cat sat on the mat.", []string{"a dog ran", "the cat ran", "on a mat"}, 1},
		{"least-overlap", "The cat sat on the mat.", []string{"the cat ran", "a dog ran", "on the mat"}, 1},
		{"first-pos", "", []string{"x", "y", "z"}, 0},
		{"last-pos", "", []string{"x", "y", "z"}, 2},
	} {
		t.Run(tc.name+"/"+strings.Join(tc.choices, ","), func(t *testing.T) {
			assert.Equal(t, tc.want, heuristic(t, tc.name, nil).Pick(tc.ctx, tc.choices))
		})
	}
}

// wordTok is a tokenizer with one token per space-separated word.
type wordTok struct{}

func (wordTok) Encode(s string, _ bool) []int { return make([]int, len(strings.Fields(s))) }

func TestTokenHeuristicsNeedATokenizer(t *testing.T) {
	var names []string
	for _, h := range Heuristics(nil) {
		names = append(names, h.Name)
	}
	assert.Equal(t, []string{"longest", "shortest", "last-mention", "first-mention", "most-overlap", "least-overlap", "first-pos", "last-pos"}, names)
	assert.Len(t, Heuristics(wordTok{}), 10)
	// "a b c" is short in characters and long in tokens.
	choices := []string{"abcdefgh", "a b c"}
	assert.Equal(t, 1, heuristic(t, "longest-tok", wordTok{}).Pick("", choices))
	assert.Equal(t, 0, heuristic(t, "shortest-tok", wordTok{}).Pick("", choices))
}

// task builds a one-level μBench task.
func task(id string, red microbench.Reduction, grouped bool, items ...microbench.Item) *microbench.Task {
	for i := range items {
		items[i].ID = id + "-" + string(rune('a'+i))
		items[i].Level = 1
	}
	return &microbench.Task{ID: id, Domain: "D1", Reduction: red, Grouped: grouped, Levels: map[int]string{1: "one"}, Items: items}
}

// TestMicrobenchThroughTheSuite checks the scores the suite's own
// reductions, pairs and chance normalisation give each heuristic.
func TestMicrobenchThroughTheSuite(t *testing.T) {
	tasks := []*microbench.Task{
		// Three of four golds are the longest: accuracy 3/4, chance 1/2,
		// score 50 under mean_byte (log-prob −1 over more bytes is still
		// below 0).
		task("long", microbench.MeanByte, false,
			microbench.Item{Context: "Q1", Choices: []string{"aaaa", "b"}, Gold: 0},
			microbench.Item{Context: "Q1", Choices: []string{"c", "dddd"}, Gold: 1}, // the same context as the first
			microbench.Item{Context: "Q3", Choices: []string{"eeee", "f"}, Gold: 0},
			microbench.Item{Context: "Q4", Choices: []string{"gggg", "h"}, Gold: 1}),
		// pmi: the null requests must not change the heuristic's pick.
		task("pmi", microbench.PMI, false,
			microbench.Item{Context: "Question: x?\nAnswer:", Choices: []string{"one", "three"}, Gold: 1},
			microbench.Item{Context: "Question: y?\nAnswer:", Choices: []string{"three", "one"}, Gold: 0}),
		// A contrast pair with shared choices: any choice preference gets
		// one member right and the pair wrong.
		task("pair", microbench.Sum, true,
			microbench.Item{Group: "p1", Context: "A", Choices: []string{"is.", "are."}, Gold: 0},
			microbench.Item{Group: "p1", Context: "B", Choices: []string{"is.", "are."}, Gold: 1}),
		{ID: "bpb", Domain: "D6", Reduction: microbench.BitsPerByte, Levels: map[int]string{1: "one"},
			Items: []microbench.Item{{ID: "doc", Level: 1, Text: "left out"}}},
	}
	tab, err := Microbench(context.Background(), tasks, nil)
	require.NoError(t, err)
	require.Len(t, tab.Rows, 3, "bits per byte has no choices")
	cells := map[string]float64{}
	for _, r := range tab.Rows {
		for i, h := range tab.Heuristics {
			cells[r.Name+"/"+h] = r.Cells[i]
		}
	}
	assert.InDelta(t, 50, cells["long/longest"], 1e-9)
	assert.InDelta(t, 0, cells["long/shortest"], 1e-9)
	assert.InDelta(t, 100, cells["pmi/longest"], 1e-9)
	assert.InDelta(t, 0, cells["pmi/shortest"], 1e-9)
	for _, h := range tab.Heuristics {
		assert.Zero(t, cells["pair/"+h], h)
	}
	assert.Equal(t, []string{"long/longest 50.0", "pmi/longest 100.0"}, tab.Over())
}

func TestScorerRefusesUnknownRequests(t *testing.T) {
	s := NewScorer(heuristic(t, "longest", nil), []*microbench.Task{task("t", microbench.Sum, false,
		microbench.Item{Context: "Q", Choices: []string{"a", "bb"}, Gold: 1})})
	res, err := s.LogLikelihood(context.Background(), []lm.LLRequest{
		{Context: "Q", Continuation: " a"}, {Context: "Q", Continuation: " bb"},
		{Context: microbench.NullContext, Continuation: " a"}, {Context: "Q", Continuation: " c"}}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.Equal(t, -1.0, res[0].LogProb)
	assert.Equal(t, 0.0, res[1].LogProb)
	assert.NoError(t, res[2].Err)
	assert.EqualError(t, res[3].Err, `heuristic longest: context "Q" with continuation " c" is no choice of the audited items`)
	rolling, err := s.RollingLogLikelihood(context.Background(), []string{"text"}, lm.ScoreOptions{})
	require.NoError(t, err)
	assert.ErrorIs(t, rolling[0].Err, lm.ErrUnsupported)
}

var fwItems = []featherweight.Item{
	{ID: "q1", Category: "one", Question: "Which is the box?\nRead twice.", Choices: [4]string{"cup", "box", "bag", "pen"}, Answer: 1},
	{ID: "q2", Category: "one", Question: "Which?", Choices: [4]string{"the longest choice here", "b", "c", "d"}, Answer: 0},
	{ID: "q3", Category: "two", Question: "Which?", Choices: [4]string{"a", "b", "the longest choice here", "d"}, Answer: 2},
	{ID: "q4", Category: "two", Question: "Which?", Choices: [4]string{"a", "b", "c", "the longest choice"}, Answer: 3},
}

// The generator answers every prompt form the suite sends for its items,
// and refuses a prompt of no audited item.
func TestGeneratorAnswersEveryPromptForm(t *testing.T) {
	g := NewGenerator(heuristic(t, "last-mention", nil), fwItems)
	for _, st := range featherweight.Styles {
		for _, chat := range []bool{false, true} {
			req := featherweight.Request(st, fwItems[0], chat)
			res, err := g.Generate(context.Background(), []lm.GenerateRequest{req})
			require.NoError(t, err)
			require.NoError(t, res[0].Err)
			assert.Equal(t, "B", res[0].Text, "%s chat=%v", st, chat)
		}
	}
	res, err := g.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "no choices here"}})
	require.NoError(t, err)
	assert.EqualError(t, res[0].Err, `heuristic last-mention: prompt "no choices here" is no prompt of the audited items`)
}

func TestFeatherweightThroughTheSuite(t *testing.T) {
	tab, err := Featherweight(context.Background(), fwItems, nil)
	require.NoError(t, err)
	var names []string
	for _, r := range tab.Rows {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"plain", "completion", "one", "two"}, names)
	long := 0
	for i, h := range tab.Heuristics {
		if h == "longest" {
			long = i
		}
	}
	assert.Equal(t, []float64{75, 75, 50, 100}, []float64{tab.Rows[0].Cells[long], tab.Rows[1].Cells[long], tab.Rows[2].Cells[long], tab.Rows[3].Cells[long]})
	assert.Contains(t, tab.Over(), "plain/longest 75.0")
	assert.NotContains(t, strings.Join(tab.Over(), " "), "one/", "category rows are not gated")
}

func TestTableMarkdown(t *testing.T) {
	tab := &Table{Suite: "Suite", Metric: "score", Threshold: 15, Heuristics: []string{"a", "b"},
		Rows: []Row{{Name: "t1", Gated: true, Cells: []float64{3, 20}}, {Name: "t2", Gated: true, Cells: []float64{0, 15}}, {Name: "c", Cells: []float64{40, 0}}}}
	assert.Equal(t, `| task | a | b | max |
|---|---:|---:|---:|
| t1 | 3.0 | **20.0** | **20.0** |
| t2 | 0.0 | 15.0 | 15.0 |
| · c | 40.0 | 0.0 | 40.0 |

Suite shortcut audit: score of each heuristic; above 15 (bold) gives answers away; rows marked · are shown to find a cue, not held to it: 1 cell over (t1/b 20.0).
`, tab.Markdown())
	tab.Rows = tab.Rows[1:2]
	assert.Equal(t, `| task | a | b | max |
|---|---:|---:|---:|
| t2 | 0.0 | 15.0 | 15.0 |

Suite shortcut audit: score of each heuristic; above 15 (bold) gives answers away: none is over.
`, tab.Markdown())
}
