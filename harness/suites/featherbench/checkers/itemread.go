package checkers

import (
	"fmt"
	"math"
	"regexp"
	"strings"
)

// How itemised_total reads a plan's amounts the way a reader adds them up:
// a sentence of prose lists several items, one per clause; "€7 each, so
// €21" is one item of €21; "Day 1: €152" after the day's items is their
// subtotal, not another €152; "£12 + £38 + £24 = £74" restates the items
// and must add up; and "within your €450" is the budget, not spend.

// splitOutside splits s after each rune at which cut returns a cut length
// (> 0), but only outside parentheses and brackets, so "(~€7 each; tram 28
// included)" stays with its item. Empty parts are dropped.
func splitOutside(s string, cut func(s string, i int) int) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
			continue
		case ')', ']', '}':
			if depth > 0 {
				depth--
			}
			continue
		}
		if depth > 0 {
			continue
		}
		if n := cut(s, i); n > 0 {
			if part := strings.TrimSpace(s[start:i]); part != "" {
				out = append(out, part)
			}
			start, i = i+n, i+n-1
		}
	}
	if part := strings.TrimSpace(s[start:]); part != "" {
		out = append(out, part)
	}
	return out
}

// itemSentences splits a line into sentences (the ends sentenceAround
// uses) outside parentheses; the end punctuation stays with its sentence.
func itemSentences(s string) []string {
	return splitOutside(s, func(s string, i int) int {
		if end := sentenceEnd(s, i); end > 0 {
			return end - i // cut after the punctuation: keep it in the part
		}
		return 0
	})
}

// clauseSeps are where a sentence of prose moves on to its next item.
var clauseSeps = []string{", ", " — ", " · ", " • "}

// itemClauses splits a sentence into its clauses, outside parentheses.
func itemClauses(sentence string) []string {
	return splitOutside(sentence, func(s string, i int) int {
		for _, sep := range clauseSeps {
			if strings.HasPrefix(s[i:], sep) {
				return len(sep)
			}
		}
		return 0
	})
}

// resultMarkRE is where a text states what the amounts before it come to:
// "adults €25, child €15 = €65", "… · Dinner €45 → €152".
var resultMarkRE = regexp.MustCompile(`=|→|->|⇒`)

// rateAfterRE follows an amount that is a price per person, night or
// piece ("€7 each", "€15 per adult", "£11 a head"); rateBeforeRE comes
// before one ("adults €15", "child €7.50"); factorBefore and factorAfter
// mark an amount that is multiplied ("3 nights × €120", "€120 × 3").
var (
	rateAfterRE  = regexp.MustCompile(`(?i)^\s*(?:each|apiece|pp\b|a (?:head|person|pop)\b|per \w+|a (?:night|day|adult|child|kid|ticket)\b|/\s*(?:person|adult|child|night|day|head)\b|for (?:a|an|each|one|every) (?:child|adult|person|kid|ticket|night|day)\b)`)
	rateBeforeRE = regexp.MustCompile(`(?i)\b(?:adults?|child(?:ren)?|kids?|under-?\d+s?|seniors?|students?|teens?|infants?|per (?:adult|child|person|head))\s*:?\s*[~≈]?\s*(?:about|around|approx\.?)?\s*$`)
	factorBefore = regexp.MustCompile(`[×x*]\s*$`)
	factorAfter  = regexp.MustCompile(`^\s*[×x*]\s*\d`)
)

// isRate reports whether the amount q of text is a unit price or a factor
// rather than what is spent.
func isRate(text string, q quantity) bool {
	before, after := near(text, q)
	return rateAfterRE.MatchString(after) || rateBeforeRE.MatchString(before) || factorBefore.MatchString(before) || factorAfter.MatchString(after)
}

// priced is one amount a plan spends, as read from a line or a clause.
type priced struct {
	text      string
	amount    float64
	cur       string
	operands  int  // how many '+'-joined amounts a worked sum adds up to it; 0 when none
	breakdown bool // it is the result of amounts written with it ("adults €25, child €15 = €65")
}

// countable is the amounts of text that count as spend: in the currency,
// not a percentage, not the budget restated. rates are those of them that
// are unit prices or factors.
func (c itemised) countable(text string) (spend, rates []quantity) {
	for _, q := range quantities(text) {
		if q.cur == "" || (c.cur != "" && q.cur != c.cur) || strings.HasSuffix(q.text, "%") || c.restatesBudget(text, q) {
			continue
		}
		if isRate(text, q) {
			rates = append(rates, q)
			continue
		}
		spend = append(spend, q)
	}
	return spend, rates
}

