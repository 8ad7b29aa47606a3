package spelling

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"value", "value", 0},
		{"valeu", "value", 1}, // a swap is one edit
		{"vlaue", "value", 1},
		{"value", "values", 1},
		{"checkr", "checker", 1},
		{"timeout", "timeout_s", 2},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
	} {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, Distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}

func TestNear(t *testing.T) {
	contains := []string{"label", "lines", "section", "type", "value", "values", "view", "whole_word"}
	for _, tc := range []struct {
		word  string
		known []string
		want  string // "": no suggestion
	}{
		{"valeu", contains, "value"},                            // a swap; value beats values (two edits)
		{"valu", contains, "value"},                             // one edit
		{"Value", contains, "value"},                            // only the case differs, which JSON does not forgive
		{"value", contains, ""},                                 // a known name
		{"whole_words", contains, "whole_word"},                 // one edit
		{"wholeword", contains, "whole_word"},                   // one edit
		{"unless", contains, ""},                                // nothing close
		{"timeout", []string{"timeout_s", "type"}, "timeout_s"}, // two edits from a long name
		{"vlau", []string{"value"}, ""},                         // two edits from a short name: too far to guess
		{"checkr", []string{"category", "checker"}, "checker"},
		{"x", []string{"a", "b"}, "a"}, // one edit from both: the first wins
	} {
		got, ok := Near(tc.word, tc.known)
		assert.Equal(t, tc.want, got, tc.word)
		assert.Equal(t, tc.want != "", ok, tc.word)
	}
}
