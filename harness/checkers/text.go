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
	Register("max_words", compileMaxWords)
}

// regex: pattern (Python syntax, DOTALL) matches somewhere in the response.
func compileRegex(s *Spec) (Func, error) {
	var pattern string
	s.Require("pattern", &pattern, `a regular expression in Python syntax, e.g. "(?i)notice period:\\s*2 months"`)
	if s.Err() != nil {
		return nil, s.Err()
	}
	re, err := CompilePython(pattern)
	if err != nil {
		return nil, s.Errorf("pattern", "invalid regex: %v", err)
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		m, err := re.FindStringMatch(r.Text)
		if err != nil {
			return false, "", fmt.Errorf("regex %s: %w", quoteRE(pattern), err)
		}
		if m == nil {
			return false, "no match for " + quoteRE(pattern), nil
		}
		return true, fmt.Sprintf("matched %q", clip(m.String(), 80)), nil
	}, nil
}

// contains / not_contains: every value appears / no value appears,
// case-insensitively; whole_word requires the match not to touch a letter,
// digit or underscore on either side.
func compileContains(s *Spec, want bool) (Func, error) {
	var value string
	var values []string
	var wholeWord bool
	hasValue := s.Decode("value", &value)
	hasValues := s.Decode("values", &values)
	s.Decode("whole_word", &wholeWord)
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
		var found, missing []string
		for _, v := range values {
			if at := Find(r.Text, v, wholeWord); at >= 0 {
				found = append(found, fmt.Sprintf("%q (%s)", v, excerpt(r.Text, at, len(v))))
			} else {
				missing = append(missing, fmt.Sprintf("%q", v))
			}
		}
		if want {
			if len(missing) > 0 {
				return false, "missing " + strings.Join(missing, ", "), nil
			}
			return true, "found " + quoteAll(values), nil
		}
		if len(found) > 0 {
			return false, "found forbidden " + strings.Join(found, ", "), nil
		}
		return true, "none of " + quoteAll(values) + " found", nil
	}, nil
}

// Find returns the byte offset in text of the first case-insensitive
// occurrence of needle, or -1. With wholeWord the occurrence must not touch
// a letter, digit or underscore: "kill" is not found in "skill", but "meat"
// is found in "meat-free".
func Find(text, needle string, wholeWord bool) int {
	h, n := strings.ToLower(text), strings.ToLower(needle)
	for off := 0; off <= len(h); {
		i := strings.Index(h[off:], n)
		if i < 0 {
			return -1
		}
		i += off
		if !wholeWord || (!wordBefore(h, i) && !wordAfter(h, i+len(n))) {
			// Lower-casing can change byte lengths; map back approximately
			// by rune count for the context snippet only.
			return runeOffset(text, utf8.RuneCountInString(h[:i]))
		}
		_, size := utf8.DecodeRuneInString(h[i:])
		off = i + max(size, 1)
	}
	return -1
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

// max_words: the response has at most max whitespace-separated words.
func compileMaxWords(s *Spec) (Func, error) {
	var limit int
	s.Require("max", &limit, "the largest number of words allowed, e.g. 150")
	if s.Err() != nil {
		return nil, s.Err()
	}
	if limit < 1 {
		return nil, s.Errorf("max", "must be at least 1, not %d", limit)
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		n := len(strings.Fields(r.Text))
		if n > limit {
			return false, fmt.Sprintf("%d words, over the limit of %d", n, limit), nil
		}
		return true, fmt.Sprintf("%d words, within the limit of %d", n, limit), nil
	}, nil
}

// excerpt is a short excerpt of text around [at, at+n), for details.
func excerpt(text string, at, n int) string {
	from, to := at, min(len(text), at+n)
	for k := 0; k < 20 && from > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:from])
		from -= size
	}
	for k := 0; k < 20 && to < len(text); k++ {
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
