package checkers

import (
	"context"
	"fmt"
	"strings"
	"unicode"
)

func init() { Register("word_count", compileWordCount) }

// word_count: the scoped response has between min and max words. A word is
// a whitespace-separated run holding a letter or digit, so bullets, table
// pipes and dashes standing alone are not words.
func compileWordCount(s *Spec) (Func, error) {
	var lo, hi int
	hasMin := s.Decode("min", &lo)
	hasMax := s.Decode("max", &hi)
	sc := readScope(s, true)
	if s.Err() != nil {
		return nil, s.Err()
	}
	switch {
	case !hasMin && !hasMax:
		return nil, s.Errorf("", `set "min", "max" or both, e.g. {"type": "word_count", "max": 150}`)
	case hasMin && lo < 0:
		return nil, s.Errorf("min", "must be 0 or more, not %d", lo)
	case hasMax && hi < 1:
		return nil, s.Errorf("max", "must be at least 1, not %d", hi)
	case hasMin && hasMax && lo > hi:
		return nil, s.Errorf("min", "is %d, above max %d; swap them", lo, hi)
	}
	b := bound{min: float64(lo), max: float64(hi), hasMin: hasMin, hasMax: hasMax}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		n := countWords(d.Text)
		if !b.ok(float64(n)) {
			return false, d.withNote(fmt.Sprintf("%d words; want %s", n, b)), nil
		}
		return true, d.withNote(fmt.Sprintf("%d words, %s", n, b)), nil
	}, nil
}

// countWords counts the whitespace-separated runs in s that hold a letter
// or digit.
func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}
