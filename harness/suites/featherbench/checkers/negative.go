package checkers

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/dlclark/regexp2"
)

func init() { Register("not_regex", compileNotRegex) }

// not_regex: the pattern matches nowhere in the scoped response, except in
// sentences "unless" forgives. It says "this must not appear" directly, so
// its failure names the text that matched, which a regex built around a
// negative lookahead cannot.
func compileNotRegex(s *Spec) (Func, error) {
	var pattern string
	s.Require("pattern", &pattern, `a regular expression in Python syntax for what must not appear, e.g. "(?i)\\bfish sauce\\b"`)
	sc := readScope(s, true)
	unless := readUnless(s)
	if s.Err() != nil {
		return nil, s.Err()
	}
	re, err := CompilePython(pattern)
	if err != nil {
		return nil, s.Errorf("pattern", "invalid regex: %v", err)
	}
	if ok, _ := re.MatchString(""); ok {
		return nil, s.Errorf("pattern", "matches empty text, so every answer would fail; make it match only what must not appear")
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		var forgiven []string
		cur := runeCursor{s: d.Text}
		m, err := re.FindStringMatch(d.Text)
		for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
			off := cur.byteAt(m.Index)
			n := cur.byteAt(m.Index+m.Length) - off
			ok, cue, ferr := unless.forgives(d, off, n)
			if ferr != nil {
				return false, "", ferr
			}
			if !ok {
				return false, d.withNote(fmt.Sprintf("matched %q %s", clip(m.String(), 80), d.where(off, n))), nil
			}
			if len(forgiven) < 3 {
				forgiven = append(forgiven, forgivenNote(clip(m.String(), 80), d.where(off, n), cue))
			}
		}
		if err != nil {
			return false, "", fmt.Errorf("not_regex %s: %w", quoteRE(pattern), err)
		}
		detail := "no match for " + quoteRE(pattern)
		if len(forgiven) > 0 {
			detail += ", except where forgiven by " + unless.String() + ": " + strings.Join(forgiven, ", ")
		}
		return true, d.withNote(detail), nil
	}, nil
}

// lookaheads describes a regex's negative lookaheads, so a failed match
// can say what tripped them.
type lookaheads struct {
	anchored []*regexp2.Regexp // bodies of (?!…) right after a leading \A or ^, leading .* removed
	shape    bool              // the pattern has that "must not appear" shape
}

var leadingFlagsRE = regexp.MustCompile(`^(?:\(\?[aiLmsux]+\))*`)

// negativeLookaheads reads the "must not appear anywhere" shape
// `(?i)\A(?!.*X)(?!.*Y)` and keeps X and Y (with the leading flags) to
// search for when the pattern fails.
func negativeLookaheads(pattern string) lookaheads {
	var la lookaheads
	flags := leadingFlagsRE.FindString(pattern)
	rest := pattern[len(flags):]
	switch {
	case strings.HasPrefix(rest, `\A`):
		rest = rest[2:]
	case strings.HasPrefix(rest, "^"):
		rest = rest[1:]
	default:
		return la
	}
	la.shape = strings.HasPrefix(rest, "(?!")
	for strings.HasPrefix(rest, "(?!") {
		end := closingParen(rest)
		if end < 0 {
			break
		}
		body := rest[3:end]
		for _, lead := range []string{".*?", ".*", `[\s\S]*?`, `[\s\S]*`} {
			if strings.HasPrefix(body, lead) {
				body = body[len(lead):]
				break
			}
		}
		if re, err := CompilePython(flags + body); err == nil {
			la.anchored = append(la.anchored, re)
		}
		rest = rest[end+1:]
	}
	return la
}

// closingParen is the index of the ')' closing the group that opens p[0],
// skipping escapes and character classes; -1 when there is none.
func closingParen(p string) int {
	depth, inClass := 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// explainNoMatch says why a regex of the shape \A(?!.*X) failed: the text
// that tripped a leading lookahead, or else a pointer to not_regex. Other
// lookaheads (a tempered token such as (?:(?!R-5\d{3}).){0,250}) are part
// of a positive match and get no comment.
func explainNoMatch(d *scoped, pattern string, la lookaheads) (string, error) {
	for _, re := range la.anchored {
		m, err := re.FindStringMatch(d.Text)
		if err != nil {
			return "", fmt.Errorf("regex %s: %w", quoteRE(pattern), err)
		}
		if m != nil && m.Length > 0 {
			off := runeOffset(d.Text, m.Index)
			n := runeOffset(d.Text, m.Index+m.Length) - off
			return fmt.Sprintf(": its negative lookahead tripped on %q %s", clip(m.String(), 80), d.where(off, n)), nil
		}
	}
	if la.shape {
		return "; a not_regex check says \"must not appear\" directly and names the text it finds", nil
	}
	return "", nil
}
