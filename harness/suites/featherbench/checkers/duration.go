package checkers

import (
	"regexp"
	"strconv"
)

// durationRE reads the unit after a number and an optional second part:
// "1 hour 15 minutes", "1h15", "1 hr and 5 mins", "45 min", "1.5 hours".
var durationRE = regexp.MustCompile(`(?i)^[ \t]*(?:(h|hrs?|hours?)\b|h(?:\d)|(m|mins?|minutes?)\b)`)

// durationRestRE reads the minutes after an hours part (" 15 minutes",
// " and 5 mins"); gluedRestRE after an "h" glued to them ("1h15", "1h15m").
var (
	durationRestRE = regexp.MustCompile(`(?i)^[ \t]*(?:and[ \t]+)?(\d{1,2})[ \t]*(?:m|mins?|minutes?)\b`)
	gluedRestRE    = regexp.MustCompile(`(?i)^(\d{1,2})(?:m|mins?|minutes?)?\b`)
)

// firstQuantity is the first quantity in s. With unit "minutes" or "hours",
// a duration written in hours, minutes or both is converted to that unit
// ("1 hour 15 minutes" is 75 minutes); a bare number is taken to be in the
// unit already.
func firstQuantity(s, unit string) (quantity, bool) {
	qs := quantities(s)
	if len(qs) == 0 {
		return quantity{}, false
	}
	q := qs[0]
	if unit == "" {
		return q, true
	}
	rest := s[q.end:]
	m := durationRE.FindStringSubmatchIndex(rest)
	if m == nil {
		return q, true
	}
	scale := 1.0
	glued := m[2] < 0 && m[4] < 0 // "1h15"
	hours := m[2] >= 0 || glued
	if hours && unit == "minutes" {
		scale = 60
	}
	if !hours && unit == "hours" {
		scale = 1.0 / 60
	}
	end := q.end + m[1]
	restRE := durationRestRE
	if glued {
		end, restRE = end-1, gluedRestRE // the digit after h starts the minutes
	}
	vals := make([]float64, len(q.vals))
	for i, v := range q.vals {
		vals[i] = v * scale
	}
	if hours && len(vals) == 1 {
		if r := restRE.FindStringSubmatchIndex(s[end:]); r != nil {
			mins, _ := strconv.ParseFloat(s[end+r[2]:end+r[3]], 64)
			if unit == "minutes" {
				vals[0] += mins
			} else {
				vals[0] += mins / 60
			}
			end += r[1]
		}
	}
	q.vals = vals
	q.end = end
	q.text = s[q.start:end]
	return q, true
}
