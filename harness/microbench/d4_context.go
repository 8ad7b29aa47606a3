package microbench

import (
	"fmt"
	"strings"
)

// D4 Context Use & Reading: short-passage reading, entity/state tracking,
// in-context copying. Every answer is in the context and nowhere else.

var readingSpec = taskSpec{
	Task: Task{
		ID: "reading", Domain: "D4", Name: "Short-passage reading", Reduction: MeanByte,
		Levels: map[int]string{
			1: "two people in the passage",
			2: "three people in the passage",
			3: "four people and a sentence that mentions a town someone does not live in; hand-written passages",
		},
		About: "A passage about invented people (towns, belongings, pets) and a question whose answer and distractors all appear in it; plus hand-written passages.",
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
	return g.leveled(n, func(level int) (string, string, []string, bool) {
		k := level + 1 // people in the passage
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
		who := g.intn(k)
		p := ps[who]
		var question, gold string
		var inPassage, pool []string
		switch g.intn(4) {
		case 0:
			question, gold, inPassage, pool = fmt.Sprintf("Where does %s live?", p.Name), ts[who], ts, towns
		case 1:
			question, gold, inPassage, pool = fmt.Sprintf("What color is %s's %s?", p.Name, bs[who]), cs[who], cs, colors
		case 2:
			question, gold, inPassage, pool = fmt.Sprintf("What is the name of %s's %s?", p.Name, as[who]), ns[who], ns, petNames
		default:
			var names, all []string
			for _, x := range ps {
				names = append(names, x.Name)
			}
			for _, x := range people {
				all = append(all, x.Name)
			}
			question, gold, inPassage, pool = fmt.Sprintf("Who lives in %s?", ts[who]), p.Name, names, all
		}
		var wrong []string
		for _, x := range inPassage {
			if x != gold && len(wrong) < 3 {
				wrong = append(wrong, x)
			}
		}
		if len(wrong) < 3 {
			wrong = append(wrong, others(g, pool, 3-len(wrong), inPassage...)...)
		}
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
		About: "An object or a person moves between places; which place is it in now? The choices are every place mentioned, so their number grows with the level and chance is the mean of 1/k (13/36).",
	},
	Size: 60, gen: genTracking,
}

var (
	containers = []string{"box", "basket", "drawer", "bag", "cupboard", "bucket", "suitcase", "backpack"}
	smallThngs = []string{"ball", "key", "apple", "coin", "ring", "spoon", "letter", "toy car"}
	rooms      = []string{"kitchen", "garden", "bedroom", "hallway", "garage", "bathroom", "attic", "living room"}
)

func genTracking(g *gen, n int) ([]Item, error) {
	return g.leveled(n, func(level int) (ctx, gold string, wrong []string, ok bool) {
		moves := level
		var locs []string
		ps := sample(g, people, 3)
		if g.intn(2) == 0 {
			obj := pick(g, smallThngs)
			locs = sample(g, containers, moves+1)
			s := []string{fmt.Sprintf("The %s is in the %s.", obj, locs[0]),
				fmt.Sprintf("%s takes the %s out of the %s and puts it in the %s.", ps[0].Name, obj, locs[0], locs[1])}
			for m := 2; m <= moves; m++ {
				s = append(s, fmt.Sprintf("Then %s takes it out and puts it in the %s.", ps[m-1].Name, locs[m]))
			}
			if level == 3 {
				other := pick(g, smallThngs)
				if other == obj {
					return
				}
				s = append(s, fmt.Sprintf("The %s stays in the %s.", other, locs[1]))
			}
			ctx = strings.Join(s, " ") + fmt.Sprintf(" Now the %s is in the", obj)
		} else {
			p := ps[0]
			locs = sample(g, rooms, moves+1)
			s := []string{fmt.Sprintf("%s is in the %s.", p.Name, locs[0]),
				fmt.Sprintf("Then %s walks to the %s.", p.Subj, locs[1])}
			if moves >= 2 {
				s = append(s, fmt.Sprintf("After that, %s goes to the %s.", p.Subj, locs[2]))
			}
			if moves >= 3 {
				s = append(s, fmt.Sprintf("%s stays in the %s.", ps[1].Name, locs[1]),
					fmt.Sprintf("Later %s goes to the %s.", p.Name, locs[3]))
			}
			ctx = strings.Join(s, " ") + fmt.Sprintf(" Now %s is in the", p.Name)
		}
		return ctx, locs[moves], locs[:moves], true
	})
}

var copyingSpec = taskSpec{
	Task: Task{
		ID: "copying", Domain: "D4", Name: "In-context copying", Reduction: Sum,
		Levels: map[int]string{
			1: "repeat a two-syllable made-up word",
			2: "repeat the one of two three-syllable codes that a question asks for",
			3: "continue a repeated list of five made-up words",
		},
		About: "Made-up words that only the context can supply, against one-letter changes or the other words in the context; every choice has the same length, so sum is fair.",
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

func genCopying(g *gen, n int) ([]Item, error) {
	return g.leveled(n, func(level int) (ctx, gold string, wrong []string, ok bool) {
		switch level {
		case 1:
			gold = g.nonce(2)
			ex := map[string]bool{gold: true}
			for range 3 {
				m := g.mutate(gold, ex)
				ex[m] = true
				wrong = append(wrong, m)
			}
			ctx = fmt.Sprintf("The secret word is %s. Say the secret word again. The secret word is", gold)
		case 2:
			a, b := g.nonce(3), g.nonce(3)
			if a == b {
				return
			}
			cs := sample(g, codeColors, 2)
			ask := g.intn(2)
			gold = []string{a, b}[ask]
			other := []string{a, b}[1-ask]
			ex := map[string]bool{a: true, b: true}
			m1 := g.mutate(gold, ex)
			ex[m1] = true
			wrong = []string{other, m1, g.mutate(other, ex)}
			ctx = fmt.Sprintf("The %s box has the code %s, and the %s box has the code %s. The code of the %s box is", cs[0], a, cs[1], b, cs[ask])
		case 3:
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
