package checkers

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"
)

func init() { Register("not_claim", compileNotClaim) }

// not_claim: no clause says the claim of the subject. A claim is read as
// being about the mention nearest to it in its clause, a mention of the
// subject or of one of the others it could be about, so a correction that
// names the subject beside the thing it corrects ("2024-02-30 is not a
// real date (probably 29 Feb)", "R-5011's date is impossible, unlike
// R-5002's") does not count against the subject, while "R-5002: invalid
// date" does. A clause with no mention reads its list lead-in, table
// header or the heading above it. "unless" forgives a clause as it does
// for not_regex.
func compileNotClaim(s *Spec) (Func, error) {
	var subjectSrc, claimSrc, othersSrc string
	s.Require("subject", &subjectSrc, `a regular expression for what the claim must not be made about, e.g. "(?i)\\bR-5002\\b|2024-02-29"`)
	s.Require("claim", &claimSrc, `a regular expression for the claim, e.g. "(?i)\\binvalid\\b|\\bimpossible\\b"`)
	hasOthers := s.Decode("others", &othersSrc)
	sc := readScopeAs(s, false, "lines")
	unless := readUnless(s)
	if s.Err() != nil {
		return nil, s.Err()
	}
	compile := func(field, src string) *regexp2.Regexp {
		re, err := CompilePython(src)
		if err != nil {
			s.Errorf(field, "invalid regex: %v", err)
			return nil
		}
		if ok, _ := re.MatchString(""); ok {
			s.Errorf(field, "matches empty text; write the words it must find")
			return nil
		}
		return re
	}
	c := claimCheck{subject: compile("subject", subjectSrc), claim: compile("claim", claimSrc), unless: unless}
	if hasOthers {
		c.others = compile("others", othersSrc)
	}
	if s.Err() != nil {
		return nil, s.Err()
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		return c.check(d)
	}, nil
}

type claimCheck struct {
	subject, claim, others *regexp2.Regexp
	unless                 *unlessRule
}

// mention is a span of text that names the subject (subject true) or
// something else a claim could be about.
type mention struct {
	start, end int
	subject    bool
	text       string
}

func (c claimCheck) check(d *scoped) (bool, string, error) {
	d.load(true)
	var notes []string
	for k, i := range d.idx {
		l := d.all[i]
		if l.Code || l.Drop {
			continue
		}
		text := d.lineText(l)
		for _, cl := range clauseSpans(text) {
			clause := text[cl[0]:cl[1]]
			claims, err := matchSpans(c.claim, clause)
			if err != nil {
				return false, "", fmt.Errorf("claim: %w", err)
			}
			if len(claims) == 0 {
				continue
			}
			ms, err := c.mentions(clause)
			if err != nil {
				return false, "", err
			}
			gs := groups(clause, ms)
			for _, sp := range claims {
				var about *mention
				inClause := true
				if g := nearest(gs, sp); g != nil {
					about = g.about()
				} else {
					// A clause that names nothing is about its lead-in:
					// the list's lead-in line, the table's header, the
					// heading above.
					inClause = false
					above := contextAbove(d.all, i)
					lead, err := c.mentions(above)
					if err != nil {
						return false, "", err
					}
					if lg := groups(above, lead); len(lg) > 0 {
						about = lg[len(lg)-1].about()
					}
				}
				if about == nil || !about.subject {
					if about != nil && len(notes) < 3 {
						notes = append(notes, fmt.Sprintf("%q is about %q on line %d", clip(clause[sp[0]:sp[1]], 40), clip(about.text, 40), l.N))
					}
					continue
				}
				off := d.starts[k] + cl[0] + sp[0]
				ok, cue, err := c.unless.forgives(d, off, sp[1]-sp[0])
				if err != nil {
					return false, "", err
				}
				if ok {
					if len(notes) < 3 {
						notes = append(notes, forgivenNote(clause[sp[0]:sp[1]], d.where(off, sp[1]-sp[0]), cue))
					}
					continue
				}
				where := "in its clause"
				if !inClause {
					where = "named above it"
				}
				return false, d.withNote(fmt.Sprintf("claims %q of %q (%s) %s", clip(clause[sp[0]:sp[1]], 60), clip(about.text, 40), where, d.where(off, sp[1]-sp[0]))), nil
			}
		}
	}
	detail := "no clause makes the claim of the subject"
	if len(notes) > 0 {
		detail += "; read elsewhere: " + strings.Join(notes, ", ")
	}
	return true, d.withNote(detail), nil
}

