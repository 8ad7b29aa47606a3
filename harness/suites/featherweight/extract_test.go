package featherweight

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// france is the spec's own running example: "The capital of France is
// Paris." returns B.
var france = [4]string{"Berlin", "Paris", "Madrid", "Rome"}

func TestExtract(t *testing.T) {
	numbers := [4]string{"12", "120", "21", "1"}
	decimals := [4]string{"3.5", "4.5", "5.5", "6.5"}
	cities := [4]string{"New York", "New York City", "Boston", "Chicago"}
	fruit := [4]string{"apple", "pear", "plum", "fig"}
	sentences := [4]string{"It is not raining.", "It is raining.", "Stop, you might say!", "Why not?"}
	tests := []struct {
		name    string
		reply   string
		choices [4]string
		letter  string
		rule    Rule
	}{
		// The spec's examples, each under the step it names.
		{"spec (B) Paris", "(B) Paris", france, "B", RuleParenthesized},
		{"spec The answer is B", "The answer is B", france, "B", RuleAnswerIs},
		{"spec Answer: C", "Answer: C", france, "C", RuleAnswerIs},
		{"spec A) Berlin...", "A) Berlin...", france, "A", RuleStartsWithLetter},
		{"spec C. The answer is...", "C. The answer is...", france, "C", RuleStartsWithLetter},
		{"spec prose answer", "The capital of France is Paris.", france, "B", RuleChoiceText},
		// "a model that explicitly outputs "A) Berlin" deserves to be scored
		// against A even if "Paris" also appears later in its reply."
		{"spec A) Berlin before Paris", "A) Berlin. No wait, Paris is the capital.", france, "A", RuleStartsWithLetter},

		// Step 1: "(A), (B), (C), or (D) anywhere"; earliest wins; upper case.
		{"parenthesized mid-reply", "I would go with (D) here.", france, "D", RuleParenthesized},
		{"parenthesized earliest of two", "Not (A) but (C)", france, "A", RuleParenthesized},
		{"parenthesized beats answer is", "The answer is B (C)", france, "C", RuleParenthesized},
		{"parenthesized beats choice text", "Paris (C)", france, "C", RuleParenthesized},
		{"parenthesized beats leading letter", "A. I mean (B)", france, "B", RuleParenthesized},
		{"lower-case (b) is not step 1", "(b) Paris", france, "B", RuleChoiceText},
		{"(E) is not a choice", "(E)", france, "", RuleParseError},

		// Step 2: "answer" any case, optional "is", optional punctuation,
		// standalone letter.
		{"answer is upper case", "ANSWER IS D", france, "D", RuleAnswerIs},
		{"answer is with colon", "The answer is: A", france, "A", RuleAnswerIs},
		{"answer dash", "Answer - B.", france, "B", RuleAnswerIs},
		{"answer markdown", "Answer: **C**", france, "C", RuleAnswerIs},
		{"answer newline", "Answer:\nD", france, "D", RuleAnswerIs},
		{"answer glued to the letter", "answerB", france, "A", RuleFirstCharacter},
		{"answer letter not standalone", "My answer is Berlin", france, "A", RuleChoiceText},
		// Step 2's letter is case-insensitive, as Python's re.IGNORECASE
		// over the whole pattern gives for "the substring answer
		// (case-insensitive)".
		{"answer lower-case letter", "the answer is d", france, "D", RuleAnswerIs},
		{"Answer: c is C, not the A of Answer", "Answer: c", france, "C", RuleAnswerIs},
		{"answer lower-case letter in bold", "answer: **b**", france, "B", RuleAnswerIs},
		// re.search(r"answer\s*(?:is)?\s*[^\w\s]*\s*\b([A-D])\b", text, re.I)
		// matches the article too: pinned so the reading is deliberate.
		{"Answer: a bit unclear is A, as in Python", "Answer: a bit unclear", france, "A", RuleAnswerIs},
		{"answer then the article", "I can't answer a question like that", france, "A", RuleAnswerIs},
		{"The answer is a city", "The answer is a city in France, Paris", france, "A", RuleAnswerIs},
		{"lower-case letter glued to a word", "The answer is able to be Paris", france, "B", RuleChoiceText},
		{"lower-case letters outside step 2 stay words", "I think c", france, "", RuleParseError},
		{"second answer completes the pattern", "I can't say the answer. Maybe C, so the answer is D", france, "D", RuleAnswerIs},
		{"answer beats leading letter", "B. Actually the answer is C", france, "C", RuleAnswerIs},
		{"answer beats choice text", "Paris? No, the answer is A", france, "A", RuleAnswerIs},
		{"answers is not answer+letter", "The answers: C", france, "C", RuleStandaloneLetter},
		{"answer isn't", "The answer isn't C", france, "C", RuleStandaloneLetter},

		// Step 3: starts (after whitespace) with A-D then space, '.', ',', or
		// a closing bracket; upper case only.
		{"leading letter comma", "  B, Paris", france, "B", RuleStartsWithLetter},
		{"leading letter bracket", "D]", france, "D", RuleStartsWithLetter},
		{"leading letter brace", "C} done", france, "C", RuleStartsWithLetter},
		{"leading letter newline", "B\nParis", france, "B", RuleStartsWithLetter},
		{"leading letter space then other city", "C Berlin", france, "C", RuleStartsWithLetter},
		{"leading letter colon is not step 3", "B: Berlin", france, "A", RuleChoiceText},
		{"leading lower-case letter is not step 3", "c) Paris", france, "B", RuleChoiceText},
		{"leading letter inside a word", "Berlin", france, "A", RuleChoiceText},
		{"bare letter falls to step 5", "B", france, "B", RuleStandaloneLetter},

		// Step 4: full choice text, case-insensitive, word boundaries,
		// earliest wins.
		{"choice text alone", "Paris", france, "B", RuleChoiceText},
		{"choice text upper case", "PARIS!", france, "B", RuleChoiceText},
		{"earliest choice text wins", "Madrid or Rome", france, "C", RuleChoiceText},
		{"earliest choice text wins reversed", "Rome, not Madrid", france, "D", RuleChoiceText},
		{"choice text inside a word is no match", "Parisian food", france, "", RuleParseError},
		{"number choice needs boundaries", "The result is 120.", numbers, "B", RuleChoiceText},
		{"earliest number", "21, or maybe 12", numbers, "C", RuleChoiceText},
		{"choice ending in non-word char", "It is 4.5.", decimals, "B", RuleChoiceText},
		{"decimal inside a longer number", "14.56", decimals, "", RuleParseError},
		{"longer choice at the same position", "New York City", cities, "B", RuleChoiceText},
		// A choice's trailing sentence punctuation is not needed in the
		// reply: "It is not raining" states the choice "It is not raining."
		{"choice with a stop, reply without", "It is not raining", sentences, "A", RuleChoiceText},
		{"choice with a stop, reply in bold", "**It is not raining**", sentences, "A", RuleChoiceText},
		{"choice with a stop inside a sentence", "It is not raining, so it is dry.", sentences, "A", RuleChoiceText},
		{"choice with a stop, reply with one", "It is raining.", sentences, "B", RuleChoiceText},
		{"choice with ! and ?", "Stop, you might say", sentences, "C", RuleChoiceText},
		{"choice with ?", "well... Why not", sentences, "D", RuleChoiceText},
		{"stripped choice still needs a word boundary", "It is raining hard", sentences, "B", RuleChoiceText},
		{"stripped choice inside a word", "It is rainings", sentences, "", RuleParseError},
		{"punctuation-only choice is kept whole", "Is it ?!", [4]string{"?!", "x", "y", "z"}, "A", RuleChoiceText},
		{"inner full stop is kept", "It is 4.5 now", decimals, "B", RuleChoiceText},
		{"shorter choice alone", "New York, of course", cities, "A", RuleChoiceText},
		{"choice text beats standalone letter", "I pick D: plum", fruit, "C", RuleChoiceText},
		{"choice text beats first character", "a fig", fruit, "D", RuleChoiceText},

		// Step 5: any standalone upper-case A-D, earliest.
		{"standalone letter", "I would pick D", france, "D", RuleStandaloneLetter},
		{"standalone letter with apostrophe", "It's C.", france, "C", RuleStandaloneLetter},
		{"standalone beats first character", "Definitely B!", france, "B", RuleStandaloneLetter},
		{"earliest standalone", "Either C or A", france, "C", RuleStandaloneLetter},
		{"letters inside a word are not standalone", "CD", france, "C", RuleFirstCharacter},
		{"digit touching is not standalone", "A1", france, "A", RuleFirstCharacter},

		// Step 6: first non-whitespace character, case-insensitive.
		{"first character upper", "Bananas", france, "B", RuleFirstCharacter},
		{"first character lower", "  d", france, "D", RuleFirstCharacter},
		{"first character of a word", "cats", france, "C", RuleFirstCharacter},
		{"lower-case article", "a cat", france, "A", RuleFirstCharacter},

		// Step 7: nothing matched.
		{"empty", "", france, "", RuleParseError},
		{"whitespace only", " \n\t", france, "", RuleParseError},
		{"no letter", "I don't know.", france, "", RuleParseError},
		{"other letters", "Eeee", france, "", RuleParseError},
		{"non-ASCII letters are word characters", "éB", france, "", RuleParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.reply, tt.choices)
			assert.Equal(t, Extraction{Letter: tt.letter, Rule: tt.rule}, got, "reply %q", tt.reply)
		})
	}
}

