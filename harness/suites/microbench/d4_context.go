package microbench

import (
	"fmt"
	"slices"
	"strings"
)

// D4 Context Use & Reading: short-passage reading, entity/state tracking,
// in-context copying. Every answer is in the context and nowhere else.

var readingSpec = taskSpec{
	Task: Task{
		ID: "reading", Domain: "D4", Name: "Short-passage reading", Reduction: MeanByte,
		Levels: map[int]string{
			1: "two people in the passage, two choices",
			2: "three people in the passage, three choices",
			3: "four people and a sentence that mentions a town someone does not live in, four choices; hand-written passages",
		},
		About: "A passage about invented people (towns, belongings, pets) and a question about one of them; the choices are the passage's values of the asked kind, one per person, so every choice appears in it and chance is the mean of 1/k; plus hand-written passages.",
	},
	Size: 60, gen: genReading,
}

var (
	towns      = []string{"Millbrook", "Stonefield", "Larkhill", "Fernhollow", "Ashcombe", "Brackenby", "Elmsworth", "Redwater", "Thornbury", "Willowmere"}
	belongings = []string{"kite", "bike", "scarf", "umbrella", "backpack", "hat", "boat", "mug"}
	colors     = []string{"red", "blue", "green", "yellow", "purple", "orange", "white", "black"}
	pets       = []string{"dog", "cat", "rabbit", "parrot", "hamster", "turtle"}
	petNames   = []string{"Pip", "Biscuit", "Shadow", "Ziggy", "Mango", "Pepper", "Luna", "Rocket", "Button", "Toffee"}
)

func genReading(g *gen, n int) ([]Item, error) {
	// who answers the question, per level: every person equally often, so
	// the value mentioned first (the first person's) or last (the last
	// person's) is the answer on only its share. On level 3 the closing
	// visit sentence names another town and person last, so the question
	// kind and the person are drawn as one balanced pair there.
	var who, kind [3][]int
	for l, q := range quota(n, 3) {
		k := l + 2
		if l == 2 {
			for _, c := range g.balanced(q, 4*k) {
				kind[l], who[l] = append(kind[l], c/k), append(who[l], c%k)
			}
			continue
		}
		who[l] = g.balanced(q, k)
		for range q {
			kind[l] = append(kind[l], g.intn(4))
		}
	}
	return g.leveled(n, func(level, i int) (string, string, []string, bool) {
		k := level + 1 // people in the passage, and choices
		ps := sample(g, people, k)
		ts := sample(g, towns, k)
		cs := sample(g, colors, k)
		bs := sample(g, belongings, k)
		as := sample(g, pets, k)
		ns := sample(g, petNames, k)
		var b strings.Builder
		for i, p := range ps {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s lives in %s. %s has %s %s and a %s named %s.", p.Name, ts[i], p.SubjCap, article(cs[i]), bs[i], as[i], ns[i])
		}
		if level == 3 {
			fmt.Fprintf(&b, " Last year %s visited %s.", ps[1].Name, ts[0])
		}
		w := who[level-1][i]
		p := ps[w]
		var question string
		var inPassage []string
		switch kind[level-1][i] {
		case 0:
			question, inPassage = fmt.Sprintf("Where does %s live?", p.Name), ts
		case 1:
			question, inPassage = fmt.Sprintf("What color is %s's %s?", p.Name, bs[w]), cs
		case 2:
			question, inPassage = fmt.Sprintf("What is the name of %s's %s?", p.Name, as[w]), ns
		default:
			var names []string
			for _, x := range ps {
				names = append(names, x.Name)
			}
			question, inPassage = fmt.Sprintf("Who lives in %s?", ts[w]), names
		}
		// The choices are the passage's values of the asked kind, one per
		// person: every choice is in the passage.
		gold := inPassage[w]
		wrong := slices.Delete(slices.Clone(inPassage), w, w+1)
		return b.String() + "\nQuestion: " + question + "\nAnswer:", gold, wrong, true
	})
}

var trackingSpec = taskSpec{
	Task: Task{
		ID: "tracking", Domain: "D4", Name: "Entity and state tracking", Reduction: MeanByte,
		Levels: map[int]string{
			1: "one move, two places to choose from",
			2: "two moves, three places",
			3: "three moves and a distracting sentence, four places",
		},
		About: "An object or a person moves between places; which place is it in now? The choices are every place mentioned, so their number grows with the level and chance is the mean of 1/k (13/36); where the answer comes in the order of mentions (first, last, between) is balanced.",
	},
	Size: 60, gen: genTracking,
}

