package checkers

import "testing"

func TestWordCount(t *testing.T) {
	runCases(t, []checkCase{
		{"markdown markers are not words", `{"type": "word_count", "max": 6}`, "- **one** two\n- three | four\n— five six", nil, true, `6 words, at most 6`},
		{"too few", `{"type": "word_count", "min": 10, "max": 50}`, "Too short.", nil, false, `2 words; want between 10 and 50`},
		{"a section", `{"type": "word_count", "max": 3, "section": "(?i)^summary"}`, "## Summary\nShort and sweet.\n## Details\nMany more words follow here.", nil, true, `3 words, at most 3`},
	})
}
