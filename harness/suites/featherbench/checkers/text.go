package checkers

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

func init() {
	Register("regex", compileRegex)
	Register("contains", func(s *Spec) (Func, error) { return compileContains(s, true) })
	Register("not_contains", func(s *Spec) (Func, error) { return compileContains(s, false) })
}

// regex: pattern (Python syntax, DOTALL) matches somewhere in the scoped
// response.
func compileRegex(s *Spec) (Func, error) {
	var pattern string
	s.Require("pattern", &pattern, `a regular expression in Python syntax, e.g. "(?i)notice period:\\s*2 months"`)
	sc := readScope(s, true)
	if s.Err() != nil {
		return nil, s.Err()
	}
	re, err := CompilePython(pattern)
	if err != nil {
		return nil, s.Errorf("pattern", "invalid regex: %v", err)
	}
	trips := negativeLookaheads(pattern)
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		m, err := re.FindStringMatch(d.Text)
		if err != nil {
			return false, "", fmt.Errorf("regex %s: %w", quoteRE(pattern), err)
		}
		if m == nil {
			why, err := explainNoMatch(d, pattern, trips)
			if err != nil {
				return false, "", err
			}
			return false, d.withNote("no match for " + quoteRE(pattern) + why), nil
		}
		return true, d.withNote(fmt.Sprintf("matched %q", clip(m.String(), 80))), nil
	}, nil
}

// contains / not_contains: every value appears / no value appears in the
// scoped response, case-insensitively; whole_word requires the match not
// to touch a letter, digit or underscore on either side. not_contains may
// forgive a match by its sentence ("unless").
func compileContains(s *Spec, want bool) (Func, error) {
	var value string
	var values []string
	var wholeWord bool
	hasValue := s.Decode("value", &value)
	hasValues := s.Decode("values", &values)
	s.Decode("whole_word", &wholeWord)
	sc := readScope(s, true)
	var unless *unlessRule
	if !want {
		unless = readUnless(s)
	}
	if s.Err() != nil {
		return nil, s.Err()
	}
	switch {
	case hasValue && hasValues:
		return nil, s.Errorf("", `set "value" or "values", not both`)
	case hasValue:
		values = []string{value}
	case !hasValues:
		return nil, s.Errorf("", `missing "value" (one string) or "values" (a list of strings)`)
	case len(values) == 0:
		return nil, s.Errorf("values", "is empty; list at least one string")
	}
	for i, v := range values {
		if strings.TrimSpace(v) == "" {
			field := "value"
			if hasValues {
				field = fmt.Sprintf("values[%d]", i)
			}
			return nil, s.Errorf(field, "is empty; an empty string is in every response")
		}
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		if want {
			var missing []string
			for _, v := range values {
				if Find(d.Text, v, wholeWord) < 0 {
					missing = append(missing, fmt.Sprintf("%q", v))
				}
			}
			if len(missing) > 0 {
				return false, d.withNote("missing " + strings.Join(missing, ", ")), nil
			}
			return true, d.withNote("found " + quoteAll(values)), nil
		}
		var found, forgiven []string
		for _, v := range values {
			for _, at := range FindAll(d.Text, v, wholeWord) {
				n := matchLen(d.Text, at, v)
				ok, cue, err := unless.forgives(d, at, n)
				if err != nil {
					return false, "", err
				}
				if !ok {
					found = append(found, fmt.Sprintf("%q %s", d.Text[at:at+n], d.where(at, n)))
					break
				}
				if len(forgiven) < 3 {
					forgiven = append(forgiven, forgivenNote(d.Text[at:at+n], d.where(at, n), cue))
				}
			}
		}
		if len(found) > 0 {
			return false, d.withNote("found forbidden " + strings.Join(found, ", ")), nil
		}
		detail := "none of " + quoteAll(values) + " found"
		if len(forgiven) > 0 {
			detail += ", except where forgiven by " + unless.String() + ": " + strings.Join(forgiven, ", ")
		}
		return true, d.withNote(detail), nil
	}, nil
}

// Find returns the byte offset in text of the first case-insensitive
// occurrence of needle, or -1. With wholeWord the occurrence must not touch
// a letter, digit or underscore: "kill" is not found in "skill", but "meat"
// is found in "meat-free".
func Find(text, needle string, wholeWord bool) int {
	if at := findN(text, needle, wholeWord, 1); len(at) > 0 {
		return at[0]
	}
	return -1
}

// FindAll returns the byte offsets in text of every case-insensitive,
// non-overlapping occurrence of needle (see Find).
func FindAll(text, needle string, wholeWord bool) []int {
	return findN(text, needle, wholeWord, -1)
}

// findN is FindAll stopping after limit occurrences (every one when limit
// is negative), so Find, which wants one, does not scan the rest of text.
func findN(text, needle string, wholeWord bool, limit int) []int {
	n := utf8.RuneCountInString(needle)
	if n == 0 {
		return nil
	}
	if isASCII(needle) {
		return findAllASCII(text, needle, wholeWord, limit)
	}
	var out []int
	for i := 0; i < len(text) && len(out) != limit; {
		end := i
		for k := 0; k < n && end < len(text); k++ {
			_, size := utf8.DecodeRuneInString(text[end:])
			end += size
		}
		if strings.EqualFold(text[i:end], needle) && (!wholeWord || (!wordBefore(text, i) && !wordAfter(text, end))) {
			out = append(out, i)
			i = end
			continue
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	return out
}

// findAllASCII is findN for an ASCII needle: lower-casing only ASCII
// letters keeps every byte offset, so a plain index search does.
func findAllASCII(text, needle string, wholeWord bool, limit int) []int {
	h, n := lowerASCII(text), lowerASCII(needle)
	var out []int
	for off := 0; off < len(h) && len(out) != limit; {
		i := strings.Index(h[off:], n)
		if i < 0 {
			break
		}
		i += off
		if !wholeWord || (!wordBefore(text, i) && !wordAfter(text, i+len(n))) {
			out = append(out, i)
			off = i + len(n)
			continue
		}
		off = i + 1
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// matchLen is the byte length of the occurrence of needle at text[at:].
func matchLen(text string, at int, needle string) int {
	end := at
	for k := utf8.RuneCountInString(needle); k > 0 && end < len(text); k-- {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	return end - at
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func wordBefore(s string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && isWord(r)
}

func wordAfter(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return i < len(s) && isWord(r)
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// excerptRunes is how much context a detail shows either side of a match.
const excerptRunes = 30

// excerpt is a short excerpt of text around [at, at+n), for details.
func excerpt(text string, at, n int) string {
	from, to := at, min(len(text), at+n)
	for k := 0; k < excerptRunes && from > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	for k := 0; k < excerptRunes && to < len(text); k++ {
		_, size := utf8.DecodeRuneInString(text[to:])
		to += size
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return "in \"" + s + "\""
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func quoteRE(p string) string { return "/" + p + "/" }

func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