var (
	containers = []string{"box", "basket", "drawer", "bag", "cupboard", "bucket", "suitcase", "backpack"}
	smallThngs = []string{"ball", "key", "apple", "coin", "ring", "spoon", "letter", "toy car"}
	rooms      = []string{"kitchen", "garden", "bedroom", "hallway", "garage", "bathroom", "attic", "cellar"}
)

// genTracking tells a path through every place of the item, so the choices
// are the places mentioned. The order of mentions is no guide: an opening
// sentence lists the places with the answer at each position equally
// often, and on all but the answer's share of items a closing sentence
// mentions another place after the last move.
func genTracking(g *gen, n int) ([]Item, error) {
	var firstAt, closing [3][]int
	for l, q := range quota(n, 3) {
		firstAt[l], closing[l] = g.balanced(q, l+2), g.balanced(q, l+2)
	}
	return g.leveled(n, func(level, i int) (ctx, gold string, wrong []string, ok bool) {
		moves := level
		ps := sample(g, people, 3)
		objects := g.intn(2) == 0
		pool := rooms
		if objects {
			pool = containers
		}
		locs := sample(g, pool, moves+1) // the path; it ends in locs[moves]
		gold, wrong = locs[moves], locs[:moves]
		listed := slices.Insert(sample(g, wrong, len(wrong)), firstAt[level-1][i], gold)
		var s []string
		// Places a closing sentence may name truthfully: not the answer,
		// and not where someone or something else stays.
		var quiet []string
		if objects {
			obj := pick(g, smallThngs)
			var the []string
			for _, l := range listed {
				the = append(the, "the "+l)
			}
			s = append(s, fmt.Sprintf("In the room are %s.", andList(the)),
				fmt.Sprintf("The %s is in the %s.", obj, locs[0]),
				fmt.Sprintf("%s takes the %s out of the %s and puts it in the %s.", ps[0].Name, obj, locs[0], locs[1]))
			for m := 2; m <= moves; m++ {
				if level == 3 && m == 3 {
					other := pick(g, smallThngs)
					if other == obj {
						return
					}
					s = append(s, fmt.Sprintf("The %s stays in the %s.", other, locs[1]))
				}
				s = append(s, fmt.Sprintf("Then %s takes it out and puts it in the %s.", ps[m-1].Name, locs[m]))
			}
			for _, l := range wrong {
				if level < 3 || l != locs[1] {
					quiet = append(quiet, l)
				}
			}
			if closing[level-1][i] > 0 {
				s = append(s, fmt.Sprintf(pick(g, []string{"The %s is empty now.", "Nothing is left in the %s."}), pick(g, quiet)))
			}
			ctx = strings.Join(s, " ") + fmt.Sprintf(" Now the %s is in the", obj)
		} else {
			p := ps[0]
			var a []string
			for _, l := range listed {
				a = append(a, article(l))
			}
			s = append(s, fmt.Sprintf("The house has %s.", andList(a)),
				fmt.Sprintf("%s is in the %s.", p.Name, locs[0]),
				fmt.Sprintf("Then %s walks to the %s.", p.Subj, locs[1]))
			if moves >= 2 {
				s = append(s, fmt.Sprintf("After that, %s goes to the %s.", p.Subj, locs[2]))
			}
			if moves >= 3 {
				s = append(s, fmt.Sprintf("%s stays in the %s.", ps[1].Name, locs[1]),
					fmt.Sprintf("Later %s goes to the %s.", p.Name, locs[3]))
			}
			if closing[level-1][i] > 0 {
				s = append(s, fmt.Sprintf("%s does not go back to the %s.", p.SubjCap, pick(g, wrong)))
			}
			ctx = strings.Join(s, " ") + fmt.Sprintf(" Now %s is in the", p.Name)
		}
		return ctx, gold, wrong, true
	})
}

// andList joins "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

var copyingSpec = taskSpec{
	Task: Task{
		ID: "copying", Domain: "D4", Name: "In-context copying", Reduction: Sum,
		Levels: map[int]string{
			1: "repeat a two-syllable made-up word named among three one-letter changes of it",
			2: "repeat the one of four three-syllable codes (two look-alike pairs) that a question asks for",
			3: "continue a repeated list of five made-up words",
		},
		About: "Made-up words that only the context can supply; every choice is in the context, and only the one the question points to is right; every choice has the same length, so sum is fair.",
	},
	Size: 60, gen: genCopying,
}

const (
	nonceConsonants = "bdfgklmnprstvz"
	nonceVowels     = "aeiou"
	// A final "e" would make silent-e English words (bake, time, note).
	finalVowels = "aiou"
)