// all is every countable amount of text, rates included.
func (c itemised) all(text string) []quantity {
	spend, rates := c.countable(text)
	return append(spend, rates...)
}

// largest is the largest of qs (the top of a range), signed by a minus
// written before it ("Discount: -€10").
func largest(text string, qs []quantity) (best float64, cur string, ok bool) {
	for _, q := range qs {
		sign := 1.0
		if minusBefore(text, q.start) {
			sign = -1
		}
		for _, v := range q.vals {
			if v *= sign; !ok || v > best {
				best, cur, ok = v, q.cur, true
			}
		}
	}
	return best, cur, ok
}

// readPriced reads the amounts a text spends. A line (per "line") is one
// item: its largest amount, or the result of the breakdown it writes. A
// sentence (per "sentence") gives one item per clause, with unit prices
// dropped when the sentence states what they come to ("€7 each, so €21"),
// and a breakdown's result in place of its parts; a sentence of unit
// prices alone ("adults €10, child €5") is one item, its largest.
func (c itemised) readPriced(text string, perSentence bool) []priced {
	var out []priced
	add := func(t string, qs []quantity, p priced) {
		if a, cur, ok := largest(t, qs); ok {
			p.text, p.amount, p.cur = t, a, cur
			out = append(out, p)
		}
	}
	if loc := lastResultMark(text, c); loc >= 0 {
		p := priced{breakdown: len(c.all(text[:loc])) > 0}
		if ops, _, ok := workedSum(text); ok {
			p.operands, p.breakdown = len(ops), false
		}
		rest := text[loc:]
		if !perSentence {
			add(text, c.all(rest), p)
			return out
		}
		clauses := itemClauses(rest)
		add(clauses[0], c.all(clauses[0]), p)
		for _, cl := range clauses[1:] {
			out = append(out, c.readPriced(cl, true)...)
		}
		return out
	}
	spend, rates := c.countable(text)
	if !perSentence || len(spend) == 0 {
		add(text, append(spend, rates...), priced{})
		return out
	}
	for _, cl := range itemClauses(text) {
		clSpend, _ := c.countable(cl)
		add(cl, clSpend, priced{})
	}
	return out
}

// lastResultMark is the offset of the last result mark in text that has a
// countable amount after it, or -1.
func lastResultMark(text string, c itemised) int {
	qs := c.all(text)
	if len(qs) == 0 {
		return -1
	}
	last := qs[0].start
	for _, q := range qs {
		last = max(last, q.start)
	}
	locs := resultMarkRE.FindAllStringIndex(text, -1)
	for i := len(locs) - 1; i >= 0; i-- {
		if locs[i][1] <= last {
			return locs[i][0]
		}
	}
	return -1
}

// sumCueRE marks an amount as a sum of amounts before it: a worked sum, or
// words that say so.
var sumCueRE = regexp.MustCompile(`(?i)[+=→]|->|\b(?:so|comes? to|came to|in total|altogether|all in|overall|makes?|that['’]?s|sums? to|sub-?totals?|totals?|totall?ing|up to|spend)\b`)

// budgetRefRE is what comes right before an amount that restates the
// budget rather than spending it: "the £80", "within your €450", "push you
// past €450".
var budgetRefRE = regexp.MustCompile(`(?i)\b(?:the|your|our|of|under|within|inside|below|over|above|past|beyond|exceed(?:s|ing)?|from|budget(?:ed)?(?: of| at)?|limit(?: of)?)\s+(?:(?:whole|total|full|entire|overall)\s+)?$`)

// restatesBudget reports whether the amount q of text is the budget itself
// (equal to max, written as a reference to it) rather than an item.
func (c itemised) restatesBudget(text string, q quantity) bool {
	if !c.bound.hasMax || len(q.vals) != 1 || math.Abs(q.vals[0]-c.bound.max) > 1e-9 {
		return false
	}
	before, _ := near(text, q)
	return budgetRefRE.MatchString(before)
}

// nearBytes is how much text either side of an amount says what it is.
const nearBytes = 48

// near is the text just before and just after the amount q, so reading
// what an amount is costs the same however long its line.
func near(text string, q quantity) (before, after string) {
	return text[max(0, q.start-nearBytes):q.start], text[q.end:min(len(text), q.end+nearBytes)]
}

