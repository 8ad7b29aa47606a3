// Package spelling finds the name a misspelt one was meant to be, so an
// error about an unknown field can say "did you mean ...?".
package spelling

import "strings"

// Near returns the name in known that word is a near miss of: the closest
// by Distance, ignoring case, when it is at most 1 away, or 2 away from a
// name of 6 or more bytes (short names are too close to each other for a
// second edit to mean a typo). Of equally close names the earliest in
// known wins. ok is false when none is that close, or when word is itself
// in known.
func Near(word string, known []string) (name string, ok bool) {
	w := strings.ToLower(word)
	best := -1
	for _, k := range known {
		if k == word {
			return "", false
		}
		d := Distance(w, strings.ToLower(k))
		if (d <= 1 || d == 2 && len(k) >= 6) && (best < 0 || d < best) {
			name, best = k, d
		}
	}
	return name, best >= 0
}

// Distance counts the edits that turn a into b: inserting, deleting or
// replacing a byte, or swapping two adjacent ones (the optimal string
// alignment distance), so "valeu" is one edit from "value".
func Distance(a, b string) int {
	// rows[i%3][j] is the distance between a[:i] and b[:j].
	var rows [3][]int
	for r := range rows {
		rows[r] = make([]int, len(b)+1)
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur, prev, prev2 := rows[i%3], rows[(i-1)%3], rows[(i+1)%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
	}
	return rows[len(a)%3][len(b)]
}
