package microbench

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// D1 Linguistic Competence: subject–verb agreement, irregular morphology,
// word order.

var agreementSpec = taskSpec{
	Task: Task{
		ID: "agreement", Domain: "D1", Name: "Subject–verb agreement", Reduction: Sum, Grouped: true,
		Levels: map[int]string{
			1: "bare subject (The dog / The dogs)",
			2: "prepositional phrase with an attractor noun of the other number",
			3: "relative clause whose subject has the other number",
		},
		About: "Contrast pairs: the same sentence with a singular and a plural head noun; the model must choose the verb form that agrees with the head in both members.",
	},
	Size: 80, gen: genAgreement,
}

type noun struct{ sg, pl string }

var (
	animateHeads = []noun{
		{"dog", "dogs"}, {"cat", "cats"}, {"teacher", "teachers"}, {"child", "children"},
		{"farmer", "farmers"}, {"girl", "girls"}, {"boy", "boys"}, {"doctor", "doctors"},
		{"baby", "babies"}, {"horse", "horses"}, {"man", "men"}, {"woman", "women"},
		{"student", "students"}, {"singer", "singers"}, {"player", "players"}, {"bird", "birds"},
	}
	objectHeads = []noun{
		{"key", "keys"}, {"book", "books"}, {"box", "boxes"}, {"cup", "cups"},
		{"letter", "letters"}, {"picture", "pictures"}, {"car", "cars"}, {"chair", "chairs"},
		{"bottle", "bottles"}, {"coat", "coats"}, {"lamp", "lamps"}, {"bag", "bags"},
	}
	attractorNouns = []noun{
		{"tree", "trees"}, {"window", "windows"}, {"door", "doors"}, {"table", "tables"},
		{"car", "cars"}, {"house", "houses"}, {"fence", "fences"}, {"bench", "benches"},
		{"gate", "gates"}, {"wall", "walls"},
	}
	attractorPreps = []string{"near", "behind", "next to", "beside"}
	clauseSubjects = []noun{
		{"child", "children"}, {"boy", "boys"}, {"girl", "girls"}, {"teacher", "teachers"},
		{"farmer", "farmers"}, {"woman", "women"}, {"man", "men"}, {"student", "students"},
	}
	animateClauseVerbs = []string{"saw", "liked", "helped", "watched", "followed", "met"}
	objectClauseVerbs  = []string{"found", "bought", "painted", "dropped", "saw", "cleaned"}
	// Predicates as (singular, plural) verb phrases.
	animatePredicates = [][2]string{
		{"is happy", "are happy"}, {"is tired", "are tired"}, {"is hungry", "are hungry"},
		{"is asleep", "are asleep"}, {"is outside", "are outside"}, {"is ready", "are ready"},
		{"was late again", "were late again"}, {"was sick yesterday", "were sick yesterday"},
		{"likes the park", "like the park"}, {"sleeps a lot", "sleep a lot"},
		{"wants some water", "want some water"}, {"lives nearby", "live nearby"},
		{"makes a lot of noise", "make a lot of noise"}, {"has a cold", "have a cold"},
	}
	objectPredicates = [][2]string{
		{"is old", "are old"}, {"is new", "are new"}, {"is broken", "are broken"},
		{"is heavy", "are heavy"}, {"is on the table", "are on the table"},
		{"is very dirty", "are very dirty"}, {"is still wet", "are still wet"},
		{"was on the floor", "were on the floor"}, {"looks new", "look new"},
		{"needs cleaning", "need cleaning"}, {"belongs to Sam", "belong to Sam"},
		{"has a small scratch", "have a small scratch"},
	}
)

