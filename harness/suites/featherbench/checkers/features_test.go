package checkers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeatureCompileErrors(t *testing.T) {
	tests := []struct{ name, checker, want string }{
		{"view", `{"type": "regex", "pattern": "x", "view": "markdown"}`,
			`checker.view: must be "raw" (the answer as written, the default) or "plain" (markdown removed), not "markdown"`},
		{"empty lines", `{"type": "not_contains", "value": "x", "lines": ""}`,
			`checker.lines: is empty; give a regular expression, e.g. "(?i)ingredients"`},
		{"bad section", `{"type": "contains", "value": "x", "section": "(ingredients"}`,
			"checker.section: invalid regex: error parsing regexp: missing closing ) in `(ingredients`"},
		{"unless is for negative checks", `{"type": "contains", "value": "x", "unless": "negated"}`,
			`checker (contains): unknown field "unless"; its fields are label, lines, section, type, value, values, view, whole_word`},
		{"bad unless", `{"type": "not_contains", "value": "x", "unless": "(no"}`,
			"checker.unless: invalid regex: error parsing regexp: missing closing ) in `(no` (or use \"negated\" for the built-in negation and warning cues)"},
		{"not_regex matching nothing", `{"type": "not_regex", "pattern": "(?i)(fish sauce)?"}`,
			`checker.pattern: matches empty text, so every answer would fail; make it match only what must not appear`},
		{"labelled_number without at", `{"type": "labelled_number", "max": 30}`,
			`checker.at: missing; a regular expression for the label, e.g. "(?i)total time"`},
		{"labelled_number without a bound", `{"type": "labelled_number", "at": "total"}`,
			`checker: set "max", "min" or both (a bound), or "value" with "abs_tol" or "rel_tol" (a target), e.g. {"type": "labelled_number", "at": "(?i)total time", "max": 30}`},
		{"labelled_number value and max", `{"type": "labelled_number", "at": "total", "value": 3, "max": 4}`,
			`checker.value: is a target; set it or "min"/"max", not both`},
		{"labelled_number tolerance without value", `{"type": "labelled_number", "at": "total", "max": 4, "abs_tol": 1}`,
			`checker.abs_tol: is the tolerance around "value"; set "value" too, or drop it and use "min"/"max"`},
		{"labelled_number min above max", `{"type": "labelled_number", "at": "total", "min": 40, "max": 30}`,
			`checker.min: is 40, above max 30; swap them`},
		{"labelled_number which", `{"type": "labelled_number", "at": "total", "max": 30, "which": "all"}`,
			`checker.which: must be "every" (the default: every number read must pass), "first", "last" or "any", not "all"`},
		{"labelled_number empty label", `{"type": "labelled_number", "at": "(?i)x*", "max": 30}`,
			`checker.at: matches empty text, so it marks no label; write the label's words, e.g. "(?i)total time"`},
		{"labelled_number has no view", `{"type": "labelled_number", "at": "total", "max": 30, "view": "raw"}`,
			`checker (labelled_number): unknown field "view"; its fields are abs_tol, at, label, lines, max, min, rel_tol, required, section, single, type, unit, value, which`},
		{"labelled_number unit", `{"type": "labelled_number", "at": "total", "max": 30, "unit": "mins"}`,
			`checker.unit: must be "minutes" or "hours" (durations such as "1 hour 15 minutes" are converted to it), not "mins"`},
		{"itemised_total without a bound", `{"type": "itemised_total", "currency": "€"}`,
			`checker: set "max" (the budget), "min", or "total_required": true, e.g. {"type": "itemised_total", "currency": "€", "max": 1200}`},
		{"itemised_total currency", `{"type": "itemised_total", "currency": "euros", "max": 3}`,
			`checker.currency: must be one of £ € $ ¥ ₹ (or GBP, EUR, USD, JPY, INR), not "euros"`},
		{"itemised_total exclude", `{"type": "itemised_total", "max": 3, "exclude": "[a"}`,
			"checker.exclude: invalid regex: error parsing regexp: unterminated [] set in `[a` (use \"\" to exclude nothing)"},
		{"itemised_total negative tolerance", `{"type": "itemised_total", "max": 3, "rel_tol": -1}`,
			`checker.rel_tol: must be a non-negative number, not -1`},
		{"word_count without a bound", `{"type": "word_count"}`,
			`checker: set "min", "max" or both, e.g. {"type": "word_count", "max": 150}`},
		{"word_count min above max", `{"type": "word_count", "min": 200, "max": 150}`,
			`checker.min: is 200, above max 150; swap them`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile("checker", json.RawMessage(tt.checker))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// fuzzCheckers exercises every option of the text checkers at once.
var fuzzCheckers = []string{
	`{"type": "not_regex", "pattern": "(?i)fish sauce|\\d+", "unless": "negated", "view": "plain", "section": "(?i)ingredients"}`,
	`{"type": "not_contains", "values": ["a", "é", "ß"], "unless": "negated", "lines": "\\d"}`,
	`{"type": "regex", "pattern": "(?i)\\A(?!.*bacon)", "view": "plain"}`,
	`{"type": "labelled_number", "at": "(?i)total|week|x", "max": 30, "which": "any"}`,
	`{"type": "labelled_number", "at": "(?i)\\w", "value": 3, "rel_tol": 0.1, "required": false}`,
	`{"type": "itemised_total", "max": 100, "total_required": true}`,
	`{"type": "itemised_total", "currency": "£", "min": 1, "exclude": "", "per": "sentence"}`,
	`{"type": "labelled_number", "at": "(?i)week", "which": "last", "min": 1, "section": "(?i)plan"}`,
	`{"type": "labelled_number", "at": "(?i)time|h", "max": 30, "unit": "minutes"}`,
	`{"type": "word_count", "min": 1, "max": 5, "view": "plain", "section": "x"}`,
	`{"type": "numeric_close", "value": 3, "view": "plain", "lines": "."}`,
	`{"type": "itemised_total", "currency": "€", "max": 450, "per": "sentence", "total": "(?i)trip total"}`,
	`{"type": "not_claim", "subject": "(?i)\\bR-5002\\b|29 feb", "claim": "(?i)invalid|not (?:a )?real", "others": "(?i)\\bR-\\d+|\\d+ feb", "unless": ["negated", "(?i)leap"]}`,
	`{"type": "computed", "pattern": "(?P<a>\\d+(?::\\d{2})?(?:-\\d+(?::\\d{2})?)?)\\D{0,5}(?P<b>[£€]?\\d[\\d,.]*)", "expr": "a / b - (a * 2)", "min": -1000, "which": "any", "required": false}`,
	`{"type": "parts", "section": "x", "parts": [{"name": "a", "section": "(?i)rules|ingredients", "items": 2, "item": "\\d"}, {"name": "b", "items": 1, "max_items": 5, "entries": "numbered"}, {"name": "c", "pattern": "(?i)x", "entries": "list", "items": 1}]}`,
}

// FuzzTextCheckers: no answer makes Plain, the quantity reader or a text
// checker panic, or a checker report a harness error.
func FuzzTextCheckers(f *testing.F) {
	for _, seed := range []string{curryGood, curryBad, formGood, scamGood, injectionGood, lisbonOver, lisbonGood, shopping, marathonTable, recipeTimes, dateNight, daysPlan, proseDays,
		"", "|", "||\n|-|", "**", "*_*_", "```", "```\n|a|b|\n", "> # - 1. **x**:", "€", "1,", "- \n-", "£1–", "25 to", "\r\n\r\n", "\xff\xfe", "Total:\n", "| Week |\n|---|\n"} {
		f.Add(seed)
	}
	checks := make([]Func, len(fuzzCheckers))
	for i, c := range fuzzCheckers {
		fn, err := Compile("checker", json.RawMessage(c))
		require.NoError(f, err)
		checks[i] = fn
	}
	f.Fuzz(func(t *testing.T, text string) {
		_ = Plain(text)
		_ = quantities(text)
		for i, fn := range checks {
			if _, _, err := fn(context.Background(), Response{Text: text}); err != nil {
				t.Fatalf("%s: %v", fuzzCheckers[i], err)
			}
		}
	})
}
