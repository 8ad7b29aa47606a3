package microbench

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dataDir is testdata/microbench at the repository root.
func dataDir(t testing.TB) fs.FS {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return os.DirFS(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "microbench"))
}

func loadAll(t testing.TB) []*Task {
	t.Helper()
	tasks, err := Load(dataDir(t))
	require.NoError(t, err)
	return tasks
}

// The committed item set: any change to a generator, a word list or a
// hand-written file changes these, on purpose. Update them only together
// with a note on what changed. Last change: the shortcut audit's fixes
// (balanced gold positions, tracking's order of mentions, copying with
// every choice in the context, reading's choices from the passage, length-
// balanced distractors, no "read" in word_order).
const wantFingerprint = "8ad85373f923104ec13920d2a96b5389ff6529b8935aa982c08d4da0ea8c5e43"

var wantTasks = []struct {
	id, domain string
	items      int
	chance     float64
	reduction  Reduction
	grouped    bool
	hash       string
}{
	{"agreement", "D1", 80, 0.25, Sum, true, "66813412a3884c55eb65e8682ce7652c1f39291578b208525750c554a0c94eca"},
	{"morphology", "D1", 60, 1.0 / 3, MeanByte, false, "bb54ba8008e431b3d9bd76a60b90e87598cc51ffd9cd873358ebefd626d7fe74"},
	{"word_order", "D1", 60, 1.0 / 3, Sum, false, "5236273fe261b80af99a3d8c9a406f5ce5e48a4fbbef8518fd0dd4e9827f59af"},
	{"synonyms", "D2", 60, 0.25, PMI, false, "1aed6e014e83d263a88cc3ec91211386a39a9eceb67058488f50351aae25b214"},
	{"antonyms", "D2", 60, 0.25, PMI, false, "81cde3b53be8c2eb32bbddeefd71143ef15a9a916f8866abf84858dde0c809aa"},
	{"categories", "D2", 60, 0.25, PMI, false, "77b761d8b541f7872e09283a730fbcfd3fa4d71b2fa270511a2317fc3edad444"},
	{"capitals", "D3", 64, 0.25, MeanByte, false, "5d846b112a6bdfbbc3f9c0cb2f0e31c6093803bd4b781d8929532d710bdd29de"},
	{"science", "D3", 60, 0, MeanByte, false, "7bf29eab013700ec0feab809c06be298f4ca3ad8e8e221c3724dc70dfbfd6883"},
	{"everyday", "D3", 60, 0.25, MeanByte, false, "931e612d77aca9d0b5051e24fdcc138c2c9a2da77e3f17277d950cb284bd46f6"},
	{"reading", "D4", 60, 61.0 / 180, MeanByte, false, "979ddc9fc173753b2dac9e8ed27ca1e603733b4df99d295e802be9600d025446"},
	{"tracking", "D4", 60, 13.0 / 36, MeanByte, false, "fe416db7f54c5754e7c0608d86967a8af8cc0553b2c9023cc617f041c42ba69b"},
	{"copying", "D4", 60, 0.25, Sum, false, "f2a61d5f9468628322e118f33f5f3d71fae68623a748d10e3e155bc8082ec5b5"},
	{"arithmetic", "D5", 70, 0.25, Sum, false, "e00c3891c41e639a16d2137a1d1e056cf01bfa97b85ee7cc24b5f335da9339f7"},
	{"comparison", "D5", 60, 0.25, Sum, true, "8bbf422185bae2889e75f53bb9182ebe7a247f3529e1a674382cfb528ad43249"},
	{"sequences", "D5", 60, 0.25, MeanByte, false, "e14cc844f8fb9df972292aaf9bb3be1f54c6e1f4b12449816365eee0509a89f6"},
	{"continuation", "D6", 60, 0.25, MeanByte, false, "dc7915fe8eea1708a517e36ee50725c7134005d1627089135a1e5d089835ac38"},
	{"story", "D6", 60, 0.25, Sum, true, "1e361ac46db79c73c3a6be54622b91c65141593dcb1613215128c726e72e034d"},
	{"bpb", "D6", 6, 0, BitsPerByte, false, "5735180eaa24e47a670f16c5cf0d2208621f6ab7a2ab90db5bd3956127796d2f"},
}

