package featherweight

import "unicode"

// Rule names the step of the spec's extraction priority list that decided
// a reply ("The extraction algorithm is a fixed priority list, applied to
// the model's reply in this order").
type Rule string

const (
	// RuleParenthesized is step 1: "If the reply contains (A), (B), (C), or
	// (D) anywhere, that letter is returned."
	RuleParenthesized Rule = "parenthesized"
	// RuleAnswerIs is step 2: "the substring answer (case-insensitive)
	// followed by an optional is, optional punctuation, and a standalone
	// letter A–D". The letter may be lower case ("Answer: c").
	RuleAnswerIs Rule = "answer_is"
	// RuleStartsWithLetter is step 3: "the reply begins (after optional
	// whitespace) with a letter A–D followed by space, period, comma, or
	// closing bracket".
	RuleStartsWithLetter Rule = "starts_with_letter"
	// RuleChoiceText is step 4: "the reply contains the full text of one of
	// the four choices (case-insensitive, word-boundary aware)". A choice's
	// trailing sentence punctuation is not needed in the reply.
	RuleChoiceText Rule = "choice_text"
	// RuleStandaloneLetter is step 5: "any standalone A–D as a single word
	// (surrounded by word boundaries)".
	RuleStandaloneLetter Rule = "standalone_letter"
	// RuleFirstCharacter is step 6: "the first non-whitespace character of
	// the reply is one of A–D (case-insensitive)".
	RuleFirstCharacter Rule = "first_character"
	// RuleParseError is step 7: "Otherwise: parse error. The item is counted
	// as incorrect, but is also tallied separately".
	RuleParseError Rule = "parse_error"
)

// Rules lists the steps in priority order.
var Rules = []Rule{RuleParenthesized, RuleAnswerIs, RuleStartsWithLetter, RuleChoiceText, RuleStandaloneLetter, RuleFirstCharacter, RuleParseError}

// Extraction is the letter a reply was reduced to and the rule that fired.
type Extraction struct {
	// Letter is "A".."D", or "" for a parse error.
	Letter string
	Rule   Rule
}

// ParseError reports whether no rule found a letter.
func (e Extraction) ParseError() bool { return e.Rule == RuleParseError }

// Extract reduces a reply to one of {A, B, C, D, parse error} with the
// spec's seven steps, in order; the first step that matches decides.
//
// Interpretations where the spec's words leave room, applied throughout:
//   - "Word boundary" and "standalone" follow Python's re \b, which the
//     reference implementation uses ("no dependencies beyond re"): a word
//     character is a Unicode letter, a Unicode number or '_'.
//   - Where several matches of one step exist, the earliest in the reply
//     wins (re.search semantics; step 4 says so explicitly: "If multiple
//     choice texts appear, the earliest one wins").
//   - Step 2 is case-insensitive as a whole, letter included ("Answer: c"
//     gives C): "the substring answer (case-insensitive)" is what Python's
//     re.IGNORECASE over the whole pattern gives, and it gives a lower-case
//     letter too. So "Answer: a bit unclear" gives A by step 2, as it does
//     in Python.
//   - Letters are upper-case A–D in steps 1, 3 and 5: besides step 2, only
//     step 6 says "(case-insensitive)", and a lower-case "a" is far more
//     often the English article than an answer.
//   - Step 4 matches a choice without its trailing sentence punctuation
//     (. ! ? …): "the full text of one of the four choices" is the answer
//     the choice states, and a reply that says "It is not raining" without
//     the choice's full stop, or inside a longer sentence, still states it.
//   - Whitespace is Unicode white space (unicode.IsSpace), as in Python's
//     str.strip and \s.
func Extract(reply string, choices [4]string) Extraction {
	r := []rune(reply)
	if l, ok := parenthesized(r); ok {
		return Extraction{l, RuleParenthesized}
	}
	if l, ok := answerIs(r); ok {
		return Extraction{l, RuleAnswerIs}
	}
	if l, ok := startsWithLetter(r); ok {
		return Extraction{l, RuleStartsWithLetter}
	}
	if l, ok := choiceText(r, choices); ok {
		return Extraction{l, RuleChoiceText}
	}
	if l, ok := standaloneLetter(r); ok {
		return Extraction{l, RuleStandaloneLetter}
	}
	if l, ok := firstCharacter(r); ok {
		return Extraction{l, RuleFirstCharacter}
	}
	return Extraction{"", RuleParseError}
}

func isLetterAD(c rune) bool { return c >= 'A' && c <= 'D' }

// isWord is Python's \w: alphanumeric (letters and numbers of any script)
// or underscore.
func isWord(c rune) bool { return c == '_' || unicode.IsLetter(c) || unicode.IsNumber(c) }

// isPunct is ASCII punctuation, the "optional punctuation" of step 2
// (':' in "Answer: C", but also '-', '=', '*' in "answer is **B**").
func isPunct(c rune) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// standaloneAt reports whether r[i] is an upper-case A–D with a word
// boundary on both sides.
func standaloneAt(r []rune, i int) bool {
	return i >= 0 && i < len(r) && isLetterAD(r[i]) && aloneAt(r, i)
}

// aloneAt reports whether r[i] has a word boundary on both sides: a
// single-character word.
func aloneAt(r []rune, i int) bool {
	return (i == 0 || !isWord(r[i-1])) && (i+1 == len(r) || !isWord(r[i+1]))
}

