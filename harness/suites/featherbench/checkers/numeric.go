package checkers

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

func init() { Register("numeric_close", compileNumericClose) }

// decimalPattern is an unsigned decimal number as people write one, with
// optional thousands separators (1,234.5): the digits both numberRE and
// quantity's qtyRE read.
const decimalPattern = `(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?`

// numberRE finds decimal numbers, with optional thousands separators
// (1,234.5) and exponent (6.02e23).
var numberRE = regexp.MustCompile(`[-+]?(?:` + decimalPattern + `|\.\d+)(?:[eE][-+]?\d+)?`)

// Numbers returns the numbers in text in order. A leading '-' or '+' is a
// sign only when it does not follow a letter or digit, so "COVID-19" is 19
// and "2026-07-04" is 2026, 7, 4; "−" (U+2212) is a minus sign.
func Numbers(text string) []float64 {
	var out []float64
	for _, sp := range numberSpans(text) {
		out = append(out, sp.val)
	}
	return out
}

// numberSpan is a number and where it was written: text[start:end].
type numberSpan struct {
	val        float64
	start, end int
}

func numberSpans(text string) []numberSpan {
	var out []numberSpan
	for _, loc := range numberRE.FindAllStringIndex(text, -1) {
		start := loc[0]
		s := text[start:loc[1]]
		if s[0] == '-' || s[0] == '+' {
			if r, _ := utf8.DecodeLastRuneInString(text[:start]); start > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
				s, start = s[1:], start+1
			}
		}
		neg := false
		if r, size := utf8.DecodeLastRuneInString(text[:start]); start > 0 && r == '\u2212' && s[0] != '-' && s[0] != '+' {
			if r2, _ := utf8.DecodeLastRuneInString(text[:start-size]); start-size == 0 || !(unicode.IsLetter(r2) || unicode.IsDigit(r2)) {
				neg, start = true, start-size
			}
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err == nil {
			if neg {
				f = -f
			}
			out = append(out, numberSpan{f, start, loc[1]})
		}
	}
	return out
}

// numeric_close: a number from the scoped response is within tolerance of
// value: |got - value| <= max(abs_tol, rel_tol * |value|) (both default to
// 0, an exact match). The number is the last one in the response; with
// pattern (Python syntax), it is the pattern's first capture group when it
// has one, else the first number after the pattern's first match.
func compileNumericClose(s *Spec) (Func, error) {
	var want, abs, rel float64
	var pattern string
	s.Require("value", &want, "the expected number, e.g. 1250.5")
	s.Decode("abs_tol", &abs)
	s.Decode("rel_tol", &rel)
	hasPattern := s.Decode("pattern", &pattern)
	sc := readScope(s, true)
	if s.Err() != nil {
		return nil, s.Err()
	}
	if err := negativeTol(s, abs, rel); err != nil {
		return nil, err
	}
	var re *regexp2.Regexp
	if hasPattern {
		var err error
		if re, err = CompilePython(pattern); err != nil {
			return nil, s.Errorf("pattern", "invalid regex: %v", err)
		}
	}
	tol := math.Max(abs, rel*math.Abs(want))
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		got, from, sp, err := extractNumber(d.Text, re, pattern)
		if err != nil {
			return false, "", err
		}
		if from == "" {
			return false, d.withNote("no number found" + where(re, pattern)), nil
		}
		diff := math.Abs(got - want)
		verdict := fmt.Sprintf("read %s (%s) %s; want %s ± %s, off by %s", fmtNum(got), from, d.where(sp.start, sp.end-sp.start), fmtNum(want), fmtComputed(tol), fmtComputed(diff))
		return diff <= tol, d.withNote(verdict), nil
	}, nil
}

func where(re *regexp2.Regexp, pattern string) string {
	if re == nil {
		return " in the response"
	}
	return " for " + quoteRE(pattern)
}

func extractNumber(text string, re *regexp2.Regexp, pattern string) (float64, string, numberSpan, error) {
	if re == nil {
		ns := numberSpans(text)
		if len(ns) == 0 {
			return 0, "", numberSpan{}, nil
		}
		return ns[len(ns)-1].val, "the last number", ns[len(ns)-1], nil
	}
	m, err := re.FindStringMatch(text)
	if err != nil {
		return 0, "", numberSpan{}, fmt.Errorf("pattern %s: %w", quoteRE(pattern), err)
	}
	if m == nil {
		return 0, "", numberSpan{}, nil
	}
	if groups := m.Groups(); len(groups) > 1 {
		g := groups[1]
		ns := numberSpans(g.String())
		if len(ns) == 0 {
			return 0, "", numberSpan{}, nil
		}
		base := runeOffset(text, g.Index)
		sp := numberSpan{ns[0].val, base + ns[0].start, base + ns[0].end}
		return sp.val, "group 1 of " + quoteRE(pattern), sp, nil
	}
	// Index counts runes; find the byte offset of the match's end.
	end := runeOffset(text, m.Index+m.Length)
	ns := numberSpans(text[end:])
	if len(ns) == 0 {
		return 0, "", numberSpan{}, nil
	}
	sp := numberSpan{ns[0].val, end + ns[0].start, end + ns[0].end}
	return sp.val, "the first number after " + quoteRE(pattern), sp, nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// fmtComputed writes a number the checker worked out (a difference, a
// relative tolerance) to 12 significant digits, so binary rounding
// (3.75 − 3.3 = 0.45000000000000018) does not show.
func fmtComputed(f float64) string { return strconv.FormatFloat(f, 'g', 12, 64) }
