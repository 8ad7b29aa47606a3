package microbench

import (
	"fmt"
	"strings"
)

// D2 Lexicon & Semantics: synonyms, antonyms, category membership. All
// three use pmi: a frequent word must not win for being frequent.

var synonymsSpec = taskSpec{
	Task: Task{
		ID: "synonyms", Domain: "D2", Name: "Synonyms", Reduction: PMI,
		Levels: lexiconLevels,
		About:  "Which word means the same as a given word: the synonym against the antonym (when there is one) and words of unrelated meaning.",
	},
	Size: 60, gen: func(g *gen, n int) ([]Item, error) { return genLexicon(g, n, false) },
}

var antonymsSpec = taskSpec{
	Task: Task{
		ID: "antonyms", Domain: "D2", Name: "Antonyms", Reduction: PMI,
		Levels: lexiconLevels,
		About:  "Which word means the opposite of a given word: the antonym against the synonym and words of unrelated meaning.",
	},
	Size: 60, gen: func(g *gen, n int) ([]Item, error) { return genLexicon(g, n, true) },
}

var lexiconLevels = map[int]string{
	1: "everyday words",
	2: "common words",
	3: "less frequent words",
}

// lexeme is a word with a synonym, an antonym ("" if none), a level, and a
// meaning cluster: distractors come only from other clusters, so no
// distractor is a near-synonym of the answer.
type lexeme struct{ word, syn, ant, cluster string }

var lexicon = [3][]lexeme{
	{ // level 1
		{"big", "large", "small", "size"},
		{"small", "little", "big", "size"},
		{"happy", "glad", "sad", "mood"},
		{"fast", "quick", "slow", "speed"},
		{"start", "begin", "finish", "time"},
		{"close", "shut", "open", "distance"}, // "close" also means near
		{"sick", "ill", "healthy", "health"},
		{"hard", "difficult", "easy", "effort"},
		{"pretty", "beautiful", "ugly", "looks"},
		{"smart", "clever", "stupid", "mind"},
		{"loud", "noisy", "quiet", "sound"},
		{"scared", "afraid", "brave", "fear"},
		{"correct", "right", "wrong", "truth"},
		{"sad", "unhappy", "happy", "mood"},
		{"child", "kid", "adult", "age"},
		{"street", "road", "", "place"},
		{"gift", "present", "", "thing"},
		{"jump", "leap", "", "motion"},
		{"talk", "speak", "", "speech"},
		{"shout", "yell", "whisper", "speech"},
		{"end", "finish", "begin", "time"},
		{"rock", "stone", "", "thing"},
		{"mistake", "error", "", "truth"},
		{"good", "fine", "bad", "quality"},
		{"dark", "shadowy", "bright", "light"},
		{"young", "youthful", "old", "age"},
		{"laugh", "giggle", "cry", "face"},
		{"hot", "boiling", "cold", "temperature"},
	},
	{ // level 2
		{"rich", "wealthy", "poor", "money"},
		{"angry", "mad", "calm", "mood"},
		{"tired", "exhausted", "rested", "health"},
		{"buy", "purchase", "sell", "money"},
		{"near", "close", "far", "distance"},
		{"simple", "easy", "complicated", "effort"},
		{"wet", "damp", "dry", "water"},
		{"cold", "chilly", "hot", "temperature"},
		{"strong", "powerful", "weak", "strength"},
		{"quiet", "silent", "noisy", "sound"},
		{"fix", "repair", "break", "work"},
		{"alike", "similar", "different", "sameness"},
		{"thin", "slim", "thick", "size"},
		{"grin", "smile", "frown", "face"},
		{"friend", "pal", "enemy", "people"},
		{"under", "below", "above", "direction"},
		{"wide", "broad", "narrow", "size"},
		{"raise", "lift", "lower", "direction"},
		{"tidy", "neat", "messy", "order"},
		{"false", "untrue", "true", "truth"},
		{"odd", "strange", "normal", "sameness"},
		{"dirty", "filthy", "clean", "order"},
		{"finish", "conclude", "start", "time"},
		{"fresh", "new", "stale", "age"},
	},
	{ // level 3
		{"huge", "enormous", "tiny", "size"},
		{"ancient", "old", "modern", "age"},
		{"brave", "courageous", "cowardly", "fear"},
		{"cheerful", "joyful", "gloomy", "mood"},
		{"gather", "collect", "scatter", "motion"},
		{"vanish", "disappear", "appear", "sight"},
		{"permit", "allow", "forbid", "rules"},
		{"often", "frequently", "rarely", "frequency"},
		{"cautious", "careful", "careless", "mind"},
		{"timid", "shy", "bold", "fear"},
		{"famous", "well-known", "unknown", "fame"},
		{"brief", "short", "long", "duration"},
		{"weep", "cry", "laugh", "face"},
		{"polite", "courteous", "rude", "manners"},
		{"conceal", "hide", "reveal", "sight"},
		{"empty", "vacant", "full", "fullness"},
		{"rapid", "swift", "sluggish", "speed"},
		{"reply", "answer", "", "speech"},
		{"accurate", "precise", "inaccurate", "truth"},
		{"wealthy", "affluent", "poor", "money"},
		{"generous", "kind", "selfish", "manners"},
	},
}

