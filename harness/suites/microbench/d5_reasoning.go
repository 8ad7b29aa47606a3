package microbench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// D5 Elementary Reasoning: arithmetic, comparison and ordering, sequences
// and counting.

var arithmeticSpec = taskSpec{
	Task: Task{
		ID: "arithmetic", Domain: "D5", Name: "Arithmetic", Reduction: Sum,
		Levels: map[int]string{
			1: "single-digit addition",
			2: "word problems with small numbers; two-digit addition",
			3: "two-digit subtraction; single-digit multiplication",
		},
		About: "Sums, differences and products against near misses (off by one or two, by ten, or the neighboring multiple).",
	},
	Size: 70, gen: genArithmetic,
}

// near returns k distinct non-negative numbers ans+d for d in offsets,
// excluding ans, in random order.
func near(g *gen, ans, k int, keep func(string) bool, offsets ...int) []string {
	var pool []string
	for _, d := range offsets {
		if v := ans + d; v >= 0 && d != 0 && keep(strconv.Itoa(v)) {
			pool = append(pool, strconv.Itoa(v))
		}
	}
	return others(g, pool, k, strconv.Itoa(ans))
}

// anyNumber keeps every near miss.
func anyNumber(string) bool { return true }

// notIn keeps near misses that are not among the shown terms: a distractor
// copied from the context would stand out as the only choice there.
func notIn(shown []string) func(string) bool {
	return func(v string) bool { return !slices.Contains(shown, v) }
}

var (
	countables = []string{"apples", "stickers", "marbles", "cookies", "pencils", "shells", "stamps", "balloons"}
)

func genArithmetic(g *gen, n int) ([]Item, error) {
	return g.leveled(n, func(level, _ int) (ctx, gold string, wrong []string, ok bool) {
		switch level {
		case 1:
			a, b := g.between(1, 9), g.between(1, 9)
			ctx, gold = fmt.Sprintf("%d + %d =", a, b), strconv.Itoa(a+b)
			wrong = near(g, a+b, 3, anyNumber, -2, -1, 1, 2)
		case 2:
			if g.intn(2) == 0 {
				p, thing := pick(g, people), pick(g, countables)
				a, b := g.between(3, 12), g.between(2, 9)
				var ans int
				if g.intn(2) == 0 {
					ans = a + b
					ctx = fmt.Sprintf("%s has %d %s. %s gets %d more %s. Now %s has", p.Name, a, thing, p.SubjCap, b, thing, p.Name)
				} else {
					if b >= a {
						return
					}
					ans = a - b
					ctx = fmt.Sprintf("%s had %d %s. %s gave %d %s to a friend. Now %s has", p.Name, a, thing, p.SubjCap, b, thing, p.Name)
				}
				gold = fmt.Sprintf("%d %s.", ans, thing)
				for _, w := range near(g, ans, 3, anyNumber, -2, -1, 1, 2) {
					wrong = append(wrong, w+" "+thing+".")
				}
			} else {
				a, b := g.between(11, 59), g.between(11, 39)
				ctx, gold = fmt.Sprintf("%d + %d =", a, b), strconv.Itoa(a+b)
				wrong = near(g, a+b, 3, anyNumber, -10, -2, -1, 1, 2, 10)
			}
		case 3:
			if g.intn(2) == 0 {
				a, b := g.between(30, 99), g.between(11, 29)
				ctx, gold = fmt.Sprintf("%d - %d =", a, b), strconv.Itoa(a-b)
				wrong = near(g, a-b, 3, anyNumber, -10, -2, -1, 1, 2, 10)
			} else {
				a, b := g.between(2, 9), g.between(2, 9)
				ctx, gold = fmt.Sprintf("%d * %d =", a, b), strconv.Itoa(a*b)
				wrong = near(g, a*b, 3, anyNumber, -a, -b, -1, 1, a, b)
			}
		}
		return ctx, gold, wrong, true
	})
}

var comparisonSpec = taskSpec{
	Task: Task{
		ID: "comparison", Domain: "D5", Name: "Comparison and ordering", Reduction: Sum, Grouped: true,
		Levels: map[int]string{
			1: "numbers up to 20, at least 5 apart",
			2: "two-digit numbers less than 10 apart",
			3: "sizes, weights, speeds, heights, durations and temperatures of familiar things",
		},
		About: "Contrast pairs: the same two options asked as \"bigger\" and as \"smaller\" (or heavier/lighter…), so the gold answer flips; a model that always prefers one option gets one of the two.",
	},
	Size: 60, gen: genComparison,
}

