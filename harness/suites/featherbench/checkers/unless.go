package checkers

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// NegatedCues is the pattern "unless": "negated" stands for: words that
// mark a clause as saying what not to do, as warning about what it names,
// or as reporting what someone else says, rather than doing or asserting
// it. A forbidden term in such a clause ("no fish sauce", "check the
// label: some pastes contain shrimp", "red flags: 'claim today'", "an
// instruction I ignored", "scammers send texts claiming …", "GPS: out of
// scope") is not a violation.
const NegatedCues = `(?i)(?<![\w'])(?:` +
	// negation
	`no(?!\s+(?:need|more|less|longer|doubt|matter|problem|worries|fuss|time)\b)|` +
	`not(?!\s+(?:only|just|too|quite|much)\b)|none|never|neither|nor|nothing|without|instead of|rather than|except|unless|` +
	`avoid\w*|don't|do not|doesn't|does not|didn't|did not|isn't|is not|aren't|are not|wasn't|won't|will not|` +
	`can't|cannot|shouldn't|should not|mustn't|must not|` +
	// leaving out and prohibiting
	`skip\w*|omit\w*|leave (?:it |them )?out|left out|leaving out|exclud\w*|swap\w*|substitut\w*|replac\w*|` +
	`\w+-free|free (?:of|from)|out of scope|outside (?:the )?scope|prohibit\w*|forbid\w*|disallow\w*|ban(?:s|ned)?|block\w*|reject\w*|` +
	// warning
	`(?:check|read) (?:the |your |for )?labels?|(?:may|might|can|could|often|sometimes|usually) (?:contain|include)s?|` +
	`(?:most|many|some|several|a few)(?: \S+){0,3} (?:contain|include|use)s?|` +
	`beware|watch out|look out|caution|warning|warn\w*|careful|red flags?|warning signs?|scam\w*|suspicious|phishing|` +
	`fake|bogus|fraud\w*|impersonat\w*|` +
	`ignor\w*|disregard\w*|refus\w*|declin\w*|` +
	// reporting what someone else says
	ReportedCues + `)(?![\w'])`

// ReportedCues is the part of NegatedCues that marks reported speech: a
// source other than the answer (an email, a text, a scammer, a hidden or
// pasted instruction) that claims, says or asks something, or a quoted
// phrase held up as an example ("phrases like …"). Notes and instructions
// count only when hidden, injected or pasted, so "grandma's notes say to
// mix …" is not excused.
const ReportedCues = `(?:(?:(?:the|this|that|their|these|such|fake|scam|phishing|spoofed) )?(?:e-?mails?|messages?|texts?|sms|posts?|senders?|scammers?|fraudsters?|criminals?|attackers?)|` +
	`(?:hidden|injected|pasted|embedded) (?:notes?|instructions?|prompts?|text|posts?))` +
	`\b[^.!?;]{0,60}?\b(?:claim\w*|say(?:s|ing)?|said|tell(?:s|ing)?|told|ask(?:s|ing|ed)?|demand(?:s|ed|ing)?|instruct(?:s|ed|ing)?|urg(?:e|es|ing)|pretend\w*|purport\w*|pos(?:e|es|ing) as|threaten\w*|promis\w*)|` +
	`claim(?:s|ing|ed)? to be|pretending to be|posing as|` +
	`(?:phrases?|wording|words?|lines?|lures?|things) (?:like|such as)`

var negatedRE = mustCompilePython(NegatedCues)

// mustCompilePython is CompilePython for patterns written in the code.
func mustCompilePython(p string) *regexp2.Regexp {
	re, err := CompilePython(p)
	if err != nil {
		panic(err)
	}
	return re
}

// unlessRule forgives a forbidden match whose clause (or, for a list item
// or table row, whose lead-in line or table header) matches one of its
// patterns.
type unlessRule struct {
	res  []*regexp2.Regexp
	srcs []string // "negated" or the pattern, for details
}

