package checkers

import (
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// MatchTimeout stops a pathological pattern (catastrophic backtracking) from
// hanging a run; hitting it is an error, not a failed answer.
const MatchTimeout = 5 * time.Second

// CompilePython compiles a pattern written in Python's re syntax with
// re.DOTALL, as Featherbench tasks are written. regexp2 provides what RE2
// lacks (lookahead, lookbehind, backreferences); the Python-only spellings
// are translated: (?P<name>...) to (?<name>...), (?P=name) to \k<name>,
// \Z (end of text) to \z, {,n} to {0,n}, and a '[' inside a character
// class to \[ (Python reads [a-z-[aeiou]] as a class holding '-' and '[',
// then ']', where regexp2 would read .NET class subtraction).
func CompilePython(pattern string) (*regexp2.Regexp, error) {
	re, err := regexp2.Compile(translatePython(pattern), regexp2.Singleline)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = MatchTimeout
	return re, nil
}

func translatePython(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if p[i+1] == 'Z' && !inClass {
				b.WriteString(`\z`)
			} else {
				b.WriteByte(c)
				b.WriteByte(p[i+1])
			}
			i++
			continue
		case inClass:
			if c == ']' {
				inClass = false
			}
			if c == '[' {
				// Python reads '[' in a class as itself; regexp2 would read
				// "-[...]" as .NET class subtraction.
				b.WriteString(`\[`)
				continue
			}
		case c == '[':
			inClass = true
			// A ']' right after '[' or '[^' is a literal member.
			b.WriteByte(c)
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
			continue
		case c == '{' && strings.HasPrefix(p[i:], "{,"):
			// Python's {,n} is {0,n} (and {,} is {0,}); regexp2 reads it literally.
			j := i + 2
			for j < len(p) && p[j] >= '0' && p[j] <= '9' {
				j++
			}
			if j < len(p) && p[j] == '}' {
				b.WriteString("{0," + p[i+2:j] + "}")
				i = j
				continue
			}
		case strings.HasPrefix(p[i:], "(?P<"):
			b.WriteString("(?<")
			i += len("(?P<") - 1
			continue
		case strings.HasPrefix(p[i:], "(?P="):
			end := strings.IndexByte(p[i:], ')')
			if end > 0 {
				b.WriteString(`\k<` + p[i+4:i+end] + `>`)
				i += end
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
