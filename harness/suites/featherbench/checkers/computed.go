package checkers

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"

	"github.com/feather-eval/feather/internal/spelling"
)

func init() { Register("computed", compileComputed) }

// computed: a number that follows from other numbers in the answer is
// right. Each match of "pattern" (in the plain view) names its numbers with
// named groups, (?P<pace>…); "expr" computes a value from them, and the
// value must satisfy the bound. A group holding a range ("5:15–5:18") is
// computed at both ends, paired with the other groups' ends, so a target
// pace range is held to the goal at its slow end.
func compileComputed(s *Spec) (Func, error) {
	var pattern, exprSrc, which string
	required := true
	s.Require("pattern", &pattern, `a regular expression with named groups for the numbers, e.g. "(?i)target pace:\\s*(?P<pace>\\d+:\\d{2})\\s*/km"`)
	s.Require("expr", &exprSrc, `an expression over the pattern's named groups, e.g. "pace * 42.195 * 60"`)
	b := readBound(s, `{"type": "computed", "pattern": "…(?P<pace>…)…", "expr": "pace * 42.195 * 60", "max": 13499}`)
	which = "every"
	if s.Decode("which", &which) && which != "every" && which != "first" && which != "last" && which != "any" {
		s.Errorf("which", `must be "every" (the default: every match must pass), "first", "last" or "any", not %q`, which)
	}
	s.Decode("required", &required)
	sc := readScope(s, false)
	if s.Err() != nil {
		return nil, s.Err()
	}
	re, err := CompilePython(pattern)
	if err != nil {
		return nil, s.Errorf("pattern", "invalid regex: %v", err)
	}
	if ok, _ := re.MatchString(""); ok {
		return nil, s.Errorf("pattern", "matches empty text; write the words around the numbers it reads")
	}
	e, names, err := parseExpr(exprSrc)
	if err != nil {
		return nil, s.Errorf("expr", "%v", err)
	}
	if len(names) == 0 {
		return nil, s.Errorf("expr", `uses no name, so it reads nothing from the answer; name the pattern's groups, e.g. "pace * 42.195"`)
	}
	groups := namedGroups(re)
	for _, n := range names {
		if !containsString(groups, n) {
			msg := fmt.Sprintf("uses %q, which is not a named group of the pattern", n)
			if near, ok := spelling.Near(n, groups); ok {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			if len(groups) == 0 {
				return nil, s.Errorf("expr", "%s; the pattern has no named groups: write them as (?P<name>…)", msg)
			}
			return nil, s.Errorf("expr", "%s; its groups are %s", msg, strings.Join(groups, ", "))
		}
	}
	c := computed{re: re, e: e, names: names, src: exprSrc, b: b, which: which, required: required}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		return c.check(d)
	}, nil
}

// namedGroups lists a compiled pattern's named groups (regexp2 numbers the
// unnamed ones, which are left out).
func namedGroups(re *regexp2.Regexp) []string {
	var out []string
	for _, n := range re.GetGroupNames() {
		if n != "" && (n[0] < '0' || n[0] > '9') {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

type computed struct {
	re       *regexp2.Regexp
	e        expr
	names    []string
	src      string
	b        bound
	which    string
	required bool
}

// evaluation is the expression computed at one match.
type evaluation struct {
	read  []string  // "pace = 5:20" for each name
	vals  []float64 // the value, at each end of a range
	where string
}

func (v evaluation) String() string {
	vals := make([]string, len(v.vals))
	for i, x := range v.vals {
		vals[i] = fmtRound(x)
	}
	return fmt.Sprintf("%s gives %s %s", strings.Join(v.read, ", "), strings.Join(vals, " to "), v.where)
}

func (c computed) check(d *scoped) (bool, string, error) {
	var evals []evaluation
	unread := ""
	cur := runeCursor{s: d.Text}
	m, err := c.re.FindStringMatch(d.Text)
	for ; m != nil && err == nil; m, err = c.re.FindNextMatch(m) {
		ev, ok := c.evaluate(m)
		off := cur.byteAt(m.Index)
		n := cur.byteAt(m.Index+m.Length) - off
		if !ok {
			if unread == "" {
				unread = fmt.Sprintf(" (%q %s holds no number for every name)", clip(m.String(), 60), d.where(off, n))
			}
			continue
		}
		ev.where = d.where(off, n)
		evals = append(evals, ev)
	}
	if err != nil {
		return false, "", fmt.Errorf("pattern: %w", err)
	}
	if len(evals) == 0 {
		detail := "no match of the pattern to compute " + c.src + " from" + unread
		if !c.required {
			return true, d.withNote(detail + ", and none is required"), nil
		}
		return false, d.withNote(detail), nil
	}
	pass := func(ev evaluation) bool {
		for _, v := range ev.vals {
			if !c.b.ok(v) {
				return false
			}
		}
		return true
	}
	want := c.src + " " + c.b.format(fmtRound)
	switch c.which {
	case "first", "last":
		ev := evals[0]
		if c.which == "last" {
			ev = evals[len(evals)-1]
		}
		if !pass(ev) {
			return false, d.withNote(fmt.Sprintf("%s; want %s", ev, want)), nil
		}
		return true, d.withNote(fmt.Sprintf("%s, %s", ev, c.b.format(fmtRound))), nil
	case "any":
		for _, ev := range evals {
			if pass(ev) {
				return true, d.withNote(fmt.Sprintf("%s, %s", ev, c.b.format(fmtRound))), nil
			}
		}
		return false, d.withNote(fmt.Sprintf("no match gives %s: %s", want, evals[0])), nil
	}
	for _, ev := range evals {
		if !pass(ev) {
			return false, d.withNote(fmt.Sprintf("%s; want %s", ev, want)), nil
		}
	}
	return true, d.withNote(fmt.Sprintf("%d of %d matches give %s: %s", len(evals), len(evals), want, evals[0])), nil
}

// evaluate reads every name's group at a match and computes the
// expression at each end of the ranges read; ok is false when a group
// holds no number.
func (c computed) evaluate(m *regexp2.Match) (evaluation, bool) {
	var ev evaluation
	vals := map[string][]float64{}
	ends := 1
	for _, n := range c.names {
		g := m.GroupByName(n)
		if g == nil || len(g.Captures) == 0 {
			return ev, false
		}
		text := g.String()
		v := readValues(text)
		if len(v) == 0 {
			return ev, false
		}
		vals[n] = v
		ends = max(ends, len(v))
		ev.read = append(ev.read, fmt.Sprintf("%s = %s", n, strings.TrimSpace(text)))
	}
	for i := 0; i < ends; i++ {
		at := map[string]float64{}
		for n, v := range vals {
			at[n] = v[min(i, len(v)-1)]
		}
		ev.vals = append(ev.vals, c.e.eval(at))
	}
	return ev, true
}

// clockRE finds a clock-style value, "5:17", "5:19.9" or "3:45:02".
var clockRE = regexp.MustCompile(`\d{1,3}:\d{2}(?:\.\d+)?(?::\d{2}(?:\.\d+)?)?`)

// readValues reads a group's text: one or two clock values (a range), else
// the first number or range as quantities reads it ("£1,250", "25-30").
func readValues(text string) []float64 {
	if clocks := clockRE.FindAllString(text, 2); len(clocks) > 0 {
		var out []float64
		for _, c := range clocks {
			if v, ok := clockValue(c); ok {
				out = append(out, v)
			}
		}
		return out
	}
	if qs := quantities(text); len(qs) > 0 {
		return qs[0].vals
	}
	return nil
}

// fmtRound writes a computed value to at most 4 decimal places.
func fmtRound(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}
