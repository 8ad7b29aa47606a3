package checkers

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dlclark/regexp2"
)

func init() { Register("numbered_labels", compileNumberedLabels) }

// numberAfterLabelRE reads the number written right after a label: "Week 9",
// "Wk. 9:", "Week #9", "Week 9 —". Group 1 is the number; group 2, when set,
// is the far end of a range ("Weeks 13-16", "Week 1 to 2", "Weeks 3 & 4").
var numberAfterLabelRE = regexp.MustCompile(`^[\s.#:*_]*(\d+)(?:\s*(?:-|–|—|to|&|and)\s*(?:(?:week|wk|day)s?\.?\s*)?(\d+))?`)

// numbered_labels: every whole number from "from" to "to" is written as its
// own entry: right after a match of "at" in the plain view ("Week 9",
// "**Wk 9:**"), or, with "column", first in a cell of a table column whose
// header cell matches "column" (a Week column holding "9"). A range such as
// "Weeks 13–16" counts none of its numbers, so a plan that groups weeks does
// not pass as week-by-week. The failure names the numbers missing.
func compileNumberedLabels(s *Spec) (Func, error) {
	var at, column string
	var from, to int
	s.Require("at", &at, `a regular expression for the label before each number, e.g. "(?i)\\b(?:week|wk)s?\\.?"`)
	s.Require("from", &from, "the first number that must appear, e.g. 1")
	s.Require("to", &to, "the last number that must appear, e.g. 16")
	hasColumn := s.Decode("column", &column)
	if s.Err() != nil {
		return nil, s.Err()
	}
	switch {
	case from < 0:
		return nil, s.Errorf("from", "must be 0 or more, not %d", from)
	case to < from:
		return nil, s.Errorf("to", "must be at least from (%d), not %d", from, to)
	case to-from >= 1000:
		return nil, s.Errorf("to", "spans %d numbers; list at most 1000", to-from+1)
	}
	label, err := CompilePython(at)
	if err != nil {
		return nil, s.Errorf("at", "invalid regex: %v", err)
	}
	if ok, _ := label.MatchString(""); ok {
		return nil, s.Errorf("at", "matches empty text, so every number would count; write the label's words, e.g. %q", `(?i)\bweek`)
	}
	var col *regexp2.Regexp
	if hasColumn {
		if strings.TrimSpace(column) == "" {
			return nil, s.Errorf("column", `is empty; give a regular expression for the header cell, e.g. "(?i)^week$"`)
		}
		if col, err = CompilePython(column); err != nil {
			return nil, s.Errorf("column", "invalid regex: %v", err)
		}
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		seen := map[int]bool{}
		var ranges []string
		note := func(l Line, text string, n, m int) {
			if m == 0 {
				seen[n] = true
			} else if len(ranges) < 3 {
				ranges = append(ranges, fmt.Sprintf("%q on line %d", clip(strings.TrimSpace(text), 40), l.N))
			}
		}
		lines := Lines(r.Text)
		colIdx := -1
		for _, l := range lines {
			if l.Cells == nil && !l.Drop {
				colIdx = -1
			}
			if l.Header && col != nil {
				colIdx = -1
				for i, c := range l.Cells {
					ok, err := col.MatchString(strings.TrimSpace(c))
					if err != nil {
						return false, "", fmt.Errorf("column %s: %w", quoteRE(column), err)
					}
					if ok {
						colIdx = i
						break
					}
				}
				continue
			}
			if colIdx >= 0 && l.Cells != nil && colIdx < len(l.Cells) {
				cell := l.Cells[colIdx]
				rest := cell
				if m, err := label.FindStringMatch(cell); err != nil {
					return false, "", fmt.Errorf("at %s: %w", quoteRE(at), err)
				} else if m != nil && strings.TrimSpace(cell[:runeOffset(cell, m.Index)]) == "" {
					rest = cell[runeOffset(cell, m.Index+m.Length):]
				}
				if n, m, text, ok := numberAfter(rest); ok {
					note(l, text, n, m)
				}
			}
			// matchSpans maps every match to bytes in one pass over the
			// line, where a runeOffset per match would rescan it each time.
			spans, err := matchSpans(label, l.Text)
			if err != nil {
				return false, "", fmt.Errorf("at %s: %w", quoteRE(at), err)
			}
			for _, sp := range spans {
				if n, hi, num, ok := numberAfter(l.Text[sp[1]:]); ok {
					note(l, l.Text[sp[0]:sp[1]]+num, n, hi)
				}
			}
		}
		var missing []string
		for n := from; n <= to; n++ {
			if !seen[n] {
				missing = append(missing, strconv.Itoa(n))
			}
		}
		where := "after " + quoteRE(at)
		if col != nil {
			where += " or in a table column headed " + quoteRE(column)
		}
		if len(missing) == 0 {
			return true, fmt.Sprintf("every number from %d to %d written %s", from, to, where), nil
		}
		detail := fmt.Sprintf("missing %s of %d to %d %s", strings.Join(missing, ", "), from, to, where)
		if len(ranges) > 0 {
			detail += "; a range counts none of its numbers: " + strings.Join(ranges, ", ")
		}
		return false, detail, nil
	}, nil
}

// numberAfter reads the number at the start of s (after spaces and
// punctuation such as '#', ':' or '.'): n, and the far end of a range (0 when
// it is not one), with the text read. A number running into more digits or a
// decimal point ("9.5") is not one; a dash before a smaller number or a
// quantity ("Week 3 - 51 km") is punctuation, not a range.
func numberAfter(s string) (n, hi int, text string, ok bool) {
	loc := numberAfterLabelRE.FindStringSubmatchIndex(s)
	if loc == nil {
		return 0, 0, "", false
	}
	if e := loc[3]; e < len(s) && (s[e] >= '0' && s[e] <= '9' || s[e] == '.' && e+1 < len(s) && s[e+1] >= '0' && s[e+1] <= '9') {
		return 0, 0, "", false
	}
	n, err := strconv.Atoi(s[loc[2]:loc[3]])
	if err != nil {
		return 0, 0, "", false
	}
	if loc[4] < 0 {
		return n, 0, s[loc[0]:loc[1]], true
	}
	hi, err = strconv.Atoi(s[loc[4]:loc[5]])
	if err != nil || hi <= n || quantityAfterRE.MatchString(s[loc[5]:]) {
		return n, 0, s[loc[0]:loc[3]], true
	}
	return n, hi, s[loc[0]:loc[1]], true
}

// quantityAfterRE marks a number as a quantity, not the end of a range.
var quantityAfterRE = regexp.MustCompile(`(?i)^[\d.,]*\s*(?:km|kms|k|mi|miles?|m|mins?|minutes|h|hrs?|hours?|%|x|×)(?:\W|$)`)
