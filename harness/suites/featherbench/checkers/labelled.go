package checkers

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

func init() { Register("labelled_number", compileLabelledNumber) }

// reading is one number (or range) read at a label.
type reading struct {
	q    quantity
	line Line
}

func (r reading) String() string {
	return fmt.Sprintf("%q on line %d (%s)", describeQty(r.q), r.line.N, lineExcerpt(r.line, r.q.text))
}

// labelled_number: the number written at a label ("Total time: 25–30
// minutes", a table row "| Total | €1,150 |", a table column headed
// "Week") satisfies a bound. It reads the plain view, so bold labels,
// bullets and table pipes do not get in the way, and a range must satisfy
// the bound at both ends.
func compileLabelledNumber(s *Spec) (Func, error) {
	var at, which string
	required := true
	s.Require("at", &at, `a regular expression for the label, e.g. "(?i)total time"`)
	b := readBound(s, `{"type": "labelled_number", "at": "(?i)total time", "max": 30}`)
	which = "every"
	if s.Decode("which", &which) && which != "every" && which != "first" && which != "last" && which != "any" {
		s.Errorf("which", `must be "every" (the default: every number read must pass), "first", "last" or "any", not %q`, which)
	}
	s.Decode("required", &required)
	var single bool
	s.Decode("single", &single)
	var unit string
	if s.Decode("unit", &unit) && unit != "minutes" && unit != "hours" {
		s.Errorf("unit", `must be "minutes" or "hours" (durations such as "1 hour 15 minutes" are converted to it), not %q`, unit)
	}
	sc := readScope(s, false)
	if s.Err() != nil {
		return nil, s.Err()
	}
	label, err := CompilePython(at)
	if err != nil {
		return nil, s.Errorf("at", "invalid regex: %v", err)
	}
	if ok, _ := label.MatchString(""); ok {
		return nil, s.Errorf("at", "matches empty text, so it marks no label; write the label's words, e.g. %q", "(?i)total time")
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		readings, bare, err := readAtLabels(d, label, unit)
		if err != nil {
			return false, "", fmt.Errorf("at %s: %w", quoteRE(at), err)
		}
		if len(readings) == 0 {
			detail := "no number after " + quoteRE(at)
			if bare != nil {
				detail += fmt.Sprintf(" (it matches line %d, %q, with no number after it)", bare.N, clip(bare.Text, 80))
			}
			if !required {
				return true, d.withNote(detail + ", and none is required"), nil
			}
			return false, d.withNote(detail), nil
		}
		return judgeReadings(d, readings, which, b, single)
	}, nil
}

// judgeReadings applies the bound to the readings "which" selects; with
// single, a range fails ("Trip total: €400–450" where one amount is asked
// for).
func judgeReadings(d *scoped, readings []reading, which string, b bound, single bool) (bool, string, error) {
	want := b.String()
	if single {
		want = "a single number " + want
	}
	pass := func(r reading) bool {
		if single && len(r.q.vals) > 1 {
			return false
		}
		for _, v := range r.q.vals {
			if !b.ok(v) {
				return false
			}
		}
		return true
	}
	switch which {
	case "first", "last":
		r := readings[0]
		if which == "last" {
			r = readings[len(readings)-1]
		}
		if !pass(r) {
			return false, d.withNote(fmt.Sprintf("read %s; want %s", r, want)), nil
		}
		return true, d.withNote(fmt.Sprintf("read %s, %s", r, b)), nil
	case "any":
		for _, r := range readings {
			if pass(r) {
				return true, d.withNote(fmt.Sprintf("read %s, %s", r, b)), nil
			}
		}
		return false, d.withNote(fmt.Sprintf("no number read is %s: %s", want, listReadings(readings))), nil
	}
	for _, r := range readings {
		if !pass(r) {
			return false, d.withNote(fmt.Sprintf("read %s; want %s", r, want)), nil
		}
	}
	if len(readings) == 1 {
		return true, d.withNote(fmt.Sprintf("read %s, %s", readings[0], b)), nil
	}
	return true, d.withNote(fmt.Sprintf("all %d numbers read are %s: %s", len(readings), b, listReadings(readings))), nil
}

func listReadings(rs []reading) string {
	parts := make([]string, 0, 4)
	for i, r := range rs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(rs)-3))
			break
		}
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ", ")
}

