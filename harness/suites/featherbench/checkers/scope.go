package checkers

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/dlclark/regexp2"
)

// textScope is what part of an answer a text checker reads, and how: the
// answer as written (the default) or made plain ("view": "plain"), all of
// it or only some lines ("lines": a pattern the line's plain text matches)
// or sections ("section": a pattern a heading or label line matches).
type textScope struct {
	plain         bool
	lines         *regexp2.Regexp
	section       *regexp2.Regexp
	linesSrc, sec string
}

// readScope reads "lines", "section" and, when withView, "view". Checkers
// that read structure (numbers at labels, item lines) always read plain
// text and so take no "view".
func readScope(s *Spec, withView bool) textScope {
	return readScopeAs(s, withView, "lines")
}

// readScopeAs is readScope with the line filter read from linesField.
func readScopeAs(s *Spec, withView bool, linesField string) textScope {
	var sc textScope
	if withView {
		view := "raw"
		if s.Decode("view", &view) && view != "raw" && view != "plain" {
			s.Errorf("view", `must be "raw" (the answer as written, the default) or "plain" (markdown removed), not %q`, view)
		}
		sc.plain = view == "plain"
	} else {
		sc.plain = true
	}
	if s.Decode(linesField, &sc.linesSrc) {
		sc.lines = scopePattern(s, linesField, sc.linesSrc)
	}
	if s.Decode("section", &sc.sec) {
		sc.section = scopePattern(s, "section", sc.sec)
	}
	return sc
}

func scopePattern(s *Spec, field, src string) *regexp2.Regexp {
	if strings.TrimSpace(src) == "" {
		s.Errorf(field, "is empty; give a regular expression, e.g. %q", `(?i)ingredients`)
		return nil
	}
	re, err := CompilePython(src)
	if err != nil {
		s.Errorf(field, "invalid regex: %v", err)
		return nil
	}
	return re
}

// scoped is the text a checker reads, with the map back to answer lines.
type scoped struct {
	Text    string
	all     []Line
	idx     []int  // the answer lines read, as indices into all
	in      []bool // in[i]: answer line i is read
	starts  []int  // byte offset in Text of each line read
	plain   bool
	lazy    bool   // the answer as written, not yet split into lines
	shallow bool   // split into lines whose markdown is not yet read
	note    string // how the scope fell back, for details; "" when it did not
}

// apply cuts text to the scope. Errors are the harness's: a pattern that
// ran past MatchTimeout. The answer as written, unscoped, is read as it is;
// its lines are only split when a detail needs a line number.
func (sc textScope) apply(text string) (*scoped, error) {
	if !sc.plain && sc.lines == nil && sc.section == nil {
		return &scoped{Text: text, lazy: true}, nil
	}
	d := &scoped{all: Lines(text), plain: sc.plain}
	return d, d.cut(sc)
}

// load splits a lazily read answer into its lines, all of them read;
// with full, it also reads their markdown (lists, tables), which "unless"
// needs and a line number does not.
func (d *scoped) load(full bool) {
	if d.lazy {
		d.lazy = false
		raws := strings.Split(d.Text, "\n")
		d.all = make([]Line, len(raws))
		d.in = make([]bool, len(raws))
		off := 0
		for i, raw := range raws {
			d.all[i] = Line{N: i + 1, Raw: raw}
			d.idx = append(d.idx, i)
			d.starts = append(d.starts, off)
			d.in[i] = true
			off += len(raw) + 1
		}
		d.shallow = true
	}
	if full && d.shallow {
		d.all, d.shallow = Lines(d.Text), false
	}
}

