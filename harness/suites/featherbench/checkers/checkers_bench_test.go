package checkers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkTextCheckers checks a 20 KB answer, a long but realistic
// response, with the text checker types.
func BenchmarkTextCheckers(b *testing.B) {
	text := strings.Repeat("Roast the chickpeas with smoked paprika until crisp. ", 400) + "Serves 4."
	for _, c := range []struct{ name, spec string }{
		{"contains", `{"type": "contains", "values": ["chickpea", "serves 4"]}`},
		{"not_contains-whole_word", `{"type": "not_contains", "values": ["bacon", "chicken", "beef"], "whole_word": true}`},
		{"regex-lookahead", `{"type": "regex", "pattern": "(?i)\\A(?!.*(?<!no )\\bmeat\\b(?!-free))"}`},
		{"numeric_close", `{"type": "numeric_close", "value": 4}`},
		{"not_regex-plain-unless", `{"type": "not_regex", "pattern": "(?i)\\bchickpeas?\\b", "view": "plain", "unless": "negated"}`},
		{"labelled_number", `{"type": "labelled_number", "at": "(?i)serves", "value": 4}`},
		{"itemised_total", `{"type": "itemised_total", "max": 100, "total_required": true}`},
		{"word_count-plain", `{"type": "word_count", "max": 5000, "view": "plain"}`},
	} {
		f, err := Compile("checker", json.RawMessage(c.spec))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, _, err := f(context.Background(), Response{Text: text}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