func genLexicon(g *gen, n int, opposite bool) ([]Item, error) {
	var out []Item
	for li, q := range quota(n, 3) {
		var entries []lexeme
		for _, e := range lexicon[li] {
			if !opposite || e.ant != "" {
				entries = append(entries, e)
			}
		}
		if q > len(entries) {
			return nil, fmt.Errorf("level %d has %d candidate items, %d wanted", li+1, len(entries), q)
		}
		var long, short lengthTally
		for _, e := range sample(g, entries, q) {
			var pool []string
			for _, l := range lexicon {
				for _, o := range l {
					if o.cluster != e.cluster {
						pool = append(pool, o.word, o.syn)
					}
				}
			}
			var qs, gold, near string
			if opposite {
				qs, gold, near = "means the opposite of", e.ant, e.syn
			} else {
				qs, gold, near = "means the same as", e.syn, e.ant
			}
			var fixed []string
			if near != "" {
				fixed = append(fixed, near)
			}
			distractors := g.fairDraw(gold, fixed, pool, 3-len(fixed), []string{e.word, gold, near}, &long, &short)
			c, gi := g.choices(gold, distractors...)
			out = append(out, Item{
				Context: fmt.Sprintf("Question: Which word %s %q?\n%s", qs, e.word, NullContext),
				Choices: c, Gold: gi, Level: li + 1,
			})
		}
	}
	return out, nil
}

var categoriesSpec = taskSpec{
	Task: Task{
		ID: "categories", Domain: "D2", Name: "Category membership", Reduction: PMI,
		Levels: map[int]string{
			1: "which word is a kind of a given category",
			2: "which group a given word belongs to",
			3: "which word does not belong with the others",
		},
		About: "Membership in everyday categories (fruit, tools, vehicles, instruments…), asked three ways; members of overlapping categories are never mixed.",
	},
	Size: 60, gen: genCategories,
}

// category: the singular label ("a kind of ..."), the group name, members.
type category struct {
	kind, group string
	members     []string
}