// cut keeps the lines the scope reads and joins them into d.Text.
func (d *scoped) cut(sc textScope) error {
	keep := make([]bool, len(d.all))
	for i, l := range d.all {
		keep[i] = !sc.plain || !l.Drop
	}
	if sc.section != nil {
		in, found, err := sections(d.all, sc.section)
		if err != nil {
			return fmt.Errorf("section %s: %w", quoteRE(sc.sec), err)
		}
		if found {
			for i := range keep {
				keep[i] = keep[i] && in[i]
			}
		} else {
			d.note = "no heading or label line matches " + quoteRE(sc.sec) + ", so the whole answer was read"
		}
	}
	if sc.lines != nil {
		for i, l := range d.all {
			if !keep[i] {
				continue
			}
			ok, err := sc.lines.MatchString(l.Text)
			if err != nil {
				return fmt.Errorf("line filter %s: %w", quoteRE(sc.linesSrc), err)
			}
			keep[i] = ok && !l.Drop
		}
	}
	var b strings.Builder
	d.in = keep
	for i, l := range d.all {
		if !keep[i] {
			continue
		}
		if len(d.idx) > 0 {
			b.WriteByte('\n')
		}
		d.idx = append(d.idx, i)
		d.starts = append(d.starts, b.Len())
		b.WriteString(d.lineText(l))
	}
	d.Text = b.String()
	return nil
}

func (d *scoped) lineText(l Line) string {
	if d.plain {
		return l.Text
	}
	return l.Raw
}

// at finds the answer line holding byte offset off of d.Text, and the
// offset within that line.
func (d *scoped) at(off int) (line int, within int) {
	d.load(false)
	k := sort.Search(len(d.starts), func(k int) bool { return d.starts[k] > off }) - 1
	if k < 0 {
		return -1, off
	}
	return d.idx[k], off - d.starts[k]
}

// where names the line of a match and an excerpt of that line around it,
// for details: `on line 4 (in "…the fish sauce…")`.
func (d *scoped) where(off, n int) string {
	i, within := d.at(off)
	if i < 0 {
		return excerpt(d.Text, off, n)
	}
	text := strings.TrimSuffix(d.lineText(d.all[i]), "\r")
	within = min(within, len(text))
	return fmt.Sprintf("on line %d (%s)", d.all[i].N, excerpt(text, within, min(n, len(text)-within)))
}

// withNote appends the scope's fallback note to a detail.
func (d *scoped) withNote(detail string) string {
	if d.note == "" {
		return detail
	}
	return detail + " (" + d.note + ")"
}

// headerKind ranks a line that opens a section: a markdown heading by its
// level (1–6), a bold label line 7, a plain line ending in ':' 8; 0 for a
// line that opens none. A section ends at the next line of the same or a
// higher rank (a smaller number).
func headerKind(l Line) int {
	switch {
	case l.Drop || l.Code || l.Cells != nil:
		return 0
	case l.Heading > 0:
		return l.Heading
	case l.Label:
		return 7
	case !l.Item && strings.HasSuffix(l.Text, ":") && len(strings.Fields(l.Text)) <= 12:
		return 8
	}
	return 0
}

// wholeLabelRE is a label line with nothing after its label.
var wholeLabelRE = regexp.MustCompile(`^(?:>[ \t]*)*(?:\*\*|__).*(?:\*\*|__)[ \t]*:?[ \t]*$`)

// sections marks the lines of every section whose opening line matches re.
// The opening line is left out (a heading's words are not the section's
// content) unless it is a label with text after it ("**Ingredients:** tofu,
// rice"), whose text is.
func sections(all []Line, re *regexp2.Regexp) (in []bool, found bool, err error) {
	in = make([]bool, len(all))
	for i, l := range all {
		kind := headerKind(l)
		if kind == 0 {
			continue
		}
		ok, err := re.MatchString(l.Text)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		found = true
		in[i] = kind == 7 && !wholeLabelRE.MatchString(strings.TrimSpace(l.Raw))
		for j := i + 1; j < len(all); j++ {
			if k := headerKind(all[j]); k != 0 && k <= kind {
				break
			}
			in[j] = true
		}
	}
	return in, found, nil
}
