package checkers

import "testing"

const (
	marathonTable = "## 16-week plan\n\n| Week | Long run (miles) | Notes |\n|---|---|---|\n| 1 | 8 | easy |\n| 15 | 12–14 | taper |\n| 16 | 26.2 | **Race day** |\n"
	recipeTimes   = "### Quick dal\n\n- **Prep time:** 10 minutes\n- **Cook time:** 20 mins\n- **Total time:** 25–30 minutes\n"
)

func TestLabelledNumber(t *testing.T) {
	runCases(t, []checkCase{
		{"bold label and a range within the bound", `{"type": "labelled_number", "at": "(?i)total time", "max": 30}`, recipeTimes, nil, true,
			`read "25-30" on line 5 (in "Total time: 25-30 minutes"), at most 30`},
		{"both ends of a range must pass", `{"type": "labelled_number", "at": "(?i)total time", "max": 28}`, recipeTimes, nil, false,
			`read "25-30" on line 5 (in "Total time: 25-30 minutes"); want at most 28`},
		{"'to' makes a range", `{"type": "labelled_number", "at": "(?i)total time", "min": 20, "max": 30}`, "Total time: 20 to 35 minutes", nil, false,
			`read "20-35" on line 1 (in "Total time: 20 to 35 minutes"); want between 20 and 30`},
		{"a table row: the next cell", `{"type": "labelled_number", "at": "(?i)total time", "max": 30}`, "| Step | Minutes |\n|---|---|\n| Prep | 10 |\n| **Total time** | 40 |", nil, false,
			`read "40" on line 4 (in "Total time 40"); want at most 30`},
		{"a column under a header cell, last row", `{"type": "labelled_number", "at": "(?i)^week$", "which": "last", "value": 16}`, marathonTable, nil, true,
			`read "16" on line 7 (in "16 26.2 Race day"), 16 ± 0`},
		{"a column under a header cell, every row", `{"type": "labelled_number", "at": "(?i)long run", "max": 22}`, marathonTable, nil, false,
			`read "26.2" on line 7 (in "16 26.2 Race day"); want at most 22`},
		{"any", `{"type": "labelled_number", "at": "(?i)long run", "which": "any", "min": 26, "max": 26.3}`, marathonTable, nil, true,
			`read "26.2" on line 7 (in "16 26.2 Race day"), between 26 and 26.3`},
		{"any, none passes", `{"type": "labelled_number", "at": "(?i)long run", "which": "any", "min": 30}`, marathonTable, nil, false,
			`no number read is at least 30: "8" on line 5 (in "1 8 easy"), "12-14" on line 6 (in "15 12-14 taper"), "26.2" on line 7 (in "16 26.2 Race day")`},
		{"every reading is named when all pass", `{"type": "labelled_number", "at": "(?i)\\b(?:prep|cook) time", "max": 20}`, recipeTimes, nil, true,
			`all 2 numbers read are at most 20: "10" on line 3 (in "Prep time: 10 minutes"), "20" on line 4 (in "Cook time: 20 mins")`},
		{"first", `{"type": "labelled_number", "at": "(?i)time", "which": "first", "value": 10}`, recipeTimes, nil, true,
			`read "10" on line 3 (in "Prep time: 10 minutes"), 10 ± 0`},
		{"a label ending its line reads the next line", `{"type": "labelled_number", "at": "(?i)deposit", "value": 1200, "abs_tol": 0.5}`, "**Deposit:**\n£1,200 (five weeks' rent)", nil, true,
			`read "1200" on line 2 (in "£1,200 (five weeks' rent)"), 1200 ± 0.5`},
		{"thousands separators and currency", `{"type": "labelled_number", "at": "(?i)trip total", "max": 1200}`, "**Trip total: €1,250**", nil, false,
			`read "1250" on line 1 (in "Trip total: €1,250"); want at most 1200`},
		{"pounds and pence", `{"type": "labelled_number", "at": "(?i)\\btotal\\b", "max": 80}`, "Total: £80.90", nil, false,
			`read "80.9" on line 1 (in "Total: £80.90"); want at most 80`},
		{"pence", `{"type": "labelled_number", "at": "(?i)brand a", "max": 0.5}`, "Brand A: 80p per 100g", nil, false,
			`read "0.8" on line 1 (in "Brand A: 80p per 100g"); want at most 0.5`},
		{"label without a number", `{"type": "labelled_number", "at": "(?i)total time", "max": 30}`, "Total time depends on your oven.", nil, false,
			`no number after /(?i)total time/ (it matches line 1, "Total time depends on your oven.", with no number after it)`},
		{"no label", `{"type": "labelled_number", "at": "(?i)total time", "max": 30}`, "Cook for 20 minutes.", nil, false,
			`no number after /(?i)total time/`},
		{"no label, not required", `{"type": "labelled_number", "at": "(?i)total time", "max": 30, "required": false}`, "Cook for 20 minutes.", nil, true,
			`no number after /(?i)total time/, and none is required`},
		{"section", `{"type": "labelled_number", "at": "(?i)long run", "max": 14, "section": "(?i)base"}`, "## Base phase\n- Long run: 10 miles\n## Peak phase\n- Long run: 20 miles", nil, true,
			`read "10" on line 2 (in "Long run: 10 miles"), at most 14`},
	})
}

func TestLabelledDurations(t *testing.T) {
	const minutes = `{"type": "labelled_number", "at": "(?i)total time", "max": 30, "unit": "minutes"}`
	runCases(t, []checkCase{
		{"minutes", minutes, "**Total time:** 25–30 minutes", nil, true, `read "25-30" on line 1 (in "Total time: 25-30 minutes"), at most 30`},
		{"an hour is 60 minutes", minutes, "Total time: 1 hour", nil, false, `read "60" on line 1 (in "Total time: 1 hour"); want at most 30`},
		{"hours and minutes", minutes, "Total time: 1 hr 15 mins (20 minutes hands-on)", nil, false, `read "75" on line 1 (in "Total time: 1 hr 15 mins (20 minutes hands-on)"); want at most 30`},
		{"glued", minutes, "Total time: 1h05", nil, false, `read "65" on line 1 (in "Total time: 1h05"); want at most 30`},
		{"a count after hours is not minutes", minutes, "Total time: 1 hour 4 servings", nil, false, `read "60" on line 1 (in "Total time: 1 hour 4 servings"); want at most 30`},
		{"half an hour in hours", `{"type": "labelled_number", "at": "(?i)total time", "max": 0.5, "unit": "hours"}`, "Total time: 30 mins", nil, true, `read "0.5" on line 1 (in "Total time: 30 mins"), at most 0.5`},
		{"a range of hours", minutes, "Total time: 1-1.5 hours", nil, false, `read "60-90" on line 1 (in "Total time: 1-1.5 hours"); want at most 30`},
	})
}