func genAgreement(g *gen, n int) ([]Item, error) {
	if n%2 != 0 {
		return nil, fmt.Errorf("contrast pairs need an even item count, not %d", n)
	}
	var out []Item
	seen := map[string]bool{}
	pairNo := 0
	for li, q := range quota(n/2, 3) {
		level := li + 1
		for made, tries := 0, 0; made < q; tries++ {
			if tries == maxTries {
				return nil, fmt.Errorf("level %d: %d distinct pairs of %d after %d draws", level, made, q, maxTries)
			}
			animate := g.intn(2) == 0
			heads, preds, verbs := objectHeads, objectPredicates, objectClauseVerbs
			if animate {
				heads, preds, verbs = animateHeads, animatePredicates, animateClauseVerbs
			}
			h, p := pick(g, heads), pick(g, preds)
			var sgCtx, plCtx string
			switch level {
			case 1:
				sgCtx, plCtx = "The "+h.sg, "The "+h.pl
			case 2:
				a, prep := pick(g, attractorNouns), pick(g, attractorPreps)
				if a.sg == h.sg {
					continue
				}
				sgCtx = fmt.Sprintf("The %s %s the %s", h.sg, prep, a.pl)
				plCtx = fmt.Sprintf("The %s %s the %s", h.pl, prep, a.sg)
			case 3:
				s, v := pick(g, clauseSubjects), pick(g, verbs)
				if s.sg == h.sg {
					continue
				}
				sgCtx = fmt.Sprintf("The %s that the %s %s", h.sg, s.pl, v)
				plCtx = fmt.Sprintf("The %s that the %s %s", h.pl, s.sg, v)
			}
			key := sgCtx + "|" + p[0]
			if seen[key] {
				continue
			}
			seen[key] = true
			made++
			pairNo++
			group := fmt.Sprintf("p%02d", pairNo)
			sg, pl := p[0]+".", p[1]+"."
			out = append(out, g.contrastPair(group, level, sgCtx, plCtx, sg, pl)...)
		}
	}
	return out, nil
}

var morphologySpec = taskSpec{
	Task: Task{
		ID: "morphology", Domain: "D1", Name: "Irregular morphology", Reduction: MeanByte,
		Levels: map[int]string{
			1: "past tense of frequent irregular verbs",
			2: "past tense of less frequent irregular verbs",
			3: "irregular plurals and comparatives",
		},
		About: "The right irregular form against two wrong ones (over-regularised, participle, base, third person or doubled marking) chosen so that neither the shorter nor the longer form is a guide; mean_byte because the forms differ in length.",
	},
	Size: 60, gen: genMorphology,
}

// irregularVerb: base form with its object, then the right past form and
// two wrong ones.
type irregularVerb struct{ base, rest, past, wrong1, wrong2 string }

