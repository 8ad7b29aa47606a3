package microbench

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testGen(id string) *gen { return &gen{src: stream(Seed, id)} }

func TestBalancedSchedules(t *testing.T) {
	for _, tc := range []struct{ n, k int }{{20, 2}, {20, 3}, {16, 4}, {3, 4}, {0, 3}} {
		got := testGen("x").balanced(tc.n, tc.k)
		require.Len(t, got, tc.n)
		counts := make([]int, tc.k)
		for _, p := range got {
			counts[p]++
		}
		assert.LessOrEqual(t, slices.Max(counts)-slices.Min(counts), 1, "n=%d k=%d: %v", tc.n, tc.k, counts)
	}
}

func TestBalanceGoldCountsHandwrittenItems(t *testing.T) {
	// Two hand-written items have their gold at 0, so the four generated
	// ones fill positions 1 and 2 first: 2/2/2 in the end.
	hand := []Item{{Level: 1, Choices: []string{"a", "b", "c"}, Gold: 0}, {Level: 1, Choices: []string{"a", "b", "c"}, Gold: 0}}
	var items []Item
	for range 4 {
		items = append(items, Item{Level: 1, Choices: []string{"right", "w1", "w2"}, Gold: 0})
	}
	balanceGold(testGen("x"), items, hand)
	counts := []int{2, 0, 0}
	for _, it := range items {
		assert.Equal(t, "right", it.Choices[it.Gold], "the gold moves with its text")
		counts[it.Gold]++
	}
	assert.Equal(t, []int{2, 2, 2}, counts)
}

func TestLengthWins(t *testing.T) {
	for _, tc := range []struct {
		gold        string
		wrong       []string
		long, short float64
	}{
		{"abc", []string{"a", "ab"}, 1, 0},
		{"a", []string{"abc", "ab"}, 0, 1},
		{"ab", []string{"a", "abc"}, 0, 0},
		{"ab", []string{"cd", "ef", "g"}, 1.0 / 3, 0},
	} {
		l, s := lengthWins(tc.gold, tc.wrong)
		assert.InDelta(t, tc.long, l, 1e-12, tc.gold)
		assert.InDelta(t, tc.short, s, 1e-12, tc.gold)
	}
}

func TestWordHelpers(t *testing.T) {
	assert.Equal(t, "", andList(nil))
	assert.Equal(t, "a", andList([]string{"a"}))
	assert.Equal(t, "a and b", andList([]string{"a", "b"}))
	assert.Equal(t, "a, b and c", andList([]string{"a", "b", "c"}))
	for base, want := range map[string]string{"go": "goes", "fly": "flies", "buy": "buys", "catch": "catches", "have": "has", "run": "runs", "do": "does"} {
		assert.Equal(t, want, thirdPerson(base), base)
	}
}

func itemsOf(t *testing.T, id string) []Item {
	t.Helper()
	for _, tk := range loadAll(t) {
		if tk.ID == id {
			return tk.Items
		}
	}
	t.Fatalf("no task %s", id)
	return nil
}

// mentioned reports whether w occurs in s as a whole word.
func mentioned(s, w string) bool {
	return regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(w) + `\b`).MatchString(s)
}

// Every generated tracking, copying and reading choice is in the context;
// copying and reading say so in the README.
func TestEveryContextChoiceIsInTheContext(t *testing.T) {
	for _, id := range []string{"tracking", "copying", "reading"} {
		for _, it := range itemsOf(t, id) {
			if it.Source != "generated" {
				continue
			}
			for _, c := range it.Choices {
				assert.True(t, mentioned(it.Context, c), "%s: %q is not in %q", it.ID, c, it.Context)
			}
		}
	}
}

// The tracking answer is not simply the place mentioned last: on every
// level another place comes after it on most items.
func TestTrackingAnswerIsNotTheLastMention(t *testing.T) {
	last := map[int]int{}
	n := map[int]int{}
	for _, it := range itemsOf(t, "tracking") {
		n[it.Level]++
		gold := it.Choices[it.Gold]
		at := strings.LastIndex(it.Context, gold)
		later := false
		for _, c := range it.Choices {
			if c != gold && strings.LastIndex(it.Context, c) > at {
				later = true
			}
		}
		if !later {
			last[it.Level]++
		}
	}
	for l, k := range map[int]int{1: 2, 2: 3, 3: 4} {
		assert.LessOrEqual(t, last[l], (n[l]+k-1)/k, "level %d: the answer is the last place mentioned on %d of %d items", l, last[l], n[l])
	}
}

// A verb-first scramble must not be a grammatical imperative, so no verb
// of word_order may have a past form equal to its base form.
func TestWordOrderHasNoImperativeScramble(t *testing.T) {
	for _, v := range orderVerbs {
		assert.NotContains(t, []string{"read", "cut", "put", "hit", "set", "shut", "let", "spread", "hurt", "cost", "beat"}, v.verb)
	}
	for _, it := range itemsOf(t, "word_order") {
		for _, c := range it.Choices {
			assert.False(t, strings.HasPrefix(c, "read "), "%s: %q", it.ID, c)
		}
	}
}

// A sequences choice is never a term already shown.
func TestSequencesOffersNoShownTerm(t *testing.T) {
	for _, it := range itemsOf(t, "sequences") {
		if strings.HasPrefix(it.Context, "Count") {
			continue
		}
		shown := strings.Split(strings.TrimSuffix(it.Context, ","), ", ")
		for _, c := range it.Choices {
			assert.NotContains(t, shown, c, it.ID)
		}
	}
}

// A contrast pair keeps one choice order, so the golds take both positions.
func TestContrastPairsShareTheirOrder(t *testing.T) {
	for _, id := range []string{"agreement", "comparison", "story"} {
		items := itemsOf(t, id)
		for _, u := range Units(items, true) {
			a, b := items[u.Members[0]], items[u.Members[1]]
			assert.Equal(t, a.Choices, b.Choices, "%s %s", id, u.Group)
			assert.Equal(t, 1, a.Gold+b.Gold, "%s %s", id, u.Group)
		}
	}
}
