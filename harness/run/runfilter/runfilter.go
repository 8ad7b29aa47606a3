// Package runfilter answers "will `go test -run/-skip` run this subtest?"
// before the subtest exists, so a suite evaluates only the items a filter
// selects and still batches their model calls. It mirrors the matching rules
// of the standard testing package: patterns split on unbracketed '/' and
// top-level '|', each element an unanchored regexp for one name level, and a
// path shorter than the pattern matches partially (its subtests may match).
package runfilter

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Filter is a parsed -run pattern plus an optional -skip pattern.
type Filter struct {
	run, skip [][]*regexp.Regexp // alternatives of per-level patterns
}

// New parses run and skip patterns ("" means no filter / no skip).
func New(run, skip string) (*Filter, error) {
	f := &Filter{}
	var err error
	if run != "" {
		if f.run, err = compile(run); err != nil {
			return nil, err
		}
	}
	if skip != "" {
		if f.skip, err = compile(skip); err != nil {
			return nil, err
		}
	}
	return f, nil
}

var (
	once     sync.Once
	fromArgs *Filter
)

// FromFlags returns the filter of this test binary's -test.run and -test.skip.
// An unparsable pattern is reported by the testing package itself before any
// test runs, so here it falls back to "everything".
func FromFlags() *Filter {
	once.Do(func() {
		get := func(name string) string {
			if f := flag.Lookup(name); f != nil {
				return f.Value.String()
			}
			return ""
		}
		f, err := New(get("test.run"), get("test.skip"))
		if err != nil {
			f = &Filter{}
		}
		fromArgs = f
	})
	return fromArgs
}

// Selected reports whether the test at path (top-level name first) runs:
// it matches -run (fully or as a prefix of the pattern) and is not skipped.
// Names are compared after the same rewriting testing applies (spaces to _).
func (f *Filter) Selected(path ...string) bool {
	names := make([]string, len(path))
	for i, p := range path {
		names[i] = rewrite(p)
	}
	if f.run != nil {
		if ok, _ := matchAny(f.run, names); !ok {
			return false
		}
	}
	if f.skip != nil {
		if ok, partial := matchAny(f.skip, names); ok && !partial {
			return false
		}
	}
	return true
}

// Selected applies FromFlags.
func Selected(path ...string) bool { return FromFlags().Selected(path...) }

// Under is Selected for the paths below prefix: a suite asks it about a
// unit's path under the model's subtest (prefix: the test and the model).
func (f *Filter) Under(prefix ...string) func(path ...string) bool {
	prefix = append([]string(nil), prefix...)
	return func(path ...string) bool {
		return f.Selected(append(prefix[:len(prefix):len(prefix)], path...)...)
	}
}

// Narrows reports whether -run or -skip may leave out some of the tests
// below prefix: -run when none of its alternatives that match prefix
// selects everything below it (as -run TestX/m does below TestX/m, and
// -run TestX/m/a does not), -skip when one of its alternatives names
// tests below prefix. It reads the patterns only, so a pattern that
// happens to match every test below prefix still narrows.
func (f *Filter) Narrows(prefix ...string) (run, skip bool) {
	names := make([]string, len(prefix))
	for i, p := range prefix {
		names[i] = rewrite(p)
	}
	deeper := func(levels []*regexp.Regexp) bool {
		for _, re := range levels[min(len(names), len(levels)):] {
			if re.String() != "" { // an empty level ("TestX/m/") selects all
				return true
			}
		}
		return false
	}
	if f.run != nil {
		run = true
		for _, levels := range f.run {
			if ok, _ := match(levels, names); ok && !deeper(levels) {
				run = false
			}
		}
	}
	for _, levels := range f.skip {
		if ok, _ := match(levels, names); ok && deeper(levels) {
			skip = true
		}
	}
	return run, skip
}

func matchAny(alts [][]*regexp.Regexp, names []string) (ok, partial bool) {
	for _, levels := range alts {
		if ok, partial := match(levels, names); ok {
			return true, partial
		}
	}
	return false, false
}

func match(levels []*regexp.Regexp, names []string) (ok, partial bool) {
	for i, n := range names {
		if i >= len(levels) {
			break
		}
		if !levels[i].MatchString(n) {
			return false, false
		}
	}
	return true, len(names) < len(levels)
}

func compile(pattern string) ([][]*regexp.Regexp, error) {
	var out [][]*regexp.Regexp
	for _, alt := range split(pattern) {
		var levels []*regexp.Regexp
		for _, p := range alt {
			re, err := regexp.Compile(rewrite(p))
			if err != nil {
				return nil, err
			}
			levels = append(levels, re)
		}
		out = append(out, levels)
	}
	return out, nil
}

// split follows testing's splitRegexp: '/' separates levels and '|'
// separates alternatives, except inside brackets or parentheses.
func split(s string) [][]string {
	var alts [][]string
	var cur []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 {
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				cur = append(cur, s[:i])
				if s[i] == '|' {
					alts = append(alts, cur)
					cur = nil
				}
				s = s[i+1:]
				i = 0
				continue
			}
		}
		i++
	}
	cur = append(cur, s)
	return append(alts, cur)
}

// rewrite applies testing's subtest-name rewriting: spaces become
// underscores and unprintable runes are quoted.
func rewrite(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
			b.WriteByte('_')
		case r < 0x20 || r == 0x7f:
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
