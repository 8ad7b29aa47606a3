package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// matcher finds the non-overlapping matches of a pattern, left to right,
// as byte ranges appended to dst.
type matcher interface {
	find(dst [][2]int, s string) [][2]int
}

// literal is a String pattern. An empty needle matches nothing.
type literal string

func (l literal) find(out [][2]int, s string) [][2]int {
	if l == "" {
		return out
	}
	for i := 0; ; {
		j := strings.Index(s[i:], string(l))
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(l)})
		i += j + len(l)
	}
}

// runePredicate matches every single rune for which it returns true.
type runePredicate func(rune) bool

func (f runePredicate) find(out [][2]int, s string) [][2]int {
	for i, r := range s {
		if f(r) {
			out = append(out, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	return out
}

// regex is a Regex pattern. Hugging Face patterns are Oniguruma syntax;
// regexp2 reads the same constructs they use (lookahead, \p{..}, (?i:..)).
type regex struct{ re *regexp2.Regexp }

func compileRegex(pattern string) (matcher, error) {
	if m := fastScanner(pattern); m != nil {
		return m, nil
	}
	return compileRegexp2(pattern)
}

func compileRegexp2(pattern string) (*regex, error) {
	re, err := regexp2.Compile(pattern, regexp2.None)
	if err != nil {
		return nil, err
	}
	return &regex{re}, nil
}

func (r *regex) find(out [][2]int, s string) [][2]int {
	if s == "" {
		return out
	}
	runes := []rune(s)
	// byteAt[k] is the byte offset of rune k.
	byteAt := make([]int, len(runes)+1)
	off := 0
	for k, c := range runes {
		byteAt[k] = off
		off += utf8.RuneLen(c)
	}
	byteAt[len(runes)] = off
	first := len(out)
	m, err := r.re.FindRunesMatch(runes)
	for err == nil && m != nil {
		start, end := byteAt[m.Index], byteAt[m.Index+m.Length]
		// Oniguruma never reports an empty match right where the previous
		// match ended; regexp2 does.
		if !(start == end && len(out) > first && out[len(out)-1][1] == start) {
			out = append(out, [2]int{start, end})
		}
		m, err = r.re.FindNextMatch(m)
	}
	return out
}

// patternJSON is {"String": "..."} or {"Regex": "..."}.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

func parsePattern(raw json.RawMessage, path string) (matcher, error) {
	var p patternJSON
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("%s: want {\"String\": ...} or {\"Regex\": ...}: %v", path, err)
	}
	switch {
	case p.String != nil:
		return literal(*p.String), nil
	case p.Regex != nil:
		m, err := compileRegex(*p.Regex)
		if err != nil {
			return nil, fmt.Errorf("%s.Regex: cannot compile %q: %v", path, *p.Regex, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("%s: want {\"String\": ...} or {\"Regex\": ...}", path)
}

// segment is a piece of a string with whether the pattern matched it.
type segment struct {
	start, end int
	match      bool
}

// segments covers s with the pattern's matches and the gaps between them;
// invert swaps which pieces count as matches. Empty matches stay: they
// separate gaps, and the pieces they make are dropped at the end.
func segments(sc *scratch, m matcher, s string, invert bool) []segment {
	sc.found = m.find(sc.found[:0], s)
	out := sc.segs[:0]
	prev := 0
	for _, r := range sc.found {
		if prev < r[0] {
			out = append(out, segment{prev, r[0], invert})
		}
		out = append(out, segment{r[0], r[1], !invert})
		prev = r[1]
	}
	if prev < len(s) {
		out = append(out, segment{prev, len(s), invert})
	}
	sc.segs = out
	return out
}

// Split behaviours, as in the Rust tokenizers' SplitDelimiterBehavior.
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviors = map[string]behavior{
	"Removed":            removed,
	"Isolated":           isolated,
	"MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext":     mergedWithNext,
	"Contiguous":         contiguous,
}

func parseBehavior(name, path string) (behavior, error) {
	b, ok := behaviors[name]
	if !ok {
		return 0, fmt.Errorf("%s: unknown behavior %q (want Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous)", path, name)
	}
	return b, nil
}

// splitBy cuts s at the pattern's matches according to b and returns the
// byte ranges of the pieces kept (callers drop empty ones), in sc.ranges.
func splitBy(sc *scratch, m matcher, s string, b behavior, invert bool) [][2]int {
	segs := segments(sc, m, s, invert)
	out := sc.ranges[:0]
	switch b {
	case removed:
		for _, g := range segs {
			if !g.match {
				out = append(out, [2]int{g.start, g.end})
			}
		}
	case isolated:
		for _, g := range segs {
			out = append(out, [2]int{g.start, g.end})
		}
	case contiguous:
		prev := false
		for _, g := range segs {
			if g.match == prev && len(out) > 0 {
				out[len(out)-1][1] = g.end
			} else {
				out = append(out, [2]int{g.start, g.end})
			}
			prev = g.match
		}
	case mergedWithPrevious:
		prev := false
		for _, g := range segs {
			if g.match && !prev && len(out) > 0 {
				out[len(out)-1][1] = g.end
			} else {
				out = append(out, [2]int{g.start, g.end})
			}
			prev = g.match
		}
	case mergedWithNext:
		prev := false
		for k := len(segs) - 1; k >= 0; k-- {
			g := segs[k]
			if g.match && !prev && len(out) > 0 {
				out[len(out)-1][0] = g.start
			} else {
				out = append(out, [2]int{g.start, g.end})
			}
			prev = g.match
		}
		for a, z := 0, len(out)-1; a < z; a, z = a+1, z-1 {
			out[a], out[z] = out[z], out[a]
		}
	}
	sc.ranges = out
	return out
}
