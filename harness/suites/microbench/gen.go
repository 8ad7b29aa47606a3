package microbench

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
)

// stream is a task's own random source: PCG seeded with the suite seed and
// a hash of the task id, so a change to one task's generator (or to how
// much randomness it draws) never reshuffles another task.
func stream(seed uint64, taskID string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(taskID))
	return rand.NewPCG(seed, h.Sum64())
}

// gen draws what generators need from a task's stream. It uses only the
// stream's raw 64-bit output (PCG-DXSM, a fixed algorithm) with its own
// rejection sampling and Fisher–Yates shuffle, so the item set does not
// depend on how a Go release implements rand.Rand's helpers.
type gen struct{ src *rand.PCG }

// intn returns a uniform integer in [0, n).
func (g *gen) intn(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("microbench: intn(%d)", n))
	}
	b := uint64(n)
	// Reject the top 2⁶⁴ mod b values so every residue is equally likely.
	reject := (math.MaxUint64%b + 1) % b
	for {
		if v := g.src.Uint64(); v <= math.MaxUint64-reject {
			return int(v % b)
		}
	}
}

// between returns an integer in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.intn(hi-lo+1) }

func pick[T any](g *gen, xs []T) T { return xs[g.intn(len(xs))] }

// perm is a random permutation of 0..n-1.
func (g *gen) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	shuffle(g, p)
	return p
}

