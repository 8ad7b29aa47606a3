package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPythonRegexSpellings: constructs regexp2 reads differently from
// Python match what Python's re.findall finds (the want lists are its
// output).
func TestPythonRegexSpellings(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          []string
	}{
		{`a{,2}`, "aaa", []string{"aa", "a", ""}},
		{`x{,}`, "x{,}xx", []string{"x", "", "", "", "xx", ""}},
		{`a{ ,2}`, "a{ ,2}", []string{"a{ ,2}"}}, // not a quantifier in Python either
		{`[a-z-[aeiou]]`, "b] [] e] -]", []string{"b]", "[]", "e]", "-]"}},
		{`[[:alpha:]]+`, "[:a]", []string{"a]"}},
		{`\d{,3}-\d{2,}`, "12-345", []string{"12-345"}},
	}
	for _, tt := range tests {
		re, err := CompilePython(tt.pattern)
		require.NoError(t, err, tt.pattern)
		var got []string
		m, err := re.FindStringMatch(tt.text)
		for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
			got = append(got, m.String())
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.pattern)
	}
}