func TestTaskTable(t *testing.T) {
	tasks := loadAll(t)
	require.Len(t, tasks, len(wantTasks))
	total := 0
	for i, w := range wantTasks {
		tk := tasks[i]
		assert.Equal(t, w.id, tk.ID)
		assert.Equal(t, w.domain, tk.Domain, w.id)
		assert.Len(t, tk.Items, w.items, w.id)
		assert.Equal(t, w.reduction, tk.Reduction, w.id)
		assert.Equal(t, w.grouped, tk.Grouped, w.id)
		if !tk.IsBPB() && w.id != "science" {
			assert.InDelta(t, w.chance, Chance(tk.Items, tk.Grouped), 1e-12, w.id)
		}
		total += len(tk.Items)
	}
	assert.Equal(t, 1060, total)
	// Science mixes 3-choice (states of matter) and 4-choice items: chance
	// is the mean of 1/k over its items.
	sci := tasks[7]
	k3 := 0
	for _, it := range sci.Items {
		if len(it.Choices) == 3 {
			k3++
		}
	}
	assert.Equal(t, 11, k3)
	assert.InDelta(t, (float64(k3)/3+float64(60-k3)/4)/60, Chance(sci.Items, false), 1e-12)
}

func TestItemSetIsDeterministic(t *testing.T) {
	a, b := loadAll(t), loadAll(t)
	assert.Equal(t, Fingerprint(a), Fingerprint(b))
	assert.Equal(t, wantFingerprint, Fingerprint(a), "the item set changed; if on purpose, update wantFingerprint and the per-task hashes")
	for i, w := range wantTasks {
		assert.Equal(t, w.hash, Fingerprint(a[i:i+1]), "task %s", w.id)
	}
}

// Perturbing one task's random stream changes that task's items and no
// other task's.
func TestStreamsAreIndependent(t *testing.T) {
	base := loadAll(t)
	for _, s := range specs {
		if s.gen == nil {
			continue
		}
		t.Run(s.ID, func(t *testing.T) {
			perturbed, err := build(dataDir(t), func(id string) *rand.PCG {
				if id == s.ID {
					return stream(Seed+1, id)
				}
				return stream(Seed, id)
			})
			require.NoError(t, err)
			for i, tk := range perturbed {
				same := Fingerprint(base[i:i+1]) == Fingerprint(perturbed[i:i+1])
				if tk.ID == s.ID {
					assert.False(t, same, "perturbing %s's stream left it unchanged", s.ID)
				} else {
					assert.True(t, same, "perturbing %s's stream changed %s", s.ID, tk.ID)
				}
			}
		})
	}
}

func TestEveryItemIsWellFormed(t *testing.T) {
	for _, tk := range loadAll(t) {
		t.Run(tk.ID, func(t *testing.T) {
			require.NoError(t, tk.Validate())
			levels := map[int]int{}
			contexts := map[string]bool{}
			golds := map[int]int{}
			for _, it := range tk.Items {
				levels[it.Level]++
				if tk.IsBPB() {
					assert.Greater(t, len(it.Text), 500, it.ID)
					continue
				}
				key := it.Context + "|" + strings.Join(it.Choices, "|")
				assert.False(t, contexts[key], "%s repeats an item: %q", it.ID, key)
				contexts[key] = true
				golds[it.Gold]++
				// A generous bound: every item fits 512 tokens of any
				// byte-level tokenizer (one token per byte at worst, plus BOS).
				longest := 0
				for i := range it.Choices {
					longest = max(longest, len(it.Continuation(i)))
				}
				assert.Less(t, len(it.Context)+longest, 511, it.ID)
			}
			for _, l := range tk.LevelIDs() {
				assert.NotZero(t, levels[l], "level %d of %s has no items", l, tk.ID)
			}
			if !tk.IsBPB() {
				// The gold answer is spread over positions, so the lowest-index
				// tie rule favors no one.
				assert.Greater(t, len(golds), 1, "%s always puts the gold at one position", tk.ID)
			}
			if tk.Grouped {
				for _, u := range Units(tk.Items, true) {
					require.Len(t, u.Members, 2, "group %s", u.Group)
					a, b := tk.Items[u.Members[0]], tk.Items[u.Members[1]]
					assert.ElementsMatch(t, a.Choices, b.Choices, "a contrast pair shares its choices")
					assert.NotEqual(t, a.Choices[a.Gold], b.Choices[b.Gold], "the gold answer flips within a pair")
				}
			}
		})
	}
}

