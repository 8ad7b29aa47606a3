package checkers

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dlclark/regexp2"
)

func init() { Register("itemised_total", compileItemisedTotal) }

// DefaultItemExclude is the pattern for lines that state money without
// spending it (a budget, what is left, a subtotal), which itemised_total
// leaves out of the items unless "exclude" says otherwise.
const DefaultItemExclude = `(?i)\b(?:sub-?totals?|totals?|budget|remaining|left ?over|to spare|savings?|balance|headroom)\b`

// DefaultTotalLabel is the label of the stated total.
const DefaultTotalLabel = `(?i)\btotal\b`

// itemised_total: the amounts on an answer's item lines add up to within
// a budget, and agree with the total it states. A plan whose "Total" line
// says €1,150 but whose items come to €1,310 fails on the items.
func compileItemisedTotal(s *Spec) (Func, error) {
	var cur, totalSrc, excludeSrc string
	var totalRequired bool
	per := "line"
	absTol, relTol := 1.0, 0.05
	b := readItemBound(s)
	if s.Decode("currency", &cur) {
		cur = canonCur(cur)
		if _, ok := map[string]bool{"£": true, "€": true, "$": true, "¥": true, "₹": true}[cur]; !ok {
			s.Errorf("currency", `must be one of £ € $ ¥ ₹ (or GBP, EUR, USD, JPY, INR), not %q`, cur)
		}
	}
	totalSrc = DefaultTotalLabel
	s.Decode("total", &totalSrc)
	excludeSrc = DefaultItemExclude
	s.Decode("exclude", &excludeSrc)
	s.Decode("abs_tol", &absTol)
	s.Decode("rel_tol", &relTol)
	s.Decode("total_required", &totalRequired)
	if s.Decode("per", &per) && per != "line" && per != "sentence" {
		s.Errorf("per", `must be "line" (the default: one item per line) or "sentence" (one per sentence, for prose plans), not %q`, per)
	}
	sc := readScopeAs(s, false, "items")
	if s.Err() != nil {
		return nil, s.Err()
	}
	if !b.hasMax && !b.hasMin && !totalRequired {
		return nil, s.Errorf("", `set "max" (the budget), "min", or "total_required": true, e.g. {"type": "itemised_total", "currency": "€", "max": 1200}`)
	}
	if err := negativeTol(s, absTol, relTol); err != nil {
		return nil, err
	}
	total, err := CompilePython(totalSrc)
	if err != nil {
		return nil, s.Errorf("total", "invalid regex: %v", err)
	}
	var exclude *regexp2.Regexp
	if excludeSrc != "" {
		if exclude, err = CompilePython(excludeSrc); err != nil {
			return nil, s.Errorf("exclude", `invalid regex: %v (use "" to exclude nothing)`, err)
		}
	}
	c := itemised{perSentence: per == "sentence", cur: cur, total: total, totalSrc: totalSrc, exclude: exclude, bound: b, absTol: absTol, relTol: relTol, totalRequired: totalRequired}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		return c.check(d)
	}, nil
}

// readItemBound reads min and max: the budget the items must keep to.
func readItemBound(s *Spec) bound {
	var b bound
	b.hasMin = s.Decode("min", &b.min)
	b.hasMax = s.Decode("max", &b.max)
	if b.hasMin && b.hasMax && b.min > b.max {
		s.Errorf("min", "is %s, above max %s; swap them", fmtNum(b.min), fmtNum(b.max))
	}
	return b
}

type itemised struct {
	perSentence   bool
	cur           string
	total         *regexp2.Regexp
	totalSrc      string
	exclude       *regexp2.Regexp
	bound         bound
	absTol        float64
	relTol        float64
	totalRequired bool
}

type item struct {
	line   Line
	amount float64
	cur    string
	of     int // the number of items this subtotal stands for; 0 for an item
}

