package checkers

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// NegatedCues is the pattern "unless": "negated" stands for: words that
// mark a sentence as saying what not to do, or as warning about what it
// names, rather than doing it. A forbidden term in such a sentence ("no
// fish sauce", "check the label: some pastes contain shrimp", "red flags:
// 'claim today'", "an instruction I ignored") is not a violation.
const NegatedCues = `(?i)(?<![\w'])(?:no(?!\s+(?:need|more|less|longer|doubt|matter|problem|worries|fuss|time)\b)|` +
	`not(?!\s+(?:only|just|too|quite|much)\b)|none|never|neither|nor|without|instead|rather than|except|unless|` +
	`avoid\w*|don't|do not|doesn't|does not|didn't|did not|isn't|is not|aren't|are not|wasn't|won't|will not|` +
	`can't|cannot|shouldn't|should not|mustn't|must not|` +
	`skip\w*|omit\w*|leave (?:it |them )?out|left out|leaving out|exclud\w*|swap\w*|substitut\w*|replac\w*|` +
	`\w+-free|free (?:of|from)|` +
	`(?:check|read) (?:the |your |for )?labels?|(?:may|might|can|could|often|sometimes|usually) (?:contain|include)s?|` +
	`(?:most|many|some|several|a few)(?: \w+){0,3} (?:contain|include|use)s?|` +
	`beware|watch out|look out|caution|warning|warn\w*|careful|red flags?|warning signs?|scams?|suspicious|phishing|` +
	`ignor\w*|disregard\w*|refus\w*|declin\w*)(?![\w'])`

var negatedRE = mustCompilePython(NegatedCues)

// mustCompilePython is CompilePython for patterns written in the code.
func mustCompilePython(p string) *regexp2.Regexp {
	re, err := CompilePython(p)
	if err != nil {
		panic(err)
	}
	return re
}

// unlessRule forgives a forbidden match whose sentence (or, for a list item
// or table row, whose lead-in line or table header) matches a pattern.
type unlessRule struct {
	re  *regexp2.Regexp
	src string // "negated" or the pattern, for details
}

// readUnless reads the optional "unless" field.
func readUnless(s *Spec) *unlessRule {
	var src string
	if !s.Decode("unless", &src) {
		return nil
	}
	if src == "negated" {
		return &unlessRule{re: negatedRE, src: "negated"}
	}
	if strings.TrimSpace(src) == "" {
		s.Errorf("unless", `is empty; use "negated" (the built-in negation and warning cues) or a regular expression`)
		return nil
	}
	re, err := CompilePython(src)
	if err != nil {
		s.Errorf("unless", `invalid regex: %v (or use "negated" for the built-in negation and warning cues)`, err)
		return nil
	}
	return &unlessRule{re: re, src: src}
}

func (u *unlessRule) String() string {
	if u.src == "negated" {
		return "the negated cues"
	}
	return "unless " + quoteRE(u.src)
}

// forgives reports whether the match at [off, off+n) of d.Text sits in
// context that the rule forgives, and the cue that forgave it.
func (u *unlessRule) forgives(d *scoped, off, n int) (bool, string, error) {
	if u == nil {
		return false, "", nil
	}
	m, err := u.re.FindStringMatch(inlinePlain(matchContext(d, off, n)))
	if err != nil {
		return false, "", fmt.Errorf("unless %s: %w", u.String(), err)
	}
	if m == nil {
		return false, "", nil
	}
	return true, m.String(), nil
}

// forgivenNote names a forgiven match, where it is and the cue that forgave
// it: `"fish sauce" on line 4 (in "…"; cue "check the label")`.
func forgivenNote(text, where, cue string) string {
	return fmt.Sprintf("%q %s; cue %q)", text, strings.TrimSuffix(where, ")"), clip(cue, 40))
}

// matchContext is the sentence holding a match, plus, for a list item or a
// table row, the line that introduces it (a heading, a label, a line ending
// in ':') and a table's header row.
func matchContext(d *scoped, off, n int) string {
	d.load(true)
	i, within := d.at(off)
	if i < 0 {
		return sentenceAround(d.Text, off, off+n)
	}
	l := d.all[i]
	ctx := sentenceAround(d.lineText(l), within, min(within+n, len(d.lineText(l))))
	if l.Item || l.Cells != nil {
		ctx += "\n" + leadIn(d.all, i)
	}
	return ctx
}

// leadIn walks up from a list item or table row past its sibling items,
// rows and blank lines to the line that introduces them: a heading, a
// label, or any line ending in ':'. A table's header row comes along.
func leadIn(all []Line, i int) string {
	var parts []string
	for j := i - 1; j >= 0; j-- {
		l := all[j]
		switch {
		case l.Header && all[i].Cells != nil:
			parts = append(parts, l.Text)
		case l.Heading > 0 || l.Label || strings.HasSuffix(l.Text, ":"):
			return strings.Join(append(parts, l.Text), "\n")
		case l.Drop || l.Item || l.Cells != nil || strings.TrimSpace(l.Text) == "":
		default:
			return strings.Join(parts, "\n")
		}
	}
	return strings.Join(parts, "\n")
}

// sentenceAround is the sentence of s holding [from, to): it runs between
// sentence ends ('.', '!' or '?' followed by a space and then anything but
// a lower-case letter, so "e.g. fish sauce" stays one sentence) or ';'.
func sentenceAround(s string, from, to int) string {
	from, to = min(from, len(s)), min(max(to, from), len(s))
	start := 0
	for i := from - 1; i >= 0; i-- {
		if end := sentenceEnd(s, i); end > 0 && end <= from {
			start = end
			break
		}
	}
	stop := len(s)
	for i := to; i < len(s); i++ {
		if end := sentenceEnd(s, i); end > 0 {
			stop = end
			break
		}
	}
	return strings.TrimSpace(s[start:stop])
}

// sentences splits s at the sentence ends sentenceAround uses.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if end := sentenceEnd(s, i); end > 0 {
			if part := strings.TrimSpace(s[start:end]); part != "" {
				out = append(out, part)
			}
			start, i = end, end-1
		}
	}
	if part := strings.TrimSpace(s[start:]); part != "" {
		out = append(out, part)
	}
	return out
}

// sentenceEnd returns the offset just past the end of a sentence that ends
// at s[i], or 0 when none does.
func sentenceEnd(s string, i int) int {
	switch s[i] {
	case ';':
		return i + 1
	case '.', '!', '?':
	default:
		return 0
	}
	j := i + 1
	for j < len(s) && (s[j] == '.' || s[j] == '!' || s[j] == '?' || s[j] == '"' || s[j] == '\'' || s[j] == ')') {
		j++
	}
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k == j && k < len(s) {
		return 0 // "3.5", "e.g.x": no space, no sentence end
	}
	if r, _ := utf8.DecodeRuneInString(s[k:]); k < len(s) && unicode.IsLower(r) {
		return 0
	}
	return j
}