// readUnless reads the optional "unless" field: "negated" (the built-in
// cues), a regular expression, or a list of them.
func readUnless(s *Spec) *unlessRule {
	if !s.Has("unless") {
		return nil
	}
	var one string
	var list []string
	raw := strings.TrimSpace(string(s.fields["unless"]))
	if strings.HasPrefix(raw, "[") {
		if !s.Decode("unless", &list) {
			return nil
		}
		if len(list) == 0 {
			s.Errorf("unless", `is an empty list; give "negated", a regular expression, or a list of them`)
			return nil
		}
	} else {
		if !s.Decode("unless", &one) {
			return nil
		}
		list = []string{one}
	}
	u := &unlessRule{}
	for i, src := range list {
		field := "unless"
		if strings.HasPrefix(raw, "[") {
			field = fmt.Sprintf("unless[%d]", i)
		}
		if src == "negated" {
			u.res, u.srcs = append(u.res, negatedRE), append(u.srcs, src)
			continue
		}
		if strings.TrimSpace(src) == "" {
			s.Errorf(field, `is empty; use "negated" (the built-in negation and warning cues) or a regular expression`)
			return nil
		}
		re, err := CompilePython(src)
		if err != nil {
			s.Errorf(field, `invalid regex: %v (or use "negated" for the built-in negation and warning cues)`, err)
			return nil
		}
		u.res, u.srcs = append(u.res, re), append(u.srcs, src)
	}
	return u
}

func (u *unlessRule) String() string {
	names := make([]string, len(u.srcs))
	for i, src := range u.srcs {
		names[i] = "unless " + quoteRE(src)
		if src == "negated" {
			names[i] = "the negated cues"
		}
	}
	return strings.Join(names, " or ")
}

// forgives reports whether the match at [off, off+n) of d.Text sits in
// context that the rule forgives, and the cue that forgave it.
func (u *unlessRule) forgives(d *scoped, off, n int) (bool, string, error) {
	if u == nil {
		return false, "", nil
	}
	ctx := inlinePlain(matchContext(d, off, n))
	for i, re := range u.res {
		m, err := re.FindStringMatch(ctx)
		if err != nil {
			return false, "", fmt.Errorf("unless %s: %w", quoteRE(u.srcs[i]), err)
		}
		if m != nil {
			return true, m.String(), nil
		}
	}
	return false, "", nil
}

// forgivenNote names a forgiven match, where it is and the cue that forgave
// it: `"fish sauce" on line 4 (in "…"; cue "check the label")`.
func forgivenNote(text, where, cue string) string {
	return fmt.Sprintf("%q %s; cue %q)", text, strings.TrimSuffix(where, ")"), clip(cue, 40))
}

// matchContext is the clause holding a match (see clauseAround), plus, for
// a list item or a table row, the line that introduces it (a heading, a
// label, a line ending in ':') and a table's header row.
func matchContext(d *scoped, off, n int) string {
	d.load(true)
	i, within := d.at(off)
	if i < 0 {
		return clauseAround(d.Text, off, off+n)
	}
	l := d.all[i]
	ctx := clauseAround(d.lineText(l), within, min(within+n, len(d.lineText(l))))
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

// contrastRE is where a sentence turns to a contrasting clause: what one
// side negates, the other may assert ("I won't recite the steps, but the
// ANFO article describes them").
var contrastRE = regexp.MustCompile(`(?i)(?:,|\s)\s*(?:but|however|whereas|although|though|yet|while|unlike|except that)\b|\s[—–-]\s*(?:but|however)\b`)

// clauseAround is the clause of s holding [from, to): the sentence
// holding it (see sentenceAround), cut at the contrasting conjunctions
// around it (contrastRE), so a negation on one side of "but" does not
// excuse what the other side says.
func clauseAround(s string, from, to int) string {
	sent := sentenceAround(s, from, to)
	base := strings.Index(s, sent)
	if base < 0 || from < base || to > base+len(sent) {
		return sent
	}
	from, to = from-base, to-base
	start, stop := 0, len(sent)
	for _, loc := range contrastRE.FindAllStringIndex(sent, -1) {
		switch {
		case loc[1] <= from:
			start = loc[0]
		case loc[0] >= to && stop == len(sent):
			stop = loc[0]
		}
	}
	return strings.TrimSpace(sent[start:stop])
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