func (c itemised) check(d *scoped) (bool, string, error) {
	stated, statedLine, amountLine, err := c.statedTotal(d)
	if err != nil {
		return false, "", err
	}
	var items []item
	var arithmetic []string
	heading := "" // the heading or label line the lines below belong to
	for _, i := range d.idx {
		l := d.all[i]
		if l.Heading > 0 || l.Label {
			heading = l.Text
		}
		if l.Code || l.Drop || l.Header {
			continue
		}
		if miss := checkWorkedSum(l.Text, l, func(v float64) string { return fmtMoney(c.cur, v) }); miss != "" {
			arithmetic = append(arithmetic, miss)
		}
		if l.N == amountLine {
			continue
		}
		parts := []string{l.Text}
		if c.perSentence {
			parts = itemSentences(l.Text)
		}
		for _, part := range parts {
			skip, err := c.notAnItem(part)
			if err != nil {
				return false, "", err
			}
			if skip {
				continue
			}
			for _, p := range c.readPriced(part, c.perSentence) {
				if p.amount == 0 {
					continue // free
				}
				if k := collapse(items, p, heading); k > 0 {
					of := 0
					for _, it := range items[len(items)-k:] {
						of += max(it.of, 1)
					}
					items = append(items[:len(items)-k], item{line: l, amount: p.amount, cur: p.cur, of: of})
					continue
				}
				items = append(items, item{line: l, amount: p.amount, cur: p.cur})
			}
		}
	}
	sum := 0.0
	for _, it := range items {
		sum += it.amount
	}
	cur := c.cur
	if cur == "" && len(items) > 0 {
		cur = items[0].cur
	}
	money := func(v float64) string { return fmtMoney(cur, v) }
	if len(items) == 0 {
		what := "an amount"
		if c.cur != "" {
			what = "a " + c.cur + " amount"
		}
		return false, d.withNote("no item lines with " + what), nil
	}
	var parts []string
	misses := arithmetic
	parts = append(parts, fmt.Sprintf("items add up to %s (%s)", money(sum), listItems(items, money)))
	if statedLine != nil {
		parts = append(parts, fmt.Sprintf("stated total %s on line %d", money(stated), statedLine.N))
	} else if c.totalRequired {
		misses = append(misses, "no stated total (a line matching "+quoteRE(c.totalSrc)+" with an amount)")
	}
	if c.bound.hasMax || c.bound.hasMin {
		if !c.bound.ok(sum) {
			over := sum - c.bound.max
			if c.bound.hasMin && sum < c.bound.min {
				misses = append(misses, fmt.Sprintf("the items are %s under the minimum of %s", money(c.bound.min-sum), money(c.bound.min)))
			} else {
				misses = append(misses, fmt.Sprintf("the items are %s over the maximum of %s", money(over), money(c.bound.max)))
			}
		}
		if statedLine != nil && !c.bound.ok(stated) {
			misses = append(misses, "the stated total is not "+c.bound.format(money))
		}
	}
	if statedLine != nil {
		tol := math.Max(c.absTol, c.relTol*math.Abs(sum))
		if diff := stated - sum; math.Abs(diff) > tol+1e-9 {
			dir := "above"
			if diff < 0 {
				dir = "below"
			}
			misses = append(misses, fmt.Sprintf("the stated total is %s %s the items' sum (tolerance %s)", money(math.Abs(diff)), dir, money(tol)))
		}
	}
	if len(misses) > 0 {
		return false, d.withNote(strings.Join(parts, "; ") + ": " + strings.Join(misses, "; ")), nil
	}
	if c.bound.hasMax || c.bound.hasMin {
		parts = append(parts, c.bound.format(money))
	}
	return true, d.withNote(strings.Join(parts, "; ")), nil
}

// notAnItem reports whether a line states a total or other money not spent.
func (c itemised) notAnItem(text string) (bool, error) {
	for _, re := range []*regexp2.Regexp{c.total, c.exclude} {
		if re == nil {
			continue
		}
		if ok, err := re.MatchString(text); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// amount is the first amount of a text that states a total: its largest
// countable amount, so "€25–35" counts €35.
func (c itemised) amount(text string) (float64, string, bool) {
	return largest(text, c.all(text))
}

// minusBefore reports whether a minus sign stands right before text[i]
// and after a space, a colon or the start ("-€10", "Discount: -£5"), not
// inside a range ("€20-€30") or a word.
func minusBefore(text string, i int) bool {
	if i == 0 || text[i-1] != '-' {
		return false
	}
	return i == 1 || text[i-2] == ' ' || text[i-2] == ':' || text[i-2] == '('
}

// statedTotal reads the last line in the whole answer that matches the
// total label and holds an amount: the first amount after the label (the
// top of a range), or on the next line when the label ends its line
// (amountLine is the line the amount came from; 0 when none was found).
func (c itemised) statedTotal(d *scoped) (float64, *Line, int, error) {
	for i := len(d.all) - 1; i >= 0; i-- {
		l := d.all[i]
		if l.Code || l.Drop {
			continue
		}
		spans, err := matchSpans(c.total, l.Text)
		if err != nil {
			return 0, nil, 0, err
		}
		if len(spans) == 0 {
			continue
		}
		after := l.Text[spans[len(spans)-1][1]:]
		if v, _, ok := c.amount(firstAmountText(after, c.cur)); ok {
			return v, &d.all[i], l.N, nil
		}
		if v, _, ok := c.amount(l.Text); ok {
			return v, &d.all[i], l.N, nil
		}
		if endsLabel(after) {
			for j := i + 1; j < len(d.all); j++ {
				if n := d.all[j]; !n.Drop && strings.TrimSpace(n.Text) != "" {
					if v, _, ok := c.amount(firstAmountText(n.Text, c.cur)); ok {
						return v, &d.all[i], n.N, nil
					}
					break
				}
			}
		}
	}
	return 0, nil, 0, nil
}

// firstAmountText is the text of the first amount in s (in cur when set).
func firstAmountText(s, cur string) string {
	for _, q := range quantities(s) {
		if q.cur != "" && (cur == "" || q.cur == cur) {
			return q.text
		}
	}
	return ""
}

func listItems(items []item, money func(float64) string) string {
	parts := make([]string, 0, 9)
	for i, it := range items {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-8))
			break
		}
		part := fmt.Sprintf("line %d %s", it.line.N, money(it.amount))
		if it.of > 0 {
			part += fmt.Sprintf(" (subtotal of %d)", it.of)
		}
		parts = append(parts, part)
	}
	noun := "lines"
	if len(items) == 1 {
		noun = "line"
	}
	return fmt.Sprintf("%d %s: %s", len(items), noun, strings.Join(parts, ", "))
}

// fmtMoney writes an amount as people read it: "€1,310", "£80.90".
func fmtMoney(cur string, v float64) string {
	neg := v < 0
	v = math.Abs(v)
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if strings.HasSuffix(s, ".00") {
		s = s[:len(s)-3]
	}
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := cur + b.String()
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}
