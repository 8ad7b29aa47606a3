// Package jsonspan finds JSON objects inside free text, such as a model's
// reply that wraps its JSON in prose or a code fence.
package jsonspan

// ClosingBrace returns the index of the '}' that closes the '{' at start,
// skipping braces inside JSON strings, or -1 when the object is unbalanced.
func ClosingBrace(s string, start int) int {
	depth, inString, escaped := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}
