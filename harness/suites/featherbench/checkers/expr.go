package checkers

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// expr is a small arithmetic expression over named values: numbers,
// names, + - * /, unary minus and parentheses, with the usual precedence.
// computed reads the names from a pattern's named groups.
type expr interface {
	eval(vars map[string]float64) float64
}

type (
	exprNum float64
	exprVar string
	exprNeg struct{ x expr }
	exprBin struct {
		op   byte
		l, r expr
	}
)

func (n exprNum) eval(map[string]float64) float64      { return float64(n) }
func (v exprVar) eval(vars map[string]float64) float64 { return vars[string(v)] }
func (n exprNeg) eval(vars map[string]float64) float64 { return -n.x.eval(vars) }
func (b exprBin) eval(vars map[string]float64) float64 {
	l, r := b.l.eval(vars), b.r.eval(vars)
	switch b.op {
	case '+':
		return l + r
	case '-':
		return l - r
	case '*':
		return l * r
	}
	return l / r // a division by zero is ±Inf or NaN, which no bound accepts
}

// exprParser is a recursive-descent parser over the expression's text.
type exprParser struct {
	src   string
	pos   int
	names []string // the names used, in order of first use
}

// parseExpr parses src; the error says what was expected and where.
func parseExpr(src string) (expr, []string, error) {
	p := &exprParser{src: src}
	e, err := p.sum()
	if err != nil {
		return nil, nil, err
	}
	if p.skip(); p.pos < len(p.src) {
		return nil, nil, fmt.Errorf("unexpected %q at character %d; an expression is numbers, names, + - * / and parentheses, e.g. \"pace * 42.195\"", p.src[p.pos:p.pos+1], p.pos+1)
	}
	return e, p.names, nil
}

func (p *exprParser) skip() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t') {
		p.pos++
	}
}

func (p *exprParser) sum() (expr, error) {
	l, err := p.product()
	for err == nil {
		p.skip()
		if p.pos >= len(p.src) || (p.src[p.pos] != '+' && p.src[p.pos] != '-') {
			return l, nil
		}
		op := p.src[p.pos]
		p.pos++
		var r expr
		if r, err = p.product(); err == nil {
			l = exprBin{op, l, r}
		}
	}
	return nil, err
}

func (p *exprParser) product() (expr, error) {
	l, err := p.unary()
	for err == nil {
		p.skip()
		if p.pos >= len(p.src) || (p.src[p.pos] != '*' && p.src[p.pos] != '/') {
			return l, nil
		}
		op := p.src[p.pos]
		p.pos++
		var r expr
		if r, err = p.unary(); err == nil {
			l = exprBin{op, l, r}
		}
	}
	return nil, err
}

func (p *exprParser) unary() (expr, error) {
	p.skip()
	if p.pos < len(p.src) && p.src[p.pos] == '-' {
		p.pos++
		x, err := p.unary()
		return exprNeg{x}, err
	}
	return p.atom()
}

func (p *exprParser) atom() (expr, error) {
	p.skip()
	if p.pos >= len(p.src) {
		return nil, fmt.Errorf("ends where a number, a name or '(' was expected")
	}
	c := rune(p.src[p.pos])
	switch {
	case c == '(':
		p.pos++
		e, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.skip(); p.pos >= len(p.src) || p.src[p.pos] != ')' {
			return nil, fmt.Errorf("missing ')' at character %d", p.pos+1)
		}
		p.pos++
		return e, nil
	case unicode.IsDigit(c) || c == '.':
		start := p.pos
		for p.pos < len(p.src) && (unicode.IsDigit(rune(p.src[p.pos])) || p.src[p.pos] == '.') {
			p.pos++
		}
		v, err := strconv.ParseFloat(p.src[start:p.pos], 64)
		if err != nil {
			return nil, fmt.Errorf("%q at character %d is not a number", p.src[start:p.pos], start+1)
		}
		return exprNum(v), nil
	case c == '_' || unicode.IsLetter(c):
		start := p.pos
		for p.pos < len(p.src) && (p.src[p.pos] == '_' || unicode.IsLetter(rune(p.src[p.pos])) || unicode.IsDigit(rune(p.src[p.pos]))) {
			p.pos++
		}
		name := p.src[start:p.pos]
		if !containsString(p.names, name) {
			p.names = append(p.names, name)
		}
		return exprVar(name), nil
	}
	return nil, fmt.Errorf("unexpected %q at character %d; expected a number, a name or '('", string(c), p.pos+1)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clockValue reads a clock-style value, "5:17" or "3:45:02", in the unit
// of its first part: 5:17 is 5 + 17/60 (minutes, for a pace per km) and
// 3:45:02 is 3 + 45/60 + 2/3600 (hours). ok is false when s is not one.
func clockValue(s string) (float64, bool) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	v, scale := 0.0, 1.0
	for i, part := range parts {
		if part == "" || (i > 0 && len(part) < 2) {
			return 0, false
		}
		f, err := strconv.ParseFloat(part, 64)
		if err != nil || f < 0 || (i > 0 && f >= 60) {
			return 0, false
		}
		v += f / scale
		scale *= 60
	}
	return v, true
}
