package featherweight

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReplyForms pins the realistic replies asked of each choice.
func TestReplyForms(t *testing.T) {
	var got []string
	for _, f := range ReplyForms {
		got = append(got, f.Name+": "+f.Reply("B", "It is not raining.", "It is not raining"))
	}
	assert.Equal(t, []string{
		"letter: B",
		"letter-paren-text: B) It is not raining.",
		"letter-dot-text: B. It is not raining.",
		"answer-is-letter: The answer is B.",
		"answer-colon-letter: Answer: B",
		"text: It is not raining.",
		"text-without-stop: It is not raining",
		"text-bold: **It is not raining**",
		"answer-is-text: The answer is It is not raining.",
		"i-think-text: I think it is It is not raining.",
	}, got)
}

// TestCheckReplies runs the property on items written the way issue
// reports found them failing, and pins every failure.
func TestCheckReplies(t *testing.T) {
	items := []Item{
		// Clean: no reply is misread.
		{ID: "geo01", Line: 2, Question: "Which city is the capital of Japan?", Choices: [4]string{"Osaka", "Tokyo", "Kyoto", "Nagoya"}, Answer: 1},
		// A function-word choice: "The answer is runs." names "the" first.
		{ID: "lan02", Line: 3, Question: "Which of these words is a verb?", Choices: [4]string{"dog", "runs", "fast", "the"}, Answer: 1},
		// A choice starting with the article "a": step 2 reads it as A.
		{ID: "com01", Line: 4, Question: "What keeps you dry in the rain?", Choices: [4]string{"umbrella", "a pillow", "sunglasses", "fan"}, Answer: 0},
	}
	c := CheckReplies(items)
	// 12 choices × 2 styles × 9 distinct replies (no choice ends in a stop,
	// so "text" and "text-without-stop" are one reply).
	assert.Equal(t, 216, c.Total)
	var got []string
	for _, f := range c.Failures {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		`line 3, lan02: plain reply "The answer is dog." (answer-is-text, choice A) extracts as D (choice_text), want A`,
		`line 3, lan02: completion reply " The answer is dog." (answer-is-text, choice A) extracts as D (choice_text), want A`,
		`line 3, lan02: plain reply "The answer is runs." (answer-is-text, choice B) extracts as D (choice_text), want B`,
		`line 3, lan02: completion reply " The answer is runs." (answer-is-text, choice B) extracts as D (choice_text), want B`,
		`line 3, lan02: plain reply "The answer is fast." (answer-is-text, choice C) extracts as D (choice_text), want C`,
		`line 3, lan02: completion reply " The answer is fast." (answer-is-text, choice C) extracts as D (choice_text), want C`,
		`line 4, com01: plain reply "The answer is a pillow." (answer-is-text, choice B) extracts as A (answer_is), want B`,
		`line 4, com01: completion reply " The answer is a pillow." (answer-is-text, choice B) extracts as A (answer_is), want B`,
	}, got)
	assert.Equal(t, 8, c.Misread())
}

// TestReplyFailureParseError: a reply that extracts to nothing is a
// failure too, reported as a parse error and not counted as a misread.
func TestReplyFailureParseError(t *testing.T) {
	f := ReplyFailure{ID: "q", Style: Plain, Choice: 2, Form: "text", Reply: "Oslo", Got: Extraction{Rule: RuleParseError}}
	assert.False(t, f.Misread())
	assert.Equal(t, `q: plain reply "Oslo" (text, choice C) extracts as a parse error, want C`, f.String())
	assert.Equal(t, 0, ReplyCheck{Total: 1, Failures: []ReplyFailure{f}}.Misread())
}

// TestShippedDataReplies holds the shipped question file to the reply
// property: every realistic reply for every choice extracts to the letter
// it means, under both prompt styles.
func TestShippedDataReplies(t *testing.T) {
	c := CheckReplies(shippedData(t).Items)
	// 100 items × 4 choices × 2 styles × 9 distinct replies: no shipped
	// choice ends in a stop.
	assert.Equal(t, 7200, c.Total)
	for _, f := range c.Failures {
		t.Error(f)
	}
}