// mentions finds the subject's and the others' mentions in text, in
// order; a span that names the subject is the subject's.
func (c claimCheck) mentions(text string) ([]mention, error) {
	subj, err := matchSpans(c.subject, text)
	if err != nil {
		return nil, fmt.Errorf("subject: %w", err)
	}
	var out []mention
	for _, sp := range subj {
		out = append(out, mention{sp[0], sp[1], true, text[sp[0]:sp[1]]})
	}
	if c.others != nil {
		others, err := matchSpans(c.others, text)
		if err != nil {
			return nil, fmt.Errorf("others: %w", err)
		}
		for _, sp := range others {
			overlaps := false
			for _, m := range out {
				if m.subject && sp[0] < m.end && m.start < sp[1] {
					overlaps = true
					break
				}
			}
			if !overlaps {
				out = append(out, mention{sp[0], sp[1], false, text[sp[0]:sp[1]]})
			}
		}
	}
	return out, nil
}

// coordRE joins mentions named together ("R-5011 and R-5002", "A, B or
// C", "A/B"): a claim about one of them is about all of them.
var coordRE = regexp.MustCompile(`(?i)^\s*(?:,\s*(?:and|or)?|and|or|&|/|\+)\s*$`)

// group is a run of coordinated mentions.
type group struct {
	start, end int
	subject    *mention // the first mention of the subject in it, if any
	first      *mention
}

// groups joins a line's coordinated mentions; ms is in text order.
func groups(text string, ms []mention) []group {
	sort.Slice(ms, func(a, b int) bool { return ms[a].start < ms[b].start })
	var out []group
	for i := range ms {
		m := &ms[i]
		if n := len(out); n > 0 && m.start >= out[n-1].end && coordRE.MatchString(text[out[n-1].end:m.start]) {
			g := &out[n-1]
			g.end = m.end
			if m.subject && g.subject == nil {
				g.subject = m
			}
			continue
		}
		g := group{start: m.start, end: m.end, first: m}
		if m.subject {
			g.subject = m
		}
		out = append(out, g)
	}
	return out
}

// nearest is the group closest to span sp (the one before it on a tie),
// or nil when there is none.
func nearest(gs []group, sp [2]int) *group {
	var best *group
	bestDist, bestBefore := 0, false
	for i := range gs {
		g := &gs[i]
		dist, before := 0, g.end <= sp[0] // overlapping: distance 0
		switch {
		case before:
			dist = sp[0] - g.end
		case g.start >= sp[1]:
			dist = g.start - sp[1]
		}
		if best == nil || dist < bestDist || dist == bestDist && before && !bestBefore {
			best, bestDist, bestBefore = g, dist, before
		}
	}
	return best
}

// about is the mention a group stands for in a detail: its subject
// mention when it has one.
func (g *group) about() *mention {
	if g.subject != nil {
		return g.subject
	}
	return g.first
}

// clauseSpans splits a line into the clauses clauseAround reads: sentences
// cut at contrasting conjunctions.
func clauseSpans(text string) [][2]int {
	var out [][2]int
	start := 0
	cut := func(end int) {
		if strings.TrimSpace(text[start:end]) != "" {
			out = append(out, [2]int{start, end})
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		if end := sentenceEnd(text, i); end > 0 {
			cut(end)
			i = end - 1
		}
	}
	cut(len(text))
	var clauses [][2]int
	for _, s := range out {
		from := s[0]
		for _, loc := range contrastRE.FindAllStringIndex(text[s[0]:s[1]], -1) {
			if at := s[0] + loc[0]; at > from {
				clauses = append(clauses, [2]int{from, at})
				from = at
			}
		}
		clauses = append(clauses, [2]int{from, s[1]})
	}
	return clauses
}

// contextAbove is what introduces line i: its list lead-in or table
// header (leadIn), else the nearest heading or label line above it.
func contextAbove(all []Line, i int) string {
	if all[i].Item || all[i].Cells != nil {
		if lead := leadIn(all, i); lead != "" {
			return lead
		}
	}
	for j := i - 1; j >= 0; j-- {
		if all[j].Heading > 0 || all[j].Label {
			return all[j].Text
		}
	}
	return ""
}