// contrast: the "more" adjective, the "less" adjective, and the two
// things (with article for the question, bare for the answer), the first
// being the "more" one.
type contrast struct {
	more, less    string
	bigA, big     string
	smallA, small string
}

var worldComparisons = []contrast{
	{"heavier", "lighter", "an elephant", "elephant", "a mouse", "mouse"},
	{"heavier", "lighter", "a brick", "brick", "a feather", "feather"},
	{"heavier", "lighter", "a car", "car", "a bicycle", "bicycle"},
	{"heavier", "lighter", "a horse", "horse", "a cat", "cat"},
	{"heavier", "lighter", "a piano", "piano", "a pencil", "pencil"},
	{"taller", "shorter", "a giraffe", "giraffe", "a rabbit", "rabbit"},
	{"taller", "shorter", "a tree", "tree", "a flower", "flower"},
	{"taller", "shorter", "an adult", "adult", "a baby", "baby"},
	{"taller", "shorter", "a lighthouse", "lighthouse", "a tent", "tent"},
	{"faster", "slower", "a cheetah", "cheetah", "a snail", "snail"},
	{"faster", "slower", "a plane", "plane", "a bicycle", "bicycle"},
	{"faster", "slower", "a train", "train", "a tortoise", "tortoise"},
	{"faster", "slower", "a racing car", "racing car", "a horse cart", "horse cart"},
	{"longer", "shorter", "a year", "year", "a day", "day"},
	{"longer", "shorter", "a week", "week", "an hour", "hour"},
	{"longer", "shorter", "a minute", "minute", "a second", "second"},
	{"bigger", "smaller", "an ocean", "ocean", "a pond", "pond"},
	{"bigger", "smaller", "a city", "city", "a village", "village"},
	{"bigger", "smaller", "a whale", "whale", "an ant", "ant"},
	{"bigger", "smaller", "a house", "house", "a shoe", "shoe"},
	{"hotter", "colder", "an oven", "oven", "a freezer", "freezer"},
	{"hotter", "colder", "a campfire", "campfire", "a snowball", "snowball"},
}

func genComparison(g *gen, n int) ([]Item, error) {
	if n%2 != 0 {
		return nil, fmt.Errorf("contrast pairs need an even item count, not %d", n)
	}
	var out []Item
	seen := map[string]bool{}
	pairNo := 0
	for li, q := range quota(n/2, 3) {
		level := li + 1
		var world []contrast
		if level == 3 {
			if q > len(worldComparisons) {
				return nil, fmt.Errorf("level 3 has %d comparisons, %d wanted", len(worldComparisons), q)
			}
			world = sample(g, worldComparisons, q)
		}
		for made := 0; made < q; {
			var c contrast
			var noun string
			switch level {
			case 1, 2:
				var x, y int
				if level == 1 {
					x, y = g.between(1, 20), g.between(1, 20)
					if x-y < 5 && y-x < 5 {
						continue
					}
				} else {
					x, y = g.between(10, 99), g.between(10, 99)
					if x == y || x-y >= 10 || y-x >= 10 {
						continue
					}
				}
				if x < y {
					x, y = y, x
				}
				c = contrast{"bigger", "smaller", strconv.Itoa(x), strconv.Itoa(x), strconv.Itoa(y), strconv.Itoa(y)}
				noun = "number"
			case 3:
				c = world[made]
				noun = "one"
			}
			// The question names the two options in a random order, the
			// same for both members of the pair.
			first, second := c.bigA, c.smallA
			if g.intn(2) == 0 {
				first, second = second, first
			}
			ask := func(adj string) string {
				if noun == "number" {
					return fmt.Sprintf("Which number is %s, %s or %s? The %s number is", adj, first, second, adj)
				}
				return fmt.Sprintf("Which is %s, %s or %s? The %s one is the", adj, first, second, adj)
			}
			moreCtx, lessCtx := ask(c.more), ask(c.less)
			if seen[moreCtx] {
				continue
			}
			seen[moreCtx] = true
			made++
			pairNo++
			group := fmt.Sprintf("p%02d", pairNo)
			out = append(out, g.contrastPair(group, level, moreCtx, lessCtx, c.big, c.small)...)
		}
	}
	return out, nil
}

