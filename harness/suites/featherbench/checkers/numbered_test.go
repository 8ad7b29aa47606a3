package checkers

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNumberedLabels(t *testing.T) {
	const weeks = `{"type": "numbered_labels", "at": "(?i)\\b(?:week|wk)s?\\.?", "from": 1, "to": 3}`
	const weeksCol = `{"type": "numbered_labels", "at": "(?i)\\b(?:week|wk)s?\\.?", "from": 1, "to": 3, "column": "(?i)^(?:week|wk)\\.?$"}`
	runCases(t, []checkCase{
		{"every week as a label", weeks,
			"Week 1: 45 km\n- **Wk 2:** 48 km\n### Week 3 (taper)", nil, true,
			`every number from 1 to 3 written after /(?i)\b(?:week|wk)s?\.?/`},
		{"a dash before a distance is not a range", weeks,
			"Week 1 – 45 km\nWeek 2 – 48 km\nWeek 3 - 51 km", nil, true,
			`every number from 1 to 3 written after /(?i)\b(?:week|wk)s?\.?/`},
		{"a missing week is named", weeks,
			"Week 1: 45 km\nWeek 3: 51 km\n16 weeks in all, 4 runs a week, 2 rest days", nil, false,
			`missing 2 of 1 to 3 after /(?i)\b(?:week|wk)s?\.?/`},
		{"Week 10 is not Week 1", weeks,
			"Week 10\nWeek 2\nWeek 3", nil, false,
			`missing 1 of 1 to 3 after /(?i)\b(?:week|wk)s?\.?/`},
		{"a range counts none of its weeks", weeks,
			"Weeks 1–2: base, 45–48 km\nWeek 3: cutback", nil, false,
			`missing 1, 2 of 1 to 3 after /(?i)\b(?:week|wk)s?\.?/; a range counts none of its numbers: "Weeks 1-2" on line 1`},
		{"a Week column of bare numbers", weeksCol,
			"| Week | km |\n|---:|---:|\n| 1 | 45 |\n| **2** | 48 |\n| 3 (race week) | 20 |", nil, true,
			`every number from 1 to 3 written after /(?i)\b(?:week|wk)s?\.?/ or in a table column headed /(?i)^(?:week|wk)\.?$/`},
		{"a Week column whose cells repeat the label", weeksCol,
			"| Wk | km |\n|---|---|\n| Wk 1 | 45 |\n| Wk 2 | 48 |\n| Wk 3 | 20 |", nil, true,
			`every number from 1 to 3 written after /(?i)\b(?:week|wk)s?\.?/ or in a table column headed /(?i)^(?:week|wk)\.?$/`},
		{"bare numbers need the column option", weeks,
			"| Week | km |\n|---|---|\n| 1 | 45 |\n| 2 | 48 |\n| 3 | 20 |", nil, false,
			`missing 1, 2, 3 of 1 to 3 after /(?i)\b(?:week|wk)s?\.?/`},
		{"another column's numbers do not count", weeksCol,
			"| Phase | km/week |\n|---|---|\n| Base | 1 |\n| Build | 2 |\n| Taper | 3 |", nil, false,
			`missing 1, 2, 3 of 1 to 3 after /(?i)\b(?:week|wk)s?\.?/ or in a table column headed /(?i)^(?:week|wk)\.?$/`},
		{"days of an itinerary", `{"type": "numbered_labels", "at": "(?i)\\bday", "from": 1, "to": 2}`,
			"**Day 1 – Alfama**\n**Day 2 – Belém**", nil, true,
			`every number from 1 to 2 written after /(?i)\bday/`},
	})
}

func TestNumberedLabelsSpecErrors(t *testing.T) {
	for spec, want := range map[string]string{
		`{"type": "numbered_labels", "at": "week", "from": 3, "to": 1}`:                `checker.to: must be at least from (3), not 1`,
		`{"type": "numbered_labels", "at": "(?i)x?", "from": 1, "to": 2}`:              `checker.at: matches empty text, so every number would count; write the label's words, e.g. "(?i)\\bweek"`,
		`{"type": "numbered_labels", "at": "week", "to": 2}`:                           `checker.from: missing; the first number that must appear, e.g. 1`,
		`{"type": "numbered_labels", "at": "week", "from": 1, "to": 2, "column": " "}`: `checker.column: is empty; give a regular expression for the header cell, e.g. "(?i)^week$"`,
	} {
		_, err := Compile("checker", json.RawMessage(spec))
		if assert.Error(t, err, spec) {
			assert.Equal(t, want, err.Error(), spec)
		}
	}
}