// sample returns k distinct elements of xs (by position) in random order.
func sample[T any](g *gen, xs []T, k int) []T {
	if k > len(xs) {
		panic(fmt.Sprintf("microbench: sample of %d from %d", k, len(xs)))
	}
	idx := g.perm(len(xs))[:k]
	out := make([]T, k)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// shuffle is Fisher–Yates.
func shuffle[T any](g *gen, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// choices puts the gold answer at a random position among the distractors.
func (g *gen) choices(gold string, distractors ...string) ([]string, int) {
	out := append([]string{gold}, distractors...)
	shuffle(g, out)
	for i, c := range out {
		if c == gold {
			return out, i
		}
	}
	panic("unreachable")
}

// others returns k distinct elements of pool that differ from every
// excluded value, in random order.
func others(g *gen, pool []string, k int, exclude ...string) []string {
	skip := map[string]bool{}
	for _, e := range exclude {
		skip[e] = true
	}
	var cand []string
	seen := map[string]bool{}
	for _, p := range pool {
		if !skip[p] && !seen[p] {
			cand = append(cand, p)
			seen[p] = true
		}
	}
	return sample(g, cand, k)
}

// quota splits n items over levels as evenly as possible, the remainder
// going to the lowest levels.
func quota(n, levels int) []int {
	out := make([]int, levels)
	for i := range out {
		out[i] = n / levels
		if i < n%levels {
			out[i]++
		}
	}
	return out
}

// takeByLevel draws quota(n, len(byLevel)) items at random from each
// level's candidates (byLevel[0] is level 1) and returns them level by level.
func takeByLevel(g *gen, byLevel [][]Item, n int) ([]Item, error) {
	return takeQuotas(g, byLevel, quota(n, len(byLevel)))
}

// takeQuotas draws q[i] items at random from level i+1's candidates and
// returns them level by level.
func takeQuotas(g *gen, byLevel [][]Item, q []int) ([]Item, error) {
	var out []Item
	for i, k := range q {
		if k > len(byLevel[i]) {
			return nil, fmt.Errorf("level %d has %d candidate items, %d wanted", i+1, len(byLevel[i]), k)
		}
		out = append(out, sample(g, byLevel[i], k)...)
	}
	return out, nil
}

// maxTries bounds the draws for one level of a generator that throws
// attempts away, so a word list too small for its quota is an error
// rather than an endless loop.
const maxTries = 10000

// leveled makes quota(n, 3) items per level, level by level. draw proposes
// the level's item number i (from 0): its context, gold answer and
// distractors, or ok false to throw the attempt away. An attempt whose
// context repeats an earlier item's is thrown away too, and so is one that
// would let choice length give answers away (see lengthTally); a kept one
// gets its choices shuffled.
func (g *gen) leveled(n int, draw func(level, i int) (ctx, gold string, wrong []string, ok bool)) ([]Item, error) {
	var out []Item
	seen := map[string]bool{}
	for li, q := range quota(n, 3) {
		level := li + 1
		var long, short lengthTally
		for made, tries := 0, 0; made < q; tries++ {
			if tries == maxTries {
				return nil, fmt.Errorf("level %d: %d distinct items of %d after %d draws", level, made, q, maxTries)
			}
			ctx, gold, wrong, ok := draw(level, made)
			if !ok || seen[ctx] {
				continue
			}
			lw, sw := lengthWins(gold, wrong)
			k := len(wrong) + 1
			if !long.fits(lw, k) || !short.fits(sw, k) {
				continue
			}
			long.add(lw, k)
			short.add(sw, k)
			seen[ctx] = true
			made++
			ch, gi := g.choices(gold, wrong...)
			out = append(out, Item{Context: ctx, Choices: ch, Gold: gi, Level: level})
		}
	}
	return out, nil
}

// lengthWins is how often "pick the longest choice" and "pick the shortest
// choice" would be right on an item, counting a tie among t choices as 1/t
// (gold positions are balanced, and ties go to the lowest index).
func lengthWins(gold string, wrong []string) (long, short float64) {
	lo, hi := len(gold), len(gold)
	for _, w := range wrong {
		lo, hi = min(lo, len(w)), max(hi, len(w))
	}
	nLo, nHi := 0, 0
	for _, c := range append([]string{gold}, wrong...) {
		if len(c) == lo {
			nLo++
		}
		if len(c) == hi {
			nHi++
		}
	}
	if len(gold) == hi {
		long = 1 / float64(nHi)
	}
	if len(gold) == lo {
		short = 1 / float64(nLo)
	}
	return long, short
}

// lengthTally keeps a length rule's expected right answers on a level's
// items at most one item above chance: an item that would push it further
// is drawn again, so the rule scores chance however the words fall.
type lengthTally struct{ wins, chance float64 }

func (t *lengthTally) fits(w float64, k int) bool { return t.wins+w <= t.chance+1/float64(k)+1 }
func (t *lengthTally) add(w float64, k int)       { t.wins += w; t.chance += 1 / float64(k) }

// miss is how far from chance the tally would stand after an item of k
// choices that the rule gets right w of the time; the draws that pick
// among candidates (fairDraw, balancedPair) minimise its sum.
func (t *lengthTally) miss(w float64, k int) float64 {
	return math.Abs(t.wins + w - t.chance - 1/float64(k))
}

// fairDraws is how many random draws fairDraw compares.
const fairDraws = 8

// fairDraw completes fixed with k distractors from pool (none of them
// excluded): of fairDraws random draws, the one that keeps the level's
// length tallies closest to chance, which it then records.
func (g *gen) fairDraw(gold string, fixed, pool []string, k int, exclude []string, long, short *lengthTally) []string {
	var best []string
	var bw [2]float64
	bestCost := math.Inf(1)
	for range fairDraws {
		wrong := append(append([]string(nil), fixed...), others(g, pool, k, exclude...)...)
		lw, sw := lengthWins(gold, wrong)
		cost := long.miss(lw, len(wrong)+1) + short.miss(sw, len(wrong)+1)
		if cost < bestCost {
			best, bw, bestCost = wrong, [2]float64{lw, sw}, cost
		}
	}
	long.add(bw[0], len(best)+1)
	short.add(bw[1], len(best)+1)
	return best
}

// balanced is n positions in [0, k) in random order, each position used
// n/k times and the remainder spread over distinct positions: a schedule
// that puts an item's cue (the gold mentioned first, say) on exactly its
// share of the items.
func (g *gen) balanced(n, k int) []int {
	out := make([]int, 0, n)
	for len(out)+k <= n {
		for p := range k {
			out = append(out, p)
		}
	}
	out = append(out, g.perm(k)[:n-len(out)]...)
	shuffle(g, out)
	return out
}

// dedupe drops items whose context repeats an earlier one.
func dedupe(items []Item) []Item {
	seen := map[string]bool{}
	var out []Item
	for _, it := range items {
		if seen[it.Context] {
			continue
		}
		seen[it.Context] = true
		out = append(out, it)
	}
	return out
}

// person is a named character with the pronouns templates need.
type person struct {
	Name             string
	Subj, Obj, Poss  string // he, him, his
	SubjCap, PossCap string // He, His
}

func mkPerson(name, subj, obj, poss string) person {
	return person{Name: name, Subj: subj, Obj: obj, Poss: poss,
		SubjCap: strings.ToUpper(subj[:1]) + subj[1:], PossCap: strings.ToUpper(poss[:1]) + poss[1:]}
}

// people are the names stories and passages draw from.
var people = func() []person {
	var out []person
	for _, n := range []string{"Anna", "Carla", "Emma", "Grace", "Iris", "Lena", "Mia", "Nora", "Priya", "Zoe", "Maya", "Ruth"} {
		out = append(out, mkPerson(n, "she", "her", "her"))
	}
	for _, n := range []string{"Ben", "David", "Felix", "Hugo", "Jack", "Leo", "Omar", "Ravi", "Sam", "Tom", "Owen", "Luis"} {
		out = append(out, mkPerson(n, "he", "him", "his"))
	}
	return out
}()

// fill replaces {Name}, {he}, {He}, {him}, {his} and {His} with p's forms.
func (p person) fill(s string) string {
	return strings.NewReplacer("{Name}", p.Name, "{he}", p.Subj, "{He}", p.SubjCap,
		"{him}", p.Obj, "{his}", p.Poss, "{His}", p.PossCap).Replace(s)
}

// article prefixes "a" or "an" by the word's first letter, which is right
// for every word the generators use it with.
func article(w string) string {
	if strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// contrastPair is a contrast pair: two items of one group whose contexts
// want opposite answers, a for ctxA and b for ctxB, with the same two
// choices in the same random order. The golds then sit at both positions
// of every pair, so a preference for a position, like one for a choice,
// gets exactly one member right and the pair wrong.
func (g *gen) contrastPair(group string, level int, ctxA, ctxB, a, b string) []Item {
	c, ga := g.choices(a, b)
	return []Item{
		{Context: ctxA, Choices: c, Gold: ga, Group: group, Level: level},
		{Context: ctxB, Choices: append([]string(nil), c...), Gold: 1 - ga, Group: group, Level: level},
	}
}

// balanceGold moves the gold of each generated item (by swapping it with
// the choice in its place) so that, per level and number of choices, the
// gold sits at every position as evenly as possible, the hand-written
// items' positions counted too. A fixed-position guess then scores chance,
// and so does any rule whose ties go to the lowest index.
func balanceGold(g *gen, items, hand []Item) {
	type key struct{ level, k int }
	counts := map[key][]int{}
	tally := func(it Item) []int {
		k := key{it.Level, len(it.Choices)}
		if counts[k] == nil {
			counts[k] = make([]int, len(it.Choices))
		}
		return counts[k]
	}
	for _, it := range hand {
		// A gold out of range is reported by validation, after this.
		if it.Gold >= 0 && it.Gold < len(it.Choices) {
			tally(it)[it.Gold]++
		}
	}
	for _, i := range g.perm(len(items)) {
		it := &items[i]
		c := tally(*it)
		var least []int
		for p, n := range c {
			switch {
			case len(least) == 0 || n < c[least[0]]:
				least = []int{p}
			case n == c[least[0]]:
				least = append(least, p)
			}
		}
		to := pick(g, least)
		it.Choices[it.Gold], it.Choices[to] = it.Choices[to], it.Choices[it.Gold]
		it.Gold = to
		c[to]++
	}
}