func TestHandwrittenErrors(t *testing.T) {
	good := `{"id":"science-h01","level":1,"context":"Ice is water in its","choices":["solid form","gas form"],"gold":0}`
	// The real data with one file replaced, so every other task still loads.
	real := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(dataDir(t), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(dataDir(t), p)
		real[p] = &fstest.MapFile{Data: data}
		return err
	}))
	for _, tc := range []struct {
		name, file, data string
		want             []string
	}{
		{"unknown task", "sciense.jsonl", good, []string{`sciense.jsonl: no task "sciense"`, "science"}},
		{"bad JSON", "science.jsonl", good + "\n{\"id\": ", []string{"science.jsonl:2:", "one JSON object"}},
		{"unknown field", "science.jsonl", `{"id":"x","level":1,"context":"c","choices":["a","b"],"gold":0,"answer":1}`, []string{"science.jsonl:1:", `unknown field "answer"`}},
		{"missing gold", "science.jsonl", `{"id":"x","level":1,"context":"c","choices":["a","b"]}`, []string{"science.jsonl:1:", `"gold" is missing`}},
		{"gold out of range", "science.jsonl", `{"id":"science-h09","level":1,"context":"c","choices":["a","b"],"gold":2}`, []string{"science.jsonl:1", "science-h09", `"gold" is 2 but the item has 2 choices (valid: 0 to 1)`}},
		{"duplicate choices", "science.jsonl", `{"id":"x","level":1,"context":"c","choices":["a","a"],"gold":0}`, []string{`choices 0 and 1 are both "a"`}},
		{"leading space", "science.jsonl", `{"id":"x","level":1,"context":"c","choices":[" a","b"],"gold":0}`, []string{`choice 0 " a" has surrounding whitespace`, "the scorer adds the leading space"}},
		{"context ends in space", "science.jsonl", `{"id":"x","level":1,"context":"c ","choices":["a","b"],"gold":0}`, []string{`"context" ends with whitespace`}},
		{"undeclared level", "science.jsonl", `{"id":"x","level":7,"context":"c","choices":["a","b"],"gold":0}`, []string{"level 7 is not declared", "[1 2 3]"}},
		{"group on an ungrouped task", "science.jsonl", `{"id":"x","level":1,"group":"p1","context":"c","choices":["a","b"],"gold":0}`, []string{`"group" is set to "p1" but task science does not use group accuracy`}},
		{"bad id", "science.jsonl", `{"id":"Sci 1","level":1,"context":"c","choices":["a","b"],"gold":0}`, []string{`id "Sci 1": use lowercase letters`}},
		{"one choice", "science.jsonl", `{"id":"x","level":1,"context":"c","choices":["a"],"gold":0}`, []string{`"choices" has 1 entries`}},
		{"too many items", "reading.jsonl", strings.Repeat(`{"id":"x","level":1,"context":"c","choices":["a","b"],"gold":0}`+"\n", 61), []string{"reading.jsonl has 61 items but task reading holds 60 in all"}},
		{"unpaired contrast items", "story.jsonl", `{"id":"story-h01","level":1,"group":"solo","context":"c","choices":["a","b"],"gold":0}` + "\n" +
			`{"id":"story-h02","level":1,"group":"alone","context":"d","choices":["a","b"],"gold":0}`, []string{`contrast group "solo" has one member (story-h01)`, `contrast group "alone"`}},
		{"ungrouped contrast item", "story.jsonl", `{"id":"story-h01","level":1,"context":"c","choices":["a","b"],"gold":0}` + "\n" +
			`{"id":"story-h02","level":1,"context":"d","choices":["a","b"],"gold":1}`, []string{`story.jsonl:1`, `"group" is missing`}},
		{"duplicate id", "science.jsonl", good + "\n" + good, []string{`item id "science-h01" appears twice (science.jsonl:2)`}},
		{"field given twice", "science.jsonl", `{"id":"x","id":"y","level":1,"context":"c","choices":["a","b"],"gold":0}`, []string{"science.jsonl:1:", `field "id" is given twice; keep one`}},
		{"a field in another case before a repeat", "science.jsonl", `{"id":"x","Level":1,"id":"y","context":"c","choices":["a","b"],"gold":0}`, []string{"science.jsonl:1:", `field "Level": field names are lower case`}},
		{"null line", "science.jsonl", `null`, []string{"science.jsonl:1:", `"gold" is missing`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{tc.file: &fstest.MapFile{Data: []byte(tc.data)}}
			for k, v := range real {
				if k != tc.file {
					fsys[k] = v
				}
			}
			_, err := Load(fsys)
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestDocumentErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       string
	}{
		{"no header", "Just text.", "no blank line after the header"},
		{"bad level", "level: two\n\nText.", `bpb/x.txt:1: level "two" is not a whole number`},
		{"unknown header", "level: 1\nauthor: me\n\nText.", `bpb/x.txt:2: unknown header "author"`},
		{"no level", "note: x\n\nText.", `unknown header "note"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"bpb/x.txt": &fstest.MapFile{Data: []byte(tc.data)}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := Load(fstest.MapFS{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no documents")
}