func TestRulesInPriorityOrder(t *testing.T) {
	assert.Equal(t, []Rule{"parenthesized", "answer_is", "starts_with_letter", "choice_text", "standalone_letter", "first_character", "parse_error"}, Rules)
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"(B) Paris", "The answer is B", "Answer: C", "A) Berlin...", "C. The answer is...",
		"The capital of France is Paris.", "A) Berlin. No wait, Paris.", "", " ", "answer", "answer is",
		"(", "(A", "ANSWER: **D**", "Berlin", "é", "\xff\xfe", "a", "New York City", "answer is \xffB",
		"B", " D\n", "(C)", "I pick D because", "\u00a0c", "answer\u0130s B",
	} {
		f.Add(s, "Paris", "Berlin")
	}
	f.Add("12 or 120", "12", "120")
	f.Add("x", "", "  ")
	f.Add("B", "b", "Berlin")
	f.Add("Pick PARIS", " paris ", "Paris, France")
	f.Add("Answer: c", "Paris", "Berlin")
	f.Add("It is not raining", "It is not raining.", "It is raining.")
	f.Add("B", "B.", "?!")
	f.Fuzz(func(t *testing.T, reply, c0, c1 string) {
		choices := [4]string{c0, c1, "Madrid", "Rome"}
		got := Extract(reply, choices)
		if !slices.Contains(Rules, got.Rule) {
			t.Fatalf("Extract(%q) rule %q is not one of the seven steps", reply, got.Rule)
		}
		if again := Extract(reply, choices); again != got {
			t.Fatalf("Extract(%q) is not deterministic: %v then %v", reply, got, again)
		}
		r := []rune(reply)
		first := skip(r, 0, unicode.IsSpace)
		if got.Rule == RuleParseError {
			if got.Letter != "" {
				t.Fatalf("Extract(%q) = parse error with letter %q", reply, got.Letter)
			}
			// Step 6 takes any reply whose first non-space character is a-d.
			if first < len(r) && isLetterAD(unicode.ToUpper(r[first])) {
				t.Fatalf("Extract(%q) = parse error, but the reply starts with %q", reply, r[first])
			}
		} else if !slices.Contains(Letters[:], got.Letter) {
			t.Fatalf("Extract(%q) letter %q is not A-D", reply, got.Letter)
		}

		// The rule that fired saw its letter where the rule looks.
		switch l := got.Letter; got.Rule {
		case RuleParenthesized:
			if !strings.Contains(reply, "("+l+")") {
				t.Fatalf("Extract(%q) = %s by %s, but the reply has no (%s)", reply, l, got.Rule, l)
			}
		case RuleAnswerIs:
			if !strings.ContainsAny(reply, l+strings.ToLower(l)) {
				t.Fatalf("Extract(%q) = %s by %s, but the reply has no %s in either case", reply, l, got.Rule, l)
			}
		case RuleStandaloneLetter:
			if !strings.Contains(reply, l) {
				t.Fatalf("Extract(%q) = %s by %s, but the reply has no %s", reply, l, got.Rule, l)
			}
		case RuleStartsWithLetter:
			if first >= len(r) || string(r[first]) != l {
				t.Fatalf("Extract(%q) = %s by %s, but the reply does not start with it", reply, l, got.Rule)
			}
		case RuleChoiceText:
			c := choices[slices.Index(Letters[:], l)]
			if strings.TrimSpace(c) == "" || !strings.Contains(string(foldRunes(r)), string(foldRunes([]rune(matchText(c))))) {
				t.Fatalf("Extract(%q) = %s by %s, but choice %q is not in the reply", reply, l, got.Rule, c)
			}
		case RuleFirstCharacter:
			if first >= len(r) || string(unicode.ToUpper(r[first])) != l {
				t.Fatalf("Extract(%q) = %s by %s, but the reply starts with something else", reply, l, got.Rule)
			}
		}

		// A reply that is exactly a letter, bare or in brackets or followed
		// by white space, is that letter. A bare letter goes through step 4
		// first, so it only holds when no choice is that letter's text.
		for _, l := range Letters {
			for _, tc := range []struct {
				reply string
				rule  Rule
			}{{"(" + l + ")", RuleParenthesized}, {"\t" + l + " ", RuleStartsWithLetter}, {l + ".\n", RuleStartsWithLetter}} {
				if e := Extract(tc.reply, choices); e != (Extraction{l, tc.rule}) {
					t.Fatalf("Extract(%q) = %v, want %s by %s", tc.reply, e, l, tc.rule)
				}
			}
			letterChoice := false
			for _, c := range choices {
				letterChoice = letterChoice || strings.EqualFold(matchText(c), l)
			}
			if e := Extract(l, choices); !letterChoice && e != (Extraction{l, RuleStandaloneLetter}) {
				t.Fatalf("Extract(%q) = %v, want %s by %s", l, e, l, RuleStandaloneLetter)
			}
		}
	})
}

// BenchmarkExtract measures extraction on replies that stop at each step.
func BenchmarkExtract(b *testing.B) {
	replies := []string{"(B) Paris", "The answer is B", "A) Berlin...", "The capital of France is Paris.", "I would pick D", "Bananas", "I really do not know which one it could be."}
	for b.Loop() {
		for _, r := range replies {
			Extract(r, france)
		}
	}
}
