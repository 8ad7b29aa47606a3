// Package audit checks item sets for shortcuts: heuristic "models" that
// never read the question as a person would — the longest choice, the place
// mentioned last, the most word overlap, a fixed position — answer every
// item through a suite's real scoring path, and the table of their scores
// shows which cue gives answers away. A heuristic is an ordinary lm.Scorer
// (μBench) or lm.Generator (Featherweight), so chance normalisation, pair
// scoring, letter extraction and every other rule of the suite apply to it
// exactly as to a model.
package audit

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokenizer is what token-length heuristics need; *tokenizer.Tokenizer
// satisfies it.
type Tokenizer interface {
	Encode(text string, addSpecialTokens bool) []int
}

// Heuristic is one shortcut rule. Prefer rates every choice of an item
// given the item's context (the passage and question, without the
// choices); the highest-rated choice is the heuristic's answer, and a tie
// goes to the earliest choice, as the suites' argmax and a reader scanning
// from the top both do.
type Heuristic struct {
	Name   string
	About  string
	Prefer func(context string, choices []string) []float64
}

// Pick is the heuristic's answer: the first choice with the highest rating.
func (h Heuristic) Pick(context string, choices []string) int {
	best := 0
	r := h.Prefer(context, choices)
	for i := 1; i < len(r); i++ {
		if r[i] > r[best] {
			best = i
		}
	}
	return best
}

// Heuristics are the audit's rules in table order. With a tokenizer the
// two token-length rules are added, measured on the choice as the model
// sees it (after a space).
func Heuristics(tok Tokenizer) []Heuristic {
	hs := []Heuristic{
		{"longest", "the choice with the most characters", rate(func(_ string, c string) float64 { return chars(c) })},
		{"shortest", "the choice with the fewest characters", rate(func(_ string, c string) float64 { return -chars(c) })},
	}
	if tok != nil {
		tokens := func(c string) float64 { return float64(len(tok.Encode(" "+c, false))) }
		hs = append(hs,
			Heuristic{"longest-tok", "the choice with the most tokens", rate(func(_ string, c string) float64 { return tokens(c) })},
			Heuristic{"shortest-tok", "the choice with the fewest tokens", rate(func(_ string, c string) float64 { return -tokens(c) })},
		)
	}
	return append(hs,
		Heuristic{"last-mention", "the choice whose text occurs latest in the context", rate(lastMention)},
		Heuristic{"first-mention", "the choice whose text occurs earliest in the context", rate(firstMention)},
		Heuristic{"most-overlap", "the choice sharing the most distinct words with the context", rate(overlap)},
		Heuristic{"least-overlap", "the choice sharing the fewest distinct words with the context", rate(func(ctx, c string) float64 { return -overlap(ctx, c) })},
		Heuristic{"first-pos", "always the first choice", position(false)},
		Heuristic{"last-pos", "always the last choice", position(true)},
	)
}

// rate applies a per-choice rating to every choice.
func rate(f func(context, choice string) float64) func(string, []string) []float64 {
	return func(ctx string, choices []string) []float64 {
		out := make([]float64, len(choices))
		for i, c := range choices {
			out[i] = f(ctx, c)
		}
		return out
	}
}

func position(last bool) func(string, []string) []float64 {
	return func(_ string, choices []string) []float64 {
		out := make([]float64, len(choices))
		for i := range out {
			out[i] = float64(i)
			if !last {
				out[i] = -out[i]
			}
		}
		return out
	}
}

func chars(s string) float64 { return float64(utf8.RuneCountInString(s)) }

// mentions returns the byte offsets where the choice occurs in the context
// as whole words, case-insensitively, with the choice's own end
// punctuation ignored ("box." is mentioned by "in the box and").
func mentions(context, choice string) []int {
	needle := strings.ToLower(strings.TrimFunc(choice, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) }))
	if needle == "" {
		return nil
	}
	hay := strings.ToLower(context)
	var at []int
	for from := 0; from <= len(hay)-len(needle); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			break
		}
		i += from
		if boundary(hay, i-1, true) && boundary(hay, i+len(needle), false) {
			at = append(at, i)
		}
		from = i + 1
	}
	return at
}

// boundary reports whether the rune ending before (before=true) or
// starting at byte i is not part of a word.
func boundary(s string, i int, before bool) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return !isWordRune(r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// notMentioned rates a choice absent from the context below every present one.
const notMentioned = math.MinInt32

func lastMention(ctx, c string) float64 {
	at := mentions(ctx, c)
	if len(at) == 0 {
		return notMentioned
	}
	return float64(at[len(at)-1])
}

func firstMention(ctx, c string) float64 {
	at := mentions(ctx, c)
	if len(at) == 0 {
		return notMentioned
	}
	return -float64(at[0])
}

// words is the set of lower-cased words (letters and digits) of s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWordRune(r) }) {
		out[w] = true
	}
	return out
}

// overlap counts the choice's distinct words that occur in the context.
func overlap(ctx, c string) float64 {
	cw := words(ctx)
	n := 0
	for w := range words(c) {
		if cw[w] {
			n++
		}
	}
	return float64(n)
}