// readAtLabels reads the number after every label match in the scope. In a
// line, the number is the first after the match and before the next match;
// a label that ends its line reads the next line. In a table row, it is the
// first number after the match in the label's cell, else in the cells to
// its right; a header cell with no number to its right reads its column in
// every row below. bare is a line where the label matched but no number
// was found, for the detail.
func readAtLabels(d *scoped, label *regexp2.Regexp, unit string) (out []reading, bare *Line, err error) {
	for k, i := range d.idx {
		l := d.all[i]
		if l.Code || l.Drop {
			continue
		}
		if l.Cells != nil {
			rs, matched, err := readRow(d, i, label, unit)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, rs...)
			if matched && len(rs) == 0 && bare == nil {
				bare = &d.all[i]
			}
			continue
		}
		spans, err := matchSpans(label, l.Text)
		if err != nil {
			return nil, nil, err
		}
		for m, sp := range spans {
			end := len(l.Text)
			if m+1 < len(spans) {
				end = spans[m+1][0]
			}
			seg := l.Text[sp[1]:end]
			if q, ok := firstQuantity(seg, unit); ok {
				out = append(out, reading{q: q, line: l})
				continue
			}
			if m+1 == len(spans) && endsLabel(seg) {
				if next, ok := nextTextLine(d, k); ok {
					if q, ok := firstQuantity(next.Text, unit); ok {
						out = append(out, reading{q: q, line: next})
						continue
					}
				}
			}
			if bare == nil {
				bare = &d.all[i]
			}
		}
	}
	return out, bare, nil
}

// readRow reads a table row whose cell matches the label.
func readRow(d *scoped, i int, label *regexp2.Regexp, unit string) ([]reading, bool, error) {
	l := d.all[i]
	for c, cell := range l.Cells {
		spans, err := matchSpans(label, cell)
		if err != nil {
			return nil, false, err
		}
		if len(spans) == 0 {
			continue
		}
		if q, ok := firstQuantity(cell[spans[0][1]:], unit); ok {
			return []reading{{q: q, line: l}}, true, nil
		}
		for _, right := range l.Cells[c+1:] {
			if q, ok := firstQuantity(right, unit); ok {
				return []reading{{q: q, line: l}}, true, nil
			}
		}
		if !l.Header {
			return nil, true, nil
		}
		var out []reading
		// The column runs down to the end of the table or the next header row.
		for j := i + 1; j < len(d.all) && (d.all[j].Cells != nil || d.all[j].Drop && !d.all[j].Code) && !d.all[j].Header; j++ {
			row := d.all[j]
			if row.Cells == nil || c >= len(row.Cells) || !d.reads(j) {
				continue
			}
			if q, ok := firstQuantity(row.Cells[c], unit); ok {
				out = append(out, reading{q: q, line: row})
			}
		}
		return out, true, nil
	}
	return nil, false, nil
}

// reads reports whether answer line i is in the scope.
func (d *scoped) reads(i int) bool { return i >= 0 && i < len(d.in) && d.in[i] }

// endsLabel reports whether what follows a label on its line is only
// punctuation and space ("Total:", "**Total time** —"), so the label's
// number is on the next line.
func endsLabel(rest string) bool {
	return strings.IndexFunc(rest, func(r rune) bool { return !unicode.IsPunct(r) && !unicode.IsSpace(r) }) < 0
}

// nextTextLine is the first non-blank line in the scope after the k-th.
func nextTextLine(d *scoped, k int) (Line, bool) {
	for _, i := range d.idx[k+1:] {
		if l := d.all[i]; !l.Drop && strings.TrimSpace(l.Text) != "" {
			return l, true
		}
	}
	return Line{}, false
}

// matchSpans returns the byte spans of every match of re in s.
func matchSpans(re *regexp2.Regexp, s string) ([][2]int, error) {
	var out [][2]int
	cur := runeCursor{s: s}
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		start := cur.byteAt(m.Index)
		out = append(out, [2]int{start, cur.byteAt(m.Index + m.Length)})
	}
	return out, err
}

// runeCursor maps regexp2's rune indexes to byte offsets in s, moving
// forward from the last answer so a scan over many matches stays linear.
type runeCursor struct {
	s          string
	runes, off int
}

func (c *runeCursor) byteAt(rune int) int {
	if rune < c.runes {
		c.runes, c.off = 0, 0
	}
	for c.runes < rune && c.off < len(c.s) {
		_, size := utf8.DecodeRuneInString(c.s[c.off:])
		c.off += size
		c.runes++
	}
	return c.off
}

// lineExcerpt is an excerpt of a line's plain text around what.
func lineExcerpt(l Line, what string) string {
	at := strings.Index(l.Text, what)
	if at < 0 {
		at, what = 0, ""
	}
	return excerpt(l.Text, at, len(what))
}