// realWords are consonant-vowel words, names and places the nonce generator
// must not produce: a copied word has to be one the model cannot guess.
var realWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		tuna sofa pita kilo soda lava data mama papa diva polo solo memo demo silo tofu menu
		gala lama puma dodo logo sumo tutu nada mega tuba mini peru lima mali bali kobe nara
		lola lisa dana sara tina nina rita gina mona nora vera lena mila luna kiki gigi fifi
		lili mimi bobo momo koko lulu toga pupa nova rama kama tiki tipi fido vida mola dada
		baba nana gaga lala sisi susu tata titi toto zuzu gobi kali mara maya sita rosa pisa
		bora boda vita lobo mono modo bolo kaka semi
		safari kimono salami banana potato tomato domino bikini kabuki sudoku gorila`) {
		m[w] = true
	}
	return m
}()

// vowelsAt is the vowel set for letter i of a word of length n.
func vowelsAt(i, n int) string {
	if i == n-1 {
		return finalVowels
	}
	return nonceVowels
}

func (g *gen) nonce(syllables int) string {
	for {
		b := make([]byte, 0, 2*syllables)
		for i := range syllables {
			vs := vowelsAt(2*i+1, 2*syllables)
			b = append(b, nonceConsonants[g.intn(len(nonceConsonants))], vs[g.intn(len(vs))])
		}
		if w := string(b); !realWords[w] {
			return w
		}
	}
}

// mutate changes one letter of w (a consonant for a consonant, a vowel for a
// vowel), keeping its length, avoiding real words and the excluded words.
func (g *gen) mutate(w string, exclude map[string]bool) string {
	for {
		b := []byte(w)
		i := g.intn(len(b))
		set := nonceConsonants
		if strings.IndexByte(nonceVowels, b[i]) >= 0 {
			set = vowelsAt(i, len(b))
		}
		b[i] = set[g.intn(len(set))]
		if m := string(b); m != w && !realWords[m] && !exclude[m] {
			return m
		}
	}
}

var codeColors = []string{"red", "blue", "green", "yellow", "white", "black"}

// genCopying puts every choice in the context: the answer is the one the
// context ties to the question, and where it is mentioned (first, last, in
// between) is balanced over the items of a level.
func genCopying(g *gen, n int) ([]Item, error) {
	q := quota(n, 3)
	goldAt := [2][]int{g.balanced(q[0], 4), g.balanced(q[1], 4)}
	return g.leveled(n, func(level, i int) (ctx, gold string, wrong []string, ok bool) {
		switch level {
		case 1:
			// The secret word among three one-letter changes of it, each
			// named as not the secret word, before or after it.
			gold = g.nonce(2)
			ex := map[string]bool{gold: true}
			for range 3 {
				m := g.mutate(gold, ex)
				ex[m] = true
				wrong = append(wrong, m)
			}
			at := goldAt[0][i]
			var s []string
			if at > 0 {
				s = append(s, notSecret(wrong[:at]))
			}
			s = append(s, fmt.Sprintf("The secret word is %s.", gold))
			if at < 3 {
				s = append(s, notSecret(wrong[at:]))
			}
			ctx = strings.Join(s, " ") + " Say the secret word again. The secret word is"
		case 2:
			// Four boxes with codes in two look-alike pairs; the question
			// asks for the box at position goldAt.
			a, b := g.nonce(3), g.nonce(3)
			if a == b {
				return
			}
			ex := map[string]bool{a: true, b: true}
			a2 := g.mutate(a, ex)
			ex[a2] = true
			codes := sample(g, []string{a, a2, b, g.mutate(b, ex)}, 4)
			cs := sample(g, codeColors, 4)
			at := goldAt[1][i]
			var parts []string
			for j := range codes {
				parts = append(parts, fmt.Sprintf("the %s box has the code %s", cs[j], codes[j]))
			}
			gold = codes[at]
			wrong = slices.Delete(slices.Clone(codes), at, at+1)
			ctx = fmt.Sprintf("%s. The code of the %s box is", capitalize(andList(parts)), cs[at])
		case 3:
			// The gold has not been repeated yet; the distractors are the
			// list's other words.
			list := make([]string, 5)
			uniq := map[string]bool{}
			for i := range list {
				for list[i] == "" || uniq[list[i]] {
					list[i] = g.nonce(2)
				}
				uniq[list[i]] = true
			}
			at := g.between(2, 4)
			gold = list[at]
			wrong = others(g, list, 3, gold)
			ctx = fmt.Sprintf("Here is a list: %s. Here is the same list again: %s,", strings.Join(list, ", "), strings.Join(list[:at], ", "))
		}
		return ctx, gold, wrong, true
	})
}

// notSecret says that the words are not the secret word.
func notSecret(ws []string) string {
	if len(ws) == 1 {
		return fmt.Sprintf("The word %s is not the secret word.", ws[0])
	}
	return fmt.Sprintf("The words %s are not the secret word.", andList(ws))
}

func capitalize(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
