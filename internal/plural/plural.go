// Package plural writes counts in English: "1 model", "3 models".
package plural

import "strconv"

// Of is n and the noun, with an s unless n is 1.
func Of(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