var (
	frequentVerbs = []irregularVerb{
		{"go", "to school", "went", "goed", "gone"},
		{"eat", "an apple", "ate", "eated", "eaten"},
		{"see", "the ducks", "saw", "seed", "seen"},
		{"come", "home late", "came", "comed", "come"},
		{"take", "the bus", "took", "taked", "taken"},
		{"give", "the dog a bath", "gave", "gived", "given"},
		{"make", "pancakes", "made", "maked", "make"},
		{"write", "a letter", "wrote", "writed", "written"},
		{"drink", "some tea", "drank", "drinked", "drunk"},
		{"run", "to the park", "ran", "runned", "run"},
		{"sing", "a song", "sang", "singed", "sung"},
		{"buy", "fresh bread", "bought", "buyed", "buy"},
		{"bring", "lunch", "brought", "bringed", "brang"},
		{"sleep", "late", "slept", "sleeped", "sleep"},
		{"sit", "by the window", "sat", "sitted", "sit"},
		{"tell", "a funny story", "told", "telled", "tell"},
		{"get", "up early", "got", "getted", "get"},
		{"do", "the dishes", "did", "doed", "done"},
		{"have", "soup for lunch", "had", "haved", "has"},
		{"ride", "a bike", "rode", "rided", "ridden"},
	}
	rarerVerbs = []irregularVerb{
		{"swim", "in the lake", "swam", "swimmed", "swum"},
		{"throw", "the ball", "threw", "throwed", "thrown"},
		{"fly", "a kite", "flew", "flied", "flown"},
		{"draw", "a picture", "drew", "drawed", "drawn"},
		{"grow", "tomatoes", "grew", "growed", "grown"},
		{"hold", "the baby", "held", "holded", "hold"},
		{"keep", "a diary", "kept", "keeped", "keep"},
		{"leave", "work early", "left", "leaved", "leave"},
		{"forget", "the umbrella", "forgot", "forgetted", "forgotten"},
		{"begin", "work at nine", "began", "beginned", "begun"},
		{"choose", "a book", "chose", "choosed", "chosen"},
		{"wear", "a hat", "wore", "weared", "worn"},
		{"speak", "French", "spoke", "speaked", "spoken"},
		{"teach", "music", "taught", "teached", "teach"},
		{"catch", "the train", "caught", "catched", "catch"},
		{"sell", "flowers", "sold", "selled", "sell"},
		{"build", "sandcastles", "built", "builded", "build"},
		{"feed", "the ducks", "fed", "feeded", "feed"},
		{"shake", "the rug", "shook", "shaked", "shaken"},
		{"blow", "bubbles", "blew", "blowed", "blown"},
		{"dig", "in the garden", "dug", "digged", "dig"},
		{"hide", "the cookies", "hid", "hided", "hidden"},
		{"ring", "the bell", "rang", "ringed", "rung"},
		{"sweep", "the floor", "swept", "sweeped", "sweep"},
		{"freeze", "the leftovers", "froze", "freezed", "frozen"},
	}
	// pastFrames start a past-tense sentence without naming the verb, so
	// no form of it is in the context for a choice to echo.
	pastFrames = []string{"Yesterday %s", "Last week %s", "Two days ago %s", "Last night %s", "On Saturday %s"}
	// Irregular plurals: a context that asks for the plural without naming
	// the noun, the plural and two wrong plurals; the singular is a third
	// wrong form.
	irregularPlurals = [][5]string{
		{"The cat caught two little", "mouse", "mice", "mouses", "mices"},
		{"Our neighbors have three young", "child", "children", "childs", "childrens"},
		{"After the long walk, both of my", "foot", "feet", "foots", "feets"},
		{"The dentist looked at all of my", "tooth", "teeth", "tooths", "teeths"},
		{"On the pond there were five white", "goose", "geese", "gooses", "geeses"},
		{"The piano was carried up the stairs by two strong", "man", "men", "mans", "mens"},
		{"The choir has ten singers: four men and six", "woman", "women", "womans", "womens"},
		{"In the forest the hunter heard three", "wolf", "wolves", "wolfs", "wolfes"},
		{"She set the table with four forks and four", "knife", "knives", "knifes", "knifs"},
		{"In autumn the tree lost all of its", "leaf", "leaves", "leafs", "leafes"},
		{"The library has long rows of wooden", "shelf", "shelves", "shelfs", "shelfes"},
		{"The baker took six fresh", "loaf", "loaves", "loafs", "loafes"},
		{"The heavy cart was pulled by two", "ox", "oxen", "oxes", "oxens"},
		{"She cut the apple into two", "half", "halves", "halfs", "halfes"},
		{"In the spring the cows had three", "calf", "calves", "calfs", "calfes"},
	}
	// Comparatives and superlatives: context, right form, wrong forms.
	irregularDegrees = [][4]string{
		{"My first cake was good, but my second cake was even", "better", "gooder", "more better"},
		{"The weather was bad yesterday, but today it is even", "worse", "badder", "worser"},
		{"The shop is far from here, but the station is even", "farther", "farer", "more farther"},
		{"Of all the runners in the race, Tom was the", "best", "goodest", "bestest"},
		{"It rained all week, and Sunday was the", "worst", "baddest", "worstest"},
	}
	subjects = []string{"I", "we", "they", "you"}
)

// morphItem is an item before its distractors are chosen: every wrong form
// the word allows.
type morphItem struct {
	level      int
	ctx, right string
	wrong      []string
	// common marks the wrong forms that are everyday words (a base form, a
	// participle): like the right form they are one token for most
	// tokenizers, where an invented form ("goed") is several.
	common []bool
	rest   string // after the form in every choice
}

func genMorphology(g *gen, n int) ([]Item, error) {
	verb := func(v irregularVerb, level int) morphItem {
		ctx := fmt.Sprintf(pick(g, pastFrames), pick(g, subjects))
		var wrong []string
		var common []bool
		for i, w := range []string{v.wrong1, v.wrong2, v.base, thirdPerson(v.base)} {
			if w != v.past && !slices.Contains(wrong, w) {
				wrong = append(wrong, w)
				common = append(common, i > 0)
			}
		}
		return morphItem{level, ctx, v.past, wrong, common, " " + v.rest + "."}
	}
	var byLevel [3][]morphItem
	for _, v := range frequentVerbs {
		byLevel[0] = append(byLevel[0], verb(v, 1))
	}
	for _, v := range rarerVerbs {
		byLevel[1] = append(byLevel[1], verb(v, 2))
	}
	for _, p := range irregularPlurals {
		byLevel[2] = append(byLevel[2], morphItem{3, p[0], p[2], []string{p[1], p[3], p[4]}, []bool{true, false, false}, "."})
	}
	for _, d := range irregularDegrees {
		byLevel[2] = append(byLevel[2], morphItem{3, d[0], d[1], []string{d[2], d[3]}, []bool{false, false}, "."})
	}
	var out []Item
	for li, q := range quota(n, 3) {
		if q > len(byLevel[li]) {
			return nil, fmt.Errorf("level %d has %d candidate items, %d wanted", li+1, len(byLevel[li]), q)
		}
		var t [3]lengthTally
		for _, m := range sample(g, byLevel[li], q) {
			gold, wrong := m.right+m.rest, balancedPair(g, m, &t)
			c, gi := g.choices(gold, wrong...)
			out = append(out, Item{Context: m.ctx, Choices: c, Gold: gi, Level: m.level})
		}
	}
	return out, nil
}

