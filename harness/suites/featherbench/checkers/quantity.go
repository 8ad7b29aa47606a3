package checkers

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// quantity is a number, or a range of two, as people write one in prose:
// an optional currency (£20, 20€, 20 EUR), thousands separators (1,250),
// a unit suffix (80p and 5¢ are hundredths of £ and $; 15%), and ranges
// ("25-30", "25–30" once plain, "25 to 30", "£20-£30").
type quantity struct {
	vals       []float64 // one value, or both ends of a range
	cur        string    // "£", "€", "$", "¥" or "₹"; "" when none is written
	text       string    // as written
	start, end int       // byte offsets in the text searched
}

const (
	qtyCur = `(?:[£€$¥₹]|\b(?:GBP|EUR|USD|JPY|INR)\b)`
	qtyNum = decimalPattern
	// Suffixes: pence and cents attached to the number, %, a currency
	// symbol attached or a currency code after a space.
	qtySuf = `(?:p\b|¢|%|[£€$¥₹]|[ ]?\b(?:GBP|EUR|USD|JPY|INR)\b)`
)

var (
	qtyRE   = regexp.MustCompile(`(?i)(` + qtyCur + `)?[ ]?(` + qtyNum + `)(` + qtySuf + `)?`)
	rangeRE = regexp.MustCompile(`(?i)^(?:[ \t]*-[ \t]*|[ \t]+to[ \t]+)(` + qtyCur + `)?[ ]?(` + qtyNum + `)(` + qtySuf + `)?`)
)

var curCodes = map[string]string{"GBP": "£", "EUR": "€", "USD": "$", "JPY": "¥", "INR": "₹"}

// canonCur maps a currency code or symbol to its symbol.
func canonCur(c string) string {
	c = strings.TrimSpace(c)
	if sym, ok := curCodes[strings.ToUpper(c)]; ok {
		return sym
	}
	return c
}

// quantities returns the quantities in s, in order. A number glued to a
// letter on its left ("A4", "COVID-19"'s "19" is kept, but "v2" is not a
// price) still counts: labels decide what is read, not the number's shape.
func quantities(s string) []quantity {
	var out []quantity
	for pos := 0; pos < len(s); {
		loc := qtyRE.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		q, ok := oneQuantity(s, pos, loc)
		if !ok {
			pos += loc[1]
			continue
		}
		// A range: "-" or "to" and a second number. A bare first number
		// and a priced second ("Day 1 - €120") are two things, not a range.
		if r := rangeRE.FindStringSubmatchIndex(s[q.end:]); r != nil {
			second, ok := oneQuantity(s, q.end, r)
			if ok && (q.cur != "" || second.cur == "") {
				if q.cur == "" {
					q.cur = second.cur
				}
				q.vals = append(q.vals, second.vals[0])
				q.end = second.end
			}
		}
		q.text = s[q.start:q.end]
		out = append(out, q)
		pos = q.end
	}
	return out
}

// oneQuantity reads a single number from a submatch index of qtyRE or
// rangeRE applied at s[base:].
func oneQuantity(s string, base int, loc []int) (quantity, bool) {
	get := func(g int) string {
		if loc[2*g] < 0 {
			return ""
		}
		return s[base+loc[2*g] : base+loc[2*g+1]]
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(get(2), ",", ""), 64)
	if err != nil || math.IsInf(v, 0) {
		return quantity{}, false
	}
	q := quantity{vals: []float64{v}, cur: canonCur(get(1)), start: base + loc[0], end: base + loc[1]}
	switch suf := strings.TrimSpace(get(3)); strings.ToLower(suf) {
	case "":
	case "p":
		q.vals[0], q.cur = v/100, "£"
	case "¢":
		q.vals[0], q.cur = v/100, "$"
	case "%":
	default:
		if q.cur == "" {
			q.cur = canonCur(suf)
		}
	}
	if loc[2] < 0 && strings.HasPrefix(s[q.start:], " ") {
		q.start++ // the optional space before the number, after no currency
	}
	return q, true
}

// describeQty writes a quantity's values: "25", "25-30".
func describeQty(q quantity) string {
	parts := make([]string, len(q.vals))
	for i, v := range q.vals {
		parts[i] = fmtNum(v)
	}
	return strings.Join(parts, "-")
}