// parenthesized is step 1: the earliest literal "(A)".."(D)".
func parenthesized(r []rune) (string, bool) {
	for i := 0; i+2 < len(r); i++ {
		if r[i] == '(' && isLetterAD(r[i+1]) && r[i+2] == ')' {
			return string(r[i+1]), true
		}
	}
	return "", false
}

// answerIs is step 2. "answer" is matched anywhere (the spec says
// substring, so "Answer:" and "answer is" both count) in any case; then
// optional white space and an optional "is" (any case); then any run of
// white space and ASCII punctuation, read as the "optional punctuation"
// (so "Answer: **C**" counts); then a standalone letter a–d or A–D,
// returned in upper case. The earliest "answer" that completes the
// pattern wins.
func answerIs(r []rune) (string, bool) {
	for i := 0; i+6 <= len(r); i++ {
		if !foldEquals(r[i:i+6], "answer") {
			continue
		}
		j := i + 6
		// With "is": "The answer is B".
		k := skip(r, j, unicode.IsSpace)
		if k+2 <= len(r) && foldEquals(r[k:k+2], "is") {
			if l, ok := letterAfterPunct(r, k+2); ok {
				return l, true
			}
		}
		// Without: "Answer: C".
		if l, ok := letterAfterPunct(r, j); ok {
			return l, true
		}
	}
	return "", false
}

func letterAfterPunct(r []rune, j int) (string, bool) {
	k := skip(r, j, func(c rune) bool { return unicode.IsSpace(c) || isPunct(c) })
	if k < len(r) && isLetterAD(unicode.ToUpper(r[k])) && aloneAt(r, k) {
		return string(unicode.ToUpper(r[k])), true
	}
	return "", false
}

// startsWithLetter is step 3. "Space" is read as any white space (a letter
// then a line break is the same shape as a letter then a space); "closing
// bracket" is ')', ']' or '}'. A reply that is a bare letter has nothing
// after it and falls through to step 5, which returns the same letter.
func startsWithLetter(r []rune) (string, bool) {
	k := skip(r, 0, unicode.IsSpace)
	if k+1 >= len(r) || !isLetterAD(r[k]) {
		return "", false
	}
	switch c := r[k+1]; {
	case unicode.IsSpace(c), c == '.', c == ',', c == ')', c == ']', c == '}':
		return string(r[k]), true
	}
	return "", false
}

// choiceText is step 4. Matching is case-insensitive by simple per-letter
// case folding. "Word-boundary aware" is read as: the match may not extend
// a word, i.e. the reply character before the match is not a word
// character when the choice starts with one, and likewise after the match
// when the choice ends with one ("12" is not found in "120"; "3.5" is
// found in "3.5."). The earliest match in the reply wins; when two choices
// match at the same position (one choice a prefix of the other), the
// longer, more specific one wins. Choice texts are trimmed of surrounding
// white space and of trailing sentence punctuation (matchText) before
// matching, so "It is not raining." is found in "It is not raining" and
// in "It is not raining, so the street is dry."
func choiceText(r []rune, choices [4]string) (string, bool) {
	lower := foldRunes(r)
	bestPos, bestLen, best := -1, 0, -1
	for ci, c := range choices {
		pat := foldRunes([]rune(matchText(c)))
		if len(pat) == 0 {
			continue
		}
		if pos := findWord(lower, pat); pos >= 0 && (bestPos < 0 || pos < bestPos || pos == bestPos && len(pat) > bestLen) {
			bestPos, bestLen, best = pos, len(pat), ci
		}
	}
	if best < 0 {
		return "", false
	}
	return Letters[best], true
}

// findWord returns the earliest position of pat in s that respects word
// boundaries at pat's word-character edges, or -1.
func findWord(s, pat []rune) int {
	startsWord, endsWord := isWord(pat[0]), isWord(pat[len(pat)-1])
	for i := 0; i+len(pat) <= len(s); i++ {
		if !equalRunes(s[i:i+len(pat)], pat) {
			continue
		}
		if startsWord && i > 0 && isWord(s[i-1]) {
			continue
		}
		end := i + len(pat)
		if endsWord && end < len(s) && isWord(s[end]) {
			continue
		}
		return i
	}
	return -1
}

// standaloneLetter is step 5: the earliest upper-case A–D that is a whole
// word.
func standaloneLetter(r []rune) (string, bool) {
	for i := range r {
		if standaloneAt(r, i) {
			return string(r[i]), true
		}
	}
	return "", false
}

// firstCharacter is step 6: the first non-white-space character, if it is
// a–d or A–D, whatever follows it ("Berlin" gives B).
func firstCharacter(r []rune) (string, bool) {
	k := skip(r, 0, unicode.IsSpace)
	if k < len(r) {
		if c := unicode.ToUpper(r[k]); isLetterAD(c) {
			return string(c), true
		}
	}
	return "", false
}

func skip(r []rune, i int, f func(rune) bool) int {
	for i < len(r) && f(r[i]) {
		i++
	}
	return i
}

// foldEquals compares runes to an ASCII lower-case word, ignoring case.
func foldEquals(r []rune, word string) bool {
	for i, w := range []rune(word) {
		if unicode.ToLower(r[i]) != w {
			return false
		}
	}
	return true
}

func foldRunes(r []rune) []rune {
	out := make([]rune, len(r))
	for i, c := range r {
		out[i] = unicode.ToLower(c)
	}
	return out
}

func equalRunes(a, b []rune) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
