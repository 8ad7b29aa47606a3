package featherweight

import (
	"errors"
	"fmt"
	"github.com/feather-eval/feather/internal/plural"
	"math/big"
	"strings"
	"unicode"
)

// Problem is one lint finding: an item whose text would make a correct
// prose reply extract as the wrong letter or as a parse error.
type Problem struct {
	ID   string `json:"id"`
	Line int    `json:"line,omitempty"`
	// Field is the choice, "choices[i]" (0-based, as in the JSON) with
	// its letter, e.g. "choices[2] (C)": every check is on a choice.
	Field string `json:"field"`
	// Rule is a short stable name for the check (see the Lint* constants).
	Rule string `json:"rule"`
	// Message says what is wrong and how to fix it.
	Message string `json:"message"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", itemWhere(p.ID, p.Line), p.Field, p.Message)
}

// itemWhere names an item in a lint or reply message: "line 7, q01", or
// the id alone when the item's line is unknown.
func itemWhere(id string, line int) string {
	if line > 0 {
		return fmt.Sprintf("line %d, %s", line, id)
	}
	return id
}

// Lint rule names.
const (
	LintFunctionWord   = "function-word"
	LintTrailingPunct  = "trailing-punctuation"
	LintInQuestion     = "choice-in-question"
	LintInChoice       = "choice-in-choice"
	LintLeadingLetter  = "leading-letter"
	LintNumberQuestion = "number-in-question"
)

// FunctionWords are the words that no choice may be on its own: articles,
// pronouns, prepositions, conjunctions, auxiliaries, negation and yes/no.
// Nearly every prose reply contains some of them ("The answer is runs."),
// so step 4 of the extraction, which returns the earliest choice text in a
// reply, would read such a choice out of almost any answer. The list is
// fixed so that lint results are reproducible; matching ignores case.
var FunctionWords = []string{
	"a", "about", "all", "am", "an", "and", "any", "are", "as", "at",
	"be", "been", "being", "both", "but", "by",
	"can", "could", "did", "do", "does", "each", "either", "for", "from",
	"had", "has", "have", "he", "her", "here", "him", "his",
	"i", "if", "in", "into", "is", "it", "its", "may", "me", "might", "must", "my",
	"neither", "no", "none", "nor", "not", "of", "off", "on", "onto", "or", "our", "out", "over",
	"shall", "she", "should", "so", "some", "than", "that", "the", "their", "them", "then",
	"there", "these", "they", "this", "those", "to", "under", "up", "us",
	"was", "we", "were", "what", "which", "who", "whom", "whose", "will", "with", "would",
	"yes", "you", "your",
}

var functionWord = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range FunctionWords {
		m[w] = true
	}
	return m
}()

// sentencePunct is the sentence punctuation that step 4 ignores at the end
// of a choice and that the lint refuses there.
const sentencePunct = ".!?…"

// matchText is the part of a choice that step 4 looks for in a reply: the
// text without surrounding white space and without trailing sentence
// punctuation (all of it, if that would leave nothing).
func matchText(choice string) string {
	c := strings.TrimSpace(choice)
	if t := strings.TrimRightFunc(strings.TrimRight(c, sentencePunct), unicode.IsSpace); t != "" {
		return t
	}
	return c
}

// containsWord reports whether step 4 would find text in s: a
// case-insensitive match that does not extend a word at either end.
func containsWord(s, text string) bool {
	pat := foldRunes([]rune(text))
	return len(pat) > 0 && findWord(foldRunes([]rune(s)), pat) >= 0
}

// Lint checks items for text that defeats the letter extraction, so that
// correct prose answers are scored as meant. Each problem names the item,
// the field and the fix. The checks:
//   - a choice that is one of FunctionWords;
//   - a choice ending in sentence punctuation (. ! ? …);
//   - a choice that occurs as a whole word, ignoring case, in the question
//     or in another choice (a reply restating the question, or naming the
//     longer choice, contains it);
//   - a choice whose first word is a standalone letter A–D in any case
//     ("A dog", "c. 1900"), which steps 2 and 3 read as that letter;
//   - a choice that starts with a number equal to a number in the question
//     ("56 divided by 7 is 8" names the "7" choice first).
func Lint(items []Item) []Problem {
	var out []Problem
	for _, it := range items {
		out = append(out, lintItem(it)...)
	}
	return out
}

func lintItem(it Item) []Problem {
	var out []Problem
	add := func(i int, rule, format string, args ...any) {
		out = append(out, Problem{ID: it.ID, Line: it.Line, Field: fmt.Sprintf("choices[%d] (%s)", i, Letters[i]), Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	qNumbers := numbersIn(it.Question)
	for i, raw := range it.Choices {
		c := strings.TrimSpace(raw)
		m := matchText(raw)
		if functionWord[strings.ToLower(m)] {
			add(i, LintFunctionWord, "%q is a function word, which almost any prose reply contains (\"The answer is ...\"); use a content word or phrase instead", c)
		}
		if m != c {
			add(i, LintTrailingPunct, "%q ends in sentence punctuation; drop the final %q so a reply that ends its sentence differently still matches", c, strings.TrimPrefix(c, m))
		}
		if w, ok := leadingLetter(m); ok {
			add(i, LintLeadingLetter, "%q starts with the standalone word %q, which extraction reads as the letter %s (\"The answer is %s\"); reword it so it does not start with a single letter A-D", c, w, strings.ToUpper(w), m)
		}
		numberHit := false
		if n, ok := leadingNumber(m); ok {
			for _, q := range qNumbers {
				if q.value.Cmp(n.value) == 0 {
					add(i, LintNumberQuestion, "%q equals the number %q in the question, so a reply that restates the question names this choice first; change the question's number or this distractor", c, q.text)
					numberHit = true
					break
				}
			}
		}
		if !numberHit && containsWord(it.Question, m) {
			add(i, LintInQuestion, "%q occurs as a whole word in the question, so a reply that restates the question names this choice; reword the question or the choice", c)
		}
		for j, other := range it.Choices {
			if j != i && !strings.EqualFold(matchText(other), m) && containsWord(matchText(other), m) {
				add(i, LintInChoice, "%q occurs as a whole word in choice %s %q; make the choices share no whole-word text", c, Letters[j], strings.TrimSpace(other))
			}
		}
	}
	return out
}

// leadingLetter returns the first word of s when it is a single letter
// a-d or A-D standing alone (followed by a non-word character or nothing).
func leadingLetter(s string) (string, bool) {
	r := []rune(s)
	if len(r) == 0 || !isLetterAD(unicode.ToUpper(r[0])) || !aloneAt(r, 0) {
		return "", false
	}
	return string(r[0]), true
}

// number is a number found in text, with its exact value.
type number struct {
	text  string
	value *big.Rat
}

// numberWords are the number words the lint reads as numbers.
var numberWords = map[string]int64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000,
}

// numbersIn lists the numbers in s: digit runs with optional thousands
// commas, a decimal part or a fraction ("1,000", "3.14", "1/4"), and the
// number words zero to twenty, the tens, hundred and thousand.
func numbersIn(s string) []number {
	var out []number
	r := []rune(s)
	for i := 0; i < len(r); {
		if i > 0 && isWord(r[i-1]) || !isWord(r[i]) {
			i++
			continue
		}
		if n, end, ok := numberAt(r, i); ok {
			out = append(out, n)
			i = end
			continue
		}
		for i < len(r) && isWord(r[i]) {
			i++
		}
	}
	return out
}

// leadingNumber is the number a choice starts with, if any.
func leadingNumber(s string) (number, bool) {
	n, _, ok := numberAt([]rune(s), 0)
	return n, ok
}

// numberAt reads a number starting at r[i], at the start of a word; end is
// just past it.
func numberAt(r []rune, i int) (number, int, bool) {
	j := i
	for j < len(r) && isWord(r[j]) && !unicode.IsDigit(r[j]) {
		j++
	}
	if j > i {
		// A word: a number word only if the whole word is one.
		if j < len(r) && isWord(r[j]) {
			return number{}, 0, false
		}
		w := strings.ToLower(string(r[i:j]))
		if v, ok := numberWords[w]; ok {
			return number{text: string(r[i:j]), value: new(big.Rat).SetInt64(v)}, j, true
		}
		return number{}, 0, false
	}
	for j < len(r) && unicode.IsDigit(r[j]) {
		j++
	}
	if j == i {
		return number{}, 0, false
	}
	// Thousands groups, then a decimal part or a denominator, each only
	// when digits follow the separator ("8." ends a sentence).
	digitsAfter := func(k int) int {
		e := k
		for e < len(r) && unicode.IsDigit(r[e]) {
			e++
		}
		return e
	}
	for j+1 < len(r) && r[j] == ',' && digitsAfter(j+1)-(j+1) == 3 {
		j = digitsAfter(j + 1)
	}
	if j+1 < len(r) && (r[j] == '.' || r[j] == '/') && digitsAfter(j+1) > j+1 {
		j = digitsAfter(j + 1)
	}
	text := string(r[i:j])
	v, ok := new(big.Rat).SetString(strings.ReplaceAll(text, ",", ""))
	if !ok {
		return number{}, 0, false
	}
	return number{text: text, value: v}, j, true
}

// CheckContent runs Lint and the reply property (CheckReplies) over a
// loaded file. The error lists every problem as file:line: id, then a
// count; nil when the file is clean. The ReplyCheck is returned either way
// for its counts.
func CheckContent(ds *Dataset) (ReplyCheck, error) {
	name := ds.Info.File
	var lines []string
	problems := Lint(ds.Items)
	for _, p := range problems {
		lines = append(lines, fmt.Sprintf("%s:%d: %s %s: %s", name, p.Line, p.ID, p.Field, p.Message))
	}
	rc := CheckReplies(ds.Items)
	for _, f := range rc.Failures {
		got := "a parse error"
		if f.Misread() {
			got = f.Got.Letter + " (step " + string(f.Got.Rule) + ")"
		}
		lines = append(lines, fmt.Sprintf("%s:%d: %s choices[%d] (%s): the %s reply %q extracts as %s, not %s",
			name, f.Line, f.ID, f.Choice, f.Want(), f.Style, f.Reply, got, f.Want()))
	}
	if len(lines) == 0 {
		return rc, nil
	}
	lines = append(lines, fmt.Sprintf("%s: %s; %d of %d realistic replies extract to the wrong letter (%d) or to nothing (%d); reword the items named above and rerun feather validate -featherweight %s",
		name, plural.Of(len(problems), "lint problem"), len(rc.Failures), rc.Total, rc.Misread(), len(rc.Failures)-rc.Misread(), name))
	return rc, errors.New(strings.Join(lines, "\n"))
}