// plusRE is what stands between two operands of a worked sum.
var plusRE = regexp.MustCompile(`^\s*\+\s*$`)

// workedSum reads "a + b + c = d" in text: the operands (at least two,
// joined by '+') and the result, the first amount after '='. ok is false
// when text has no such sum.
func workedSum(text string) (operands []quantity, result quantity, ok bool) {
	eq := strings.IndexAny(text, "=")
	if eq < 0 {
		return nil, quantity{}, false
	}
	qs := quantities(text)
	var before []quantity
	for _, q := range qs {
		switch {
		case q.end <= eq:
			before = append(before, q)
		case q.start > eq && !ok:
			result, ok = q, true
		}
	}
	if !ok || len(before) < 2 {
		return nil, quantity{}, false
	}
	// The operands are the run of amounts joined by '+' that ends at '='.
	if strings.TrimSpace(text[before[len(before)-1].end:eq]) != "" {
		return nil, quantity{}, false
	}
	operands = []quantity{before[len(before)-1]}
	for j := len(before) - 2; j >= 0; j-- {
		if !plusRE.MatchString(text[before[j].end:before[j+1].start]) {
			break
		}
		operands = append([]quantity{before[j]}, operands...)
	}
	if len(operands) < 2 {
		return nil, quantity{}, false
	}
	return operands, result, true
}

// top is the amount a quantity counts for: the top of a range.
func top(q quantity) float64 { return q.vals[len(q.vals)-1] }

// checkWorkedSum returns a miss when text writes a sum whose arithmetic is
// wrong: "£12 + £38 + £24 = £64".
func checkWorkedSum(text string, l Line, money func(float64) string) string {
	ops, res, ok := workedSum(text)
	if !ok {
		return ""
	}
	sum := 0.0
	parts := make([]string, len(ops))
	for i, q := range ops {
		sum += top(q)
		parts[i] = strings.TrimSpace(q.text)
	}
	if math.Abs(sum-top(res)) <= 0.01+1e-9 {
		return ""
	}
	return fmt.Sprintf("line %d writes %s = %s, but that adds up to %s", l.N, strings.Join(parts, " + "), strings.TrimSpace(res.text), money(sum))
}

// subtotalTol is how far a subtotal may be from the sum of its items.
const subtotalTol = 0.5

// collapse reads an amount as a subtotal when it is the sum of the items
// just before it, and returns how many of the last items it stands for (0
// when it is an item itself). A worked sum stands for as many items as it
// adds up, when they come to its result; the result of a breakdown written
// with it is an item; any other amount is a subtotal of at least two items
// when its text says it sums ("so", "comes to", "up to") or names only its
// section ("Day 2: €100" under "## Day 2"), of at least three otherwise.
func collapse(items []item, p priced, heading string) int {
	switch {
	case p.operands > 0 && p.operands <= len(items) && math.Abs(sumLast(items, p.operands)-p.amount) <= subtotalTol:
		return p.operands
	case p.breakdown:
		return 0
	}
	minK := 3
	if p.operands > 0 || sumCueRE.MatchString(p.text) || echoes(p.text, heading) {
		minK = 2
	}
	s := 0.0
	for k := 1; k <= len(items); k++ {
		s += items[len(items)-k].amount
		if k >= minK && math.Abs(s-p.amount) <= subtotalTol {
			return k
		}
	}
	return 0
}

func sumLast(items []item, k int) float64 {
	s := 0.0
	for _, it := range items[len(items)-k:] {
		s += it.amount
	}
	return s
}

// wordRE finds the words of a text, numbers included.
var wordRE = regexp.MustCompile(`[\pL\pN]+`)

// echoes reports whether every word of text outside its amounts is a word
// of heading: "Day 2: €100" under "Day 2 — Belém" names its section, as a
// subtotal does, where "Dinner: €45" names an item.
func echoes(text, heading string) bool {
	if heading == "" {
		return false
	}
	in := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(heading), -1) {
		in[w] = true
	}
	rest, last := "", 0
	for _, q := range quantities(text) {
		rest += text[last:q.start] + " "
		last = q.end
	}
	rest += text[last:]
	words := wordRE.FindAllString(strings.ToLower(rest), -1)
	for _, w := range words {
		if !in[w] {
			return false
		}
	}
	return len(words) > 0
}
