package featherweight

import (
	"fmt"
	"strings"
)

// ReplyForm is one realistic way a model answers with a given choice.
type ReplyForm struct {
	Name string
	// Reply builds the reply from the choice's letter, its text as written
	// (trimmed) and its text without trailing sentence punctuation.
	Reply func(letter, text, bare string) string
}

// ReplyForms are the replies the reply property asks of every choice of
// every item: the letter in the shapes instruction-tuned models use, and
// the choice text in the shapes base and small chat models use.
var ReplyForms = []ReplyForm{
	{"letter", func(l, _, _ string) string { return l }},
	{"letter-paren-text", func(l, t, _ string) string { return l + ") " + t }},
	{"letter-dot-text", func(l, t, _ string) string { return l + ". " + t }},
	{"answer-is-letter", func(l, _, _ string) string { return "The answer is " + l + "." }},
	{"answer-colon-letter", func(l, _, _ string) string { return "Answer: " + l }},
	{"text", func(_, t, _ string) string { return t }},
	{"text-without-stop", func(_, _, b string) string { return b }},
	{"text-bold", func(_, _, b string) string { return "**" + b + "**" }},
	{"answer-is-text", func(_, _, b string) string { return "The answer is " + b + "." }},
	{"i-think-text", func(_, _, b string) string { return "I think it is " + b + "." }},
}

// replyPrefix is how each style's reply starts: a completion continues
// "Answer:", so the model's first token usually carries a space.
var replyPrefix = map[Style]string{Plain: "", Completion: " "}

// ReplyFailure is one reply that does not extract to the choice it names.
type ReplyFailure struct {
	ID     string
	Line   int
	Style  Style
	Choice int // 0-based index of the choice the reply means
	Form   string
	Reply  string
	Got    Extraction
}

// Want is the letter the reply means.
func (f ReplyFailure) Want() string { return Letters[f.Choice] }

// Misread reports whether the reply extracts to another letter rather
// than to a parse error.
func (f ReplyFailure) Misread() bool { return !f.Got.ParseError() }

func (f ReplyFailure) String() string {
	got := "a parse error"
	if f.Misread() {
		got = f.Got.Letter + " (" + string(f.Got.Rule) + ")"
	}
	return fmt.Sprintf("%s: %s reply %q (%s, choice %s) extracts as %s, want %s", itemWhere(f.ID, f.Line), f.Style, f.Reply, f.Form, f.Want(), got, f.Want())
}

// ReplyCheck is the outcome of the reply property over a set of items.
type ReplyCheck struct {
	// Total counts the distinct replies asked (per item, choice and style).
	Total    int
	Failures []ReplyFailure
}

// Misread counts the failures that extract to a letter the reply did not
// mean; the rest are parse errors.
func (c ReplyCheck) Misread() int {
	n := 0
	for _, f := range c.Failures {
		if f.Misread() {
			n++
		}
	}
	return n
}

// CheckReplies runs the real extraction on every ReplyForms reply for
// every choice of every item under both prompt styles, and returns the
// replies that do not extract to the letter they mean. Identical replies
// for one choice and style are asked once.
func CheckReplies(items []Item) ReplyCheck {
	var c ReplyCheck
	for _, it := range items {
		for ci, raw := range it.Choices {
			text := strings.TrimSpace(raw)
			bare := matchText(raw)
			for _, st := range Styles {
				seen := map[string]bool{}
				for _, f := range ReplyForms {
					reply := replyPrefix[st] + f.Reply(Letters[ci], text, bare)
					if seen[reply] {
						continue
					}
					seen[reply] = true
					c.Total++
					if got := Extract(reply, it.Choices); got.Letter != Letters[ci] {
						c.Failures = append(c.Failures, ReplyFailure{ID: it.ID, Line: it.Line, Style: st, Choice: ci, Form: f.Name, Reply: reply, Got: got})
					}
				}
			}
		}
	}
	return c
}