// balancedPair picks the two wrong forms that keep "choose the longest",
// "choose the shortest" and "choose the fewest tokens" (everyday words
// counted as one token, invented forms as more) closest to chance over the
// level so far, a random pair among equals, and records the pick in the
// tallies.
func balancedPair(g *gen, m morphItem, t *[3]lengthTally) []string {
	type cand struct {
		pair []string
		w    [3]float64
	}
	var best []cand
	bestCost := 0.0
	for i := range m.wrong {
		for j := i + 1; j < len(m.wrong); j++ {
			c := cand{pair: []string{m.wrong[i] + m.rest, m.wrong[j] + m.rest}}
			c.w[0], c.w[1] = lengthWins(m.right+m.rest, c.pair)
			ties := 1
			for _, k := range []int{i, j} {
				if m.common[k] {
					ties++
				}
			}
			c.w[2] = 1 / float64(ties)
			cost := 0.0
			for k := range t {
				cost += t[k].miss(c.w[k], 3)
			}
			switch {
			case len(best) == 0 || cost < bestCost-1e-9:
				best, bestCost = []cand{c}, cost
			case math.Abs(cost-bestCost) <= 1e-9:
				best = append(best, c)
			}
		}
	}
	c := pick(g, best)
	for k := range t {
		t[k].add(c.w[k], 3)
	}
	return c.pair
}

// thirdPerson is the present-tense form after he, she or it.
func thirdPerson(base string) string {
	switch {
	case base == "have":
		return "has"
	case strings.HasSuffix(base, "y") && !strings.ContainsRune("aeiou", rune(base[len(base)-2])):
		return base[:len(base)-1] + "ies"
	case strings.HasSuffix(base, "o"), strings.HasSuffix(base, "s"), strings.HasSuffix(base, "sh"),
		strings.HasSuffix(base, "ch"), strings.HasSuffix(base, "x"):
		return base + "es"
	}
	return base + "s"
}

var wordOrderSpec = taskSpec{
	Task: Task{
		ID: "word_order", Domain: "D1", Name: "Word order", Reduction: Sum,
		Levels: map[int]string{
			1: "subject, verb, object",
			2: "with adjectives",
			3: "with adjectives and a prepositional phrase",
		},
		About: "The grammatical sentence against two scrambles of the very same words (verb-final, verb-first, article after noun, adjective after noun, preposition after noun); sum because every choice has the same bytes.",
	},
	Size: 60, gen: genWordOrder,
}

// np is a noun phrase with an optional adjective.
type np struct{ det, adj, noun string }

func (p np) words(withAdj bool) []string {
	if withAdj && p.adj != "" {
		return []string{p.det, p.adj, p.noun}
	}
	return []string{p.det, p.noun}
}

type transitive struct {
	verb    string
	objects []np
	places  []string // prepositional phrases that fit, "into the house"
}