var categories = []category{
	{"fruit", "fruits", []string{"apple", "banana", "cherry", "grape", "lemon", "mango", "pear", "plum", "strawberry", "melon"}},
	{"vegetable", "vegetables", []string{"carrot", "potato", "onion", "cabbage", "lettuce", "pea", "spinach", "broccoli"}},
	{"bird", "birds", []string{"sparrow", "eagle", "parrot", "owl", "robin", "pigeon", "swan", "crow"}},
	{"fish", "fish", []string{"salmon", "trout", "cod", "tuna", "goldfish", "herring"}},
	{"insect", "insects", []string{"ant", "bee", "beetle", "butterfly", "mosquito", "grasshopper", "ladybug", "wasp"}},
	{"tool", "tools", []string{"hammer", "saw", "wrench", "screwdriver", "drill", "shovel", "rake", "chisel"}},
	{"vehicle", "vehicles", []string{"car", "bus", "truck", "bicycle", "train", "tractor", "van", "motorcycle"}},
	{"color", "colors", []string{"red", "blue", "green", "yellow", "purple", "pink", "brown", "gray"}},
	{"piece of clothing", "clothes", []string{"shirt", "jacket", "sock", "scarf", "coat", "dress", "sweater", "glove"}},
	{"piece of furniture", "furniture", []string{"chair", "table", "sofa", "bed", "desk", "wardrobe", "stool", "bookcase"}},
	{"musical instrument", "musical instruments", []string{"piano", "guitar", "violin", "drum", "flute", "trumpet", "harp", "cello"}},
	{"body part", "body parts", []string{"arm", "leg", "elbow", "knee", "shoulder", "finger", "ankle", "wrist"}},
	{"drink", "drinks", []string{"tea", "coffee", "juice", "milk", "lemonade", "cocoa"}},
	{"sport", "sports", []string{"football", "tennis", "golf", "hockey", "basketball", "baseball", "rugby", "volleyball"}},
	{"metal", "metals", []string{"iron", "copper", "silver", "tin", "zinc", "steel"}},
	{"shape", "shapes", []string{"circle", "square", "triangle", "rectangle", "hexagon", "oval"}},
	{"flower", "flowers", []string{"rose", "tulip", "daisy", "lily", "daffodil", "sunflower", "orchid"}},
	{"tree", "trees", []string{"oak", "pine", "maple", "birch", "willow", "elm"}},
}

func genCategories(g *gen, n int) ([]Item, error) {
	var byLevel [3][]Item
	for ci, c := range categories {
		var otherGroups []string
		for oi, o := range categories {
			if oi != ci {
				otherGroups = append(otherGroups, o.group)
			}
		}
		// Level 1: one member against members of three other categories.
		for i, m := range sample(g, c.members, 2) {
			ch, gold := g.choices(m, othersFromDistinct(g, ci, 3)...)
			byLevel[0] = append(byLevel[0], Item{
				Context: fmt.Sprintf([]string{"Question: Which of these is a kind of %s?\n%s", "Question: Which one of these words names a %s?\n%s"}[i], c.kind, NullContext),
				Choices: ch, Gold: gold, Level: 1,
			})
		}
		// Level 2: the group of a member.
		for _, m := range sample(g, c.members, 2) {
			ch, gold := g.choices(c.group, others(g, otherGroups, 3, c.group)...)
			byLevel[1] = append(byLevel[1], Item{
				Context: fmt.Sprintf("Question: Which group does the word %q belong to?\n%s", m, NullContext),
				Choices: ch, Gold: gold, Level: 2,
			})
		}
		// Level 3: three members and one intruder.
		for range 2 {
			intruder := othersFromDistinct(g, ci, 1)[0]
			ch, gold := g.choices(intruder, sample(g, c.members, 3)...)
			byLevel[2] = append(byLevel[2], Item{
				Context: fmt.Sprintf("Question: Which word does not belong with the others: %s?\n%s", strings.Join(ch, ", "), NullContext),
				Choices: ch, Gold: gold, Level: 3,
			})
		}
	}
	for i := range byLevel {
		byLevel[i] = dedupe(byLevel[i])
	}
	return takeByLevel(g, byLevel[:], n)
}

// othersFromDistinct draws k members of k distinct categories other than
// category skip.
func othersFromDistinct(g *gen, skip, k int) []string {
	var idx []int
	for i := range categories {
		if i != skip {
			idx = append(idx, i)
		}
	}
	var out []string
	for _, ci := range sample(g, idx, k) {
		out = append(out, pick(g, categories[ci].members))
	}
	return out
}
