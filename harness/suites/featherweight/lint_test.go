package featherweight

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// lintFinding is a problem without its message: the rule and the field.
type lintFinding struct {
	Field string
	Rule  string
}

func TestLint(t *testing.T) {
	tests := []struct {
		name     string
		question string
		choices  [4]string
		want     []lintFinding
	}{
		{"clean", "What is the capital of France?", [4]string{"Berlin", "Paris", "Madrid", "Rome"}, nil},

		// Function words: "The answer is runs." extracts as the "the"
		// choice, because step 4 finds "The" first.
		{"article choice", "Which word is the verb?", [4]string{"dog", "runs", "fast", "the"},
			[]lintFinding{{"choices[3] (D)", LintFunctionWord}, {"choices[3] (D)", LintInQuestion}}},
		{"function word in any case", "Which word fills the gap?", [4]string{"Are", "IS", "cat", "dog"},
			[]lintFinding{{"choices[0] (A)", LintFunctionWord}, {"choices[1] (B)", LintFunctionWord}}},
		{"yes and no", "Can a trout walk?", [4]string{"yes", "No", "swim", "fly"},
			[]lintFinding{{"choices[0] (A)", LintFunctionWord}, {"choices[1] (B)", LintFunctionWord}}},
		{"phrase with function words is fine", "Which is longest?", [4]string{"the ruler", "the pencil", "none of them", "theory"}, nil},

		// Trailing sentence punctuation: "It is not raining" without the
		// stop was a parse error.
		{"full stop", "What follows?", [4]string{"It is not raining.", "It is snowing", "Why not?", "Stop!"},
			[]lintFinding{{"choices[0] (A)", LintTrailingPunct}, {"choices[2] (C)", LintTrailingPunct}, {"choices[3] (D)", LintTrailingPunct}}},
		{"ellipsis", "How does the story finish?", [4]string{"and then…", "fin", "end", "stop"},
			[]lintFinding{{"choices[0] (A)", LintTrailingPunct}}},
		{"inner full stops are fine", "Which is pi to two places?", [4]string{"3.14", "3.41", "e.g. seven", "2.72"}, nil},
		{"function word with a stop", "Which word?", [4]string{"is.", "cat", "dog", "cow"},
			[]lintFinding{{"choices[0] (A)", LintFunctionWord}, {"choices[0] (A)", LintTrailingPunct}}},

		// A choice inside the question: a reply that restates the question
		// names it.
		{"choice in the question", "Which animal, a cat or a dog, barks?", [4]string{"cat", "dog", "fish", "bird"},
			[]lintFinding{{"choices[0] (A)", LintInQuestion}, {"choices[1] (B)", LintInQuestion}}},
		{"whole word only", "Which of these catches mice?", [4]string{"cat", "dogs", "mouse", "owl"}, nil},
		{"case-insensitive", "Is a CAT a pet?", [4]string{"cat", "dog", "cow", "owl"},
			[]lintFinding{{"choices[0] (A)", LintInQuestion}}},
		{"phrase before an apostrophe", "She baked a cake for her brother's birthday. Who was it for?", [4]string{"her brother", "her aunt", "her mother", "her friend"},
			[]lintFinding{{"choices[0] (A)", LintInQuestion}}},
		{"without its stop", "If it is raining, the street is wet. What follows?", [4]string{"It is raining.", "It is dry", "It is snowing", "It is cold"},
			[]lintFinding{{"choices[0] (A)", LintTrailingPunct}, {"choices[0] (A)", LintInQuestion}}},
		{"digits inside a word", "What is H2O2?", [4]string{"H2O", "water", "salt", "acid"}, nil},

		// A choice inside another choice.
		{"choice in another choice", "How warm is it?", [4]string{"hot", "very hot", "cold", "mild"},
			[]lintFinding{{"choices[0] (A)", LintInChoice}}},
		{"choice in two others", "Which city?", [4]string{"York", "New York", "York City", "Leeds"},
			[]lintFinding{{"choices[0] (A)", LintInChoice}, {"choices[0] (A)", LintInChoice}}},
		{"prefix of a longer word is fine", "Which formula?", [4]string{"H2O", "H2O2", "CO2", "NaCl"}, nil},

		// A choice starting with a standalone letter A-D: "The answer is a
		// pillow" is read as A by step 2, "A pillow" by step 3.
		{"article A", "What keeps you dry?", [4]string{"A coat", "an umbrella", "a pillow", "sunglasses"},
			[]lintFinding{{"choices[0] (A)", LintLeadingLetter}, {"choices[2] (C)", LintLeadingLetter}}},
		{"letter then punctuation", "Which?", [4]string{"D-Day", "C. difficile", "B12", "E. coli"},
			[]lintFinding{{"choices[0] (A)", LintLeadingLetter}, {"choices[1] (B)", LintLeadingLetter}}},
		{"bare letter", "Which letter comes first?", [4]string{"b", "x", "y", "z"},
			[]lintFinding{{"choices[0] (A)", LintLeadingLetter}}},
		{"longer words are fine", "Which?", [4]string{"Apple", "Dates", "Cherry", "Banana"}, nil},

		// A number in the question equal to a choice: "56 divided by 7 is
		// 8" names the "7" choice first.
		{"number in the question", "What is 56 divided by 7?", [4]string{"6", "8", "7", "9"},
			[]lintFinding{{"choices[2] (C)", LintNumberQuestion}}},
		{"not part of a larger number", "What is 56 divided by 7?", [4]string{"5", "8", "6", "9"}, nil},
		{"equal value, other spelling", "Half of 30.0 is what? A dozen is 12. And 1,000 is?", [4]string{"30", "twelve", "1000", "15"},
			[]lintFinding{{"choices[0] (A)", LintNumberQuestion}, {"choices[1] (B)", LintNumberQuestion}, {"choices[2] (C)", LintNumberQuestion}}},
		{"number words in the question", "A farmer had twelve sheep and lost three.", [4]string{"9", "12", "3 sheep", "fifteen"},
			[]lintFinding{{"choices[1] (B)", LintNumberQuestion}, {"choices[2] (C)", LintNumberQuestion}}},
		{"fractions compare by value", "What is 1/4 + 1/4?", [4]string{"2/8", "1/2", "1/3", "1/16"},
			[]lintFinding{{"choices[0] (A)", LintNumberQuestion}}},
		{"a sentence's full stop is not a decimal point", "The total is 8. What was added?", [4]string{"8", "4", "2", "6"},
			[]lintFinding{{"choices[0] (A)", LintNumberQuestion}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := Lint([]Item{{ID: "q01", Question: tt.question, Choices: tt.choices, Line: 7}})
			var got []lintFinding
			for _, p := range ps {
				assert.Equal(t, "q01", p.ID)
				assert.Equal(t, 7, p.Line)
				got = append(got, lintFinding{p.Field, p.Rule})
			}
			assert.Equal(t, tt.want, got, "%v", ps)
		})
	}
}