var (
	orderLeads    = []string{"Yesterday afternoon,", "Last week,", "On Sunday morning,", "After lunch,", "Early this morning,", "Last summer,", "Before dinner,", "After school,", "Later that day,", "On Friday evening,"}
	orderSubjects = []np{
		{"the", "little", "girl"}, {"the", "young", "boy"}, {"the", "old", "farmer"}, {"the", "tall", "teacher"},
		{"the", "happy", "children"}, {"the", "tired", "doctor"}, {"the", "young", "woman"}, {"the", "old", "man"},
		{"my", "little", "brother"}, {"our", "kind", "neighbor"},
	}
	// orderVerbs are past forms that differ from the base form: with "read"
	// (or "cut", "put") the verb-first scramble is a grammatical
	// imperative, "Before dinner, read the boy a book."
	orderVerbs = []transitive{
		{"found", []np{{"a", "shiny", "coin"}, {"a", "small", "key"}, {"an", "old", "map"}}, []string{"under the bed", "in the garden", "near the river"}},
		{"painted", []np{{"the", "wooden", "fence"}, {"the", "front", "door"}, {"the", "old", "chair"}}, []string{"with a wide brush", "in bright colors"}},
		{"washed", []np{{"the", "dirty", "car"}, {"the", "muddy", "dog"}, {"the", "sticky", "plates"}}, []string{"in the yard", "with warm water"}},
		{"carried", []np{{"the", "heavy", "box"}, {"a", "big", "basket"}, {"the", "new", "lamp"}}, []string{"into the house", "up the stairs", "to the car"}},
		{"drew", []np{{"a", "funny", "picture"}, {"a", "big", "map"}, {"a", "tall", "tree"}}, []string{"in the garden", "on the train", "by the fire"}},
		{"opened", []np{{"the", "small", "window"}, {"the", "heavy", "door"}, {"a", "large", "parcel"}}, []string{"with both hands", "in the kitchen"}},
		{"bought", []np{{"a", "warm", "hat"}, {"some", "fresh", "bread"}, {"a", "red", "kite"}}, []string{"at the market", "in the town"}},
		{"fed", []np{{"the", "hungry", "cat"}, {"the", "noisy", "ducks"}, {"the", "old", "horse"}}, []string{"in the barn", "by the pond"}},
		{"lost", []np{{"the", "red", "ball"}, {"a", "woolly", "glove"}, {"the", "blue", "umbrella"}}, []string{"in the park", "on the bus"}},
		{"built", []np{{"a", "tall", "sandcastle"}, {"a", "big", "snowman"}, {"a", "wooden", "birdhouse"}}, []string{"on the beach", "in the garden"}},
	}
)

// scramble kinds: each keeps the words and breaks the order.
const (
	verbFinal = iota // the girl a coin found
	verbFirst        // found the girl a coin
	detAfter         // girl the found coin a
	adjAfter         // the girl little found a coin shiny
	prepAfter        // ... house into the
)

func genWordOrder(g *gen, n int) ([]Item, error) {
	var out []Item
	seen := map[string]bool{}
	for li, q := range quota(n, 3) {
		level := li + 1
		for made, tries := 0, 0; made < q; tries++ {
			if tries == maxTries {
				return nil, fmt.Errorf("level %d: %d distinct sentences of %d after %d draws", level, made, q, maxTries)
			}
			subj, v := pick(g, orderSubjects), pick(g, orderVerbs)
			obj := pick(g, v.objects)
			adj := level >= 2
			place := ""
			if level == 3 {
				place = pick(g, v.places)
			}
			kinds := []int{verbFinal, verbFirst, detAfter}
			if adj {
				kinds = append(kinds, adjAfter)
			}
			if place != "" {
				kinds = append(kinds, prepAfter)
			}
			right := orderSentence(subj, v.verb, obj, place, adj, -1)
			if seen[right] {
				continue
			}
			var wrong []string
			for _, k := range sample(g, kinds, 2) {
				wrong = append(wrong, orderSentence(subj, v.verb, obj, place, adj, k))
			}
			if wrong[0] == wrong[1] || wrong[0] == right || wrong[1] == right {
				continue
			}
			seen[right] = true
			made++
			c, gold := g.choices(right, wrong...)
			out = append(out, Item{Context: pick(g, orderLeads), Choices: c, Gold: gold, Level: level})
		}
	}
	return out, nil
}

// orderSentence writes subject, verb, object and place in order, or
// scrambled by kind (-1 for the grammatical order), ending with a period.
func orderSentence(subj np, verb string, obj np, place string, adj bool, kind int) string {
	s, o := subj.words(adj), obj.words(adj)
	var p []string
	if place != "" {
		p = strings.Fields(place)
	}
	switch kind {
	case detAfter:
		s[0], s[len(s)-1] = s[len(s)-1], s[0]
		o[0], o[len(o)-1] = o[len(o)-1], o[0]
	case adjAfter:
		s[1], s[2] = s[2], s[1]
		o[1], o[2] = o[2], o[1]
	case prepAfter:
		p = append(p[1:], p[0])
	}
	var words []string
	switch kind {
	case verbFinal:
		words = append(append(append(words, s...), o...), verb)
		words = append(words, p...)
	case verbFirst:
		words = append(append(append(words, verb), s...), o...)
		words = append(words, p...)
	default:
		words = append(append(append(append(words, s...), verb), o...), p...)
	}
	return strings.Join(words, " ") + "."
}