var sequencesSpec = taskSpec{
	Task: Task{
		ID: "sequences", Domain: "D5", Name: "Sequences and counting", Reduction: MeanByte,
		Levels: map[int]string{
			1: "counting on by one; days of the week; the alphabet",
			2: "steps of 2, 3, 5 or 10; counting down; months; number words",
			3: "doubling; counting the things in a short list",
		},
		About: "The next element of a sequence, or how many things a list holds, against near misses.",
	},
	Size: 60, gen: genSequences,
}

var (
	weekdays    = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	monthNames  = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	numberWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	countThings = [][2]string{{"star", "*"}, {"apple", "apple"}, {"dog", "dog"}}
)

// cyclic returns shown consecutive elements of xs from start (wrapping) and
// the one that follows.
func cyclic(xs []string, start, shown int) ([]string, string) {
	var out []string
	for i := range shown {
		out = append(out, xs[(start+i)%len(xs)])
	}
	return out, xs[(start+shown)%len(xs)]
}

func numbers(start, step, k int) []string {
	var out []string
	for i := range k {
		out = append(out, strconv.Itoa(start+i*step))
	}
	return out
}

func genSequences(g *gen, n int) ([]Item, error) {
	return g.leveled(n, func(level, _ int) (ctx, gold string, wrong []string, ok bool) {
		var shown []string
		switch level*10 + g.intn(3) {
		case 10: // count on by one
			s := g.between(1, 40)
			shown, gold = numbers(s, 1, 4), strconv.Itoa(s+4)
			wrong = near(g, s+4, 3, notIn(shown), 1, 2, 10, -10)
		case 11:
			shown, gold = cyclic(weekdays, g.intn(7), 3)
			wrong = others(g, weekdays, 3, append(shown, gold)...)
		case 12:
			s := g.intn(20)
			letters := strings.Split("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "")
			shown, gold = letters[s:s+4], letters[s+4]
			wrong = others(g, letters[max(0, s-2):min(len(letters), s+8)], 3, append(shown, gold)...)
		case 20: // steps, or counting down
			step := pick(g, []int{2, 3, 5, 10})
			if g.intn(3) == 0 {
				step = -1
			}
			s := g.between(1, 9) * max(step, 1)
			if step < 0 {
				s = g.between(10, 30)
			}
			shown, gold = numbers(s, step, 4), strconv.Itoa(s+4*step)
			wrong = near(g, s+4*step, 3, notIn(shown), step, 2*step, 1, -1, 2, -2, 10, -10)
		case 21:
			shown, gold = cyclic(monthNames, g.intn(12), 3)
			wrong = others(g, monthNames, 3, append(shown, gold)...)
		case 22:
			s := g.between(1, 6)
			step := g.between(1, 2)
			for i := range 3 {
				shown = append(shown, numberWords[s+i*step])
			}
			gold = numberWords[s+3*step]
			wrong = others(g, numberWords[s:], 3, append(shown, gold)...)
		case 30, 31: // doubling
			s := g.between(1, 5)
			shown, gold = []string{strconv.Itoa(s), strconv.Itoa(2 * s), strconv.Itoa(4 * s), strconv.Itoa(8 * s)}, strconv.Itoa(16*s)
			wrong = near(g, 16*s, 3, notIn(shown), 8*s, 4*s, -4*s, 2, -2)
		case 32: // counting
			t := pick(g, countThings)
			k := g.between(4, 8) // k−2 ≥ 2 keeps every distractor plural
			marks := strings.TrimSpace(strings.Repeat(t[1]+" ", k))
			gold = fmt.Sprintf("%s %ss.", numberWords[k], t[0])
			for _, d := range sample(g, []int{-2, -1, 1, 2}, 3) {
				wrong = append(wrong, fmt.Sprintf("%s %ss.", numberWords[k+d], t[0]))
			}
			ctx = fmt.Sprintf("Count the %ss: %s. There are", t[0], marks)
		}
		if ctx == "" {
			ctx = strings.Join(shown, ", ") + ","
		}
		return ctx, gold, wrong, true
	})
}