// TestLintMessages pins the text users read: the item, the field, what is
// wrong and the fix.
func TestLintMessages(t *testing.T) {
	ps := Lint([]Item{
		{ID: "lan02", Line: 43, Question: `Which word is the verb in "The dog runs"?`, Choices: [4]string{"dog", "runs", "cat", "the"}},
		{ID: "log03", Question: "What can you conclude?", Choices: [4]string{"It is not raining.", "A storm", "hot", "very hot"}},
		{ID: "ari04", Line: 25, Question: "What is 56 divided by 7?", Choices: [4]string{"6", "8", "7", "9"}},
	})
	var lines []string
	for _, p := range ps {
		lines = append(lines, p.String())
	}
	assert.Equal(t, []string{
		`line 43, lan02: choices[0] (A): "dog" occurs as a whole word in the question, so a reply that restates the question names this choice; reword the question or the choice`,
		`line 43, lan02: choices[1] (B): "runs" occurs as a whole word in the question, so a reply that restates the question names this choice; reword the question or the choice`,
		`line 43, lan02: choices[3] (D): "the" is a function word, which almost any prose reply contains ("The answer is ..."); use a content word or phrase instead`,
		`line 43, lan02: choices[3] (D): "the" occurs as a whole word in the question, so a reply that restates the question names this choice; reword the question or the choice`,
		`log03: choices[0] (A): "It is not raining." ends in sentence punctuation; drop the final "." so a reply that ends its sentence differently still matches`,
		`log03: choices[1] (B): "A storm" starts with the standalone word "A", which extraction reads as the letter A ("The answer is A storm"); reword it so it does not start with a single letter A-D`,
		`log03: choices[2] (C): "hot" occurs as a whole word in choice D "very hot"; make the choices share no whole-word text`,
		`line 25, ari04: choices[2] (C): "7" equals the number "7" in the question, so a reply that restates the question names this choice first; change the question's number or this distractor`,
	}, lines)
}

func TestFunctionWordsSortedAndLower(t *testing.T) {
	for i, w := range FunctionWords {
		assert.Regexp(t, `^[a-z]+$`, w)
		if i > 0 {
			assert.Less(t, FunctionWords[i-1], w, "keep the list sorted and free of duplicates")
		}
	}
}

// TestShippedDataLint holds the shipped question file to the lint.
func TestShippedDataLint(t *testing.T) {
	for _, p := range Lint(shippedData(t).Items) {
		t.Error(p)
	}
}
