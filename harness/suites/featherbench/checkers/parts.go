package checkers

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/dlclark/regexp2"
)

func init() { Register("parts", compileParts) }

// parts: the answer gives every part the prompt asks for ("the price per
// 100 g of each", "then suggest validation rules", "a numbered list of the
// requirements"), each as something a reader can find, not a word in
// passing. A part is found when all it sets holds: its section (a heading,
// a label line, or an inline label "Validation rules: …") exists, at least
// "items" entries (list items, table rows, code lines, or the ';'-separated
// parts of an inline label) stand in it, of which those matching "item"
// count, and "pattern" matches in it. The detail names each missing part.
func compileParts(s *Spec) (Func, error) {
	var raws []json.RawMessage
	s.Require("parts", &raws, `a list of the parts the prompt asks for, e.g. [{"name": "validation rules", "section": "(?i)validation", "items": 3}]`)
	sc := readScope(s, false)
	if s.Err() != nil {
		return nil, s.Err()
	}
	if len(raws) == 0 {
		return nil, s.Errorf("parts", "is empty; list the parts the prompt asks for")
	}
	parts := make([]part, len(raws))
	for i, raw := range raws {
		p, err := compilePart(fmt.Sprintf("%s.parts[%d]", s.Path(), i), raw)
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return func(_ context.Context, r Response) (bool, string, error) {
		d, err := sc.apply(r.Text)
		if err != nil {
			return false, "", err
		}
		d.load(true)
		var found, missing []string
		for _, p := range parts {
			why, err := p.find(d)
			if err != nil {
				return false, "", fmt.Errorf("%s: %w", p.name, err)
			}
			if why != "" {
				missing = append(missing, fmt.Sprintf("%s (%s)", p.name, why))
				continue
			}
			found = append(found, p.name)
		}
		if len(missing) > 0 {
			return false, d.withNote(fmt.Sprintf("missing %d of %d parts: %s", len(missing), len(parts), strings.Join(missing, "; "))), nil
		}
		return true, d.withNote(fmt.Sprintf("all %d parts found: %s", len(parts), strings.Join(found, "; "))), nil
	}, nil
}

// part is one thing the prompt asks for.
type part struct {
	name                            string
	section, pattern, item          *regexp2.Regexp
	sectionSrc, patternSrc, itemSrc string
	items, maxItems                 int
	hasItems, hasMax                bool
	entries                         string // "lines", "list" or "numbered"
}

// compilePart reads one entry of "parts" with the same field checks (and
// unknown-field errors) as a checker node.
func compilePart(path string, raw json.RawMessage) (part, error) {
	s := &Spec{path: path, known: map[string]bool{}, Type: "part"}
	if err := json.Unmarshal(raw, &s.fields); err != nil {
		return part{}, fmt.Errorf(`%s: must be an object such as {"name": "validation rules", "section": "(?i)validation", "items": 3}`, path)
	}
	var p part
	s.Require("name", &p.name, `what the prompt asks for, in its words, e.g. "validation rules"`)
	s.Decode("section", &p.sectionSrc)
	s.Decode("pattern", &p.patternSrc)
	s.Decode("item", &p.itemSrc)
	p.hasItems = s.Decode("items", &p.items)
	p.hasMax = s.Decode("max_items", &p.maxItems)
	p.entries = "lines"
	if s.Decode("entries", &p.entries) && p.entries != "lines" && p.entries != "list" && p.entries != "numbered" {
		s.Errorf("entries", `must be "lines" (the default: every line of the part, list item, table row, code line or ';'-separated clause of an inline label), "list" (list items and table rows) or "numbered" (entries that carry a number: "1.", "R1."), not %q`, p.entries)
	}
	if err := s.Err(); err != nil {
		if s.misspelt() {
			return part{}, s.unknownFields()
		}
		return part{}, err
	}
	if err := s.unknownFields(); err != nil {
		return part{}, err
	}
	re := func(field, src string) *regexp2.Regexp {
		if src == "" {
			return nil
		}
		r, err := CompilePython(src)
		if err != nil {
			s.Errorf(field, "invalid regex: %v", err)
			return nil
		}
		if ok, _ := r.MatchString(""); ok {
			s.Errorf(field, "matches empty text; write the words it must find")
		}
		return r
	}
	p.section, p.pattern, p.item = re("section", p.sectionSrc), re("pattern", p.patternSrc), re("item", p.itemSrc)
	switch {
	case s.Err() != nil:
	case strings.TrimSpace(p.name) == "":
		s.Errorf("name", "is empty; say what the prompt asks for")
	case p.section == nil && p.pattern == nil && !p.hasItems && !p.hasMax:
		s.Errorf("", `set "section", "pattern" or "items" (what finds the part), e.g. {"name": "validation rules", "section": "(?i)validation", "items": 3}`)
	case p.hasItems && p.items < 1:
		s.Errorf("items", "must be at least 1, not %d", p.items)
	case p.hasMax && p.maxItems < 1:
		s.Errorf("max_items", "must be at least 1, not %d", p.maxItems)
	case p.hasItems && p.hasMax && p.items > p.maxItems:
		s.Errorf("items", "is %d, above max_items %d; swap them", p.items, p.maxItems)
	case (p.item != nil || s.Has("entries")) && !p.hasItems && !p.hasMax:
		field := "item"
		if p.item == nil {
			field = "entries"
		}
		s.Errorf(field, `says which entries count; set "items" or "max_items" too (how many must)`)
	}
	return p, s.Err()
}

// numberedRE is an entry numbered by the answer: "1.", "2)", "R1.", "Q3:";
// idCellRE a table cell that numbers its row ("1", "R1", "R1.").
var (
	numberedRE = regexp.MustCompile(`^\s*(?:[A-Za-z]{1,3}[-#]?)?\d{1,3}[.):]\s`)
	idCellRE   = regexp.MustCompile(`^\s*(?:[A-Za-z]{1,3}[-#]?)?\d{1,3}[.):]?\s*$`)
)

// find returns why the part is missing, or "" when it is found.
func (p part) find(d *scoped) (string, error) {
	in := make([]bool, len(d.all))
	var inline []string // the text after an inline label that opens the part
	labelled := map[int]bool{}
	if p.section == nil {
		for _, i := range d.idx {
			in[i] = true
		}
	} else {
		secs, found, err := sections(d.all, p.section)
		if err != nil {
			return "", err
		}
		open := false // inside a section a short title line opened ("Ingredients")
		for _, i := range d.idx {
			l := d.all[i]
			if found && secs[i] {
				in[i] = true
			}
			title, err := p.isTitle(l)
			if err != nil {
				return "", err
			}
			switch {
			case title:
				open = true
				continue
			case headerKind(l) > 0 || isShortTitle(l):
				open = false
			case open:
				in[i] = true
			}
			// "Validation rules for future loads: reject duplicates; …"
			if label, rest, ok := strings.Cut(l.Text, ":"); ok && !l.Code && strings.TrimSpace(rest) != "" && len(strings.Fields(label)) <= 8 {
				if ok, err := p.section.MatchString(label); err != nil {
					return "", err
				} else if ok {
					inline = append(inline, rest)
					in[i], labelled[i] = true, true
				}
			}
		}
		any := len(inline) > 0
		for _, ok := range in {
			any = any || ok
		}
		if !any {
			return "no heading or label matches " + quoteRE(p.sectionSrc), nil
		}
	}
	if p.hasItems || p.hasMax {
		n, err := p.count(d, in, labelled, inline)
		if err != nil {
			return "", err
		}
		what := map[string]string{"lines": "entries", "list": "list entries", "numbered": "numbered entries"}[p.entries]
		if p.item != nil {
			what += " matching " + quoteRE(p.itemSrc)
		}
		if p.section != nil {
			what += " under " + quoteRE(p.sectionSrc)
		}
		switch {
		case p.hasItems && n < p.items:
			return fmt.Sprintf("%d %s; want at least %d", n, what, p.items), nil
		case p.hasMax && n > p.maxItems:
			return fmt.Sprintf("%d %s; want at most %d", n, what, p.maxItems), nil
		}
	}
	if p.pattern != nil {
		var b strings.Builder
		for i, l := range d.all {
			if in[i] {
				b.WriteString(l.Text + "\n")
			}
		}
		ok, err := p.pattern.MatchString(b.String())
		if err != nil {
			return "", err
		}
		if !ok {
			where := ""
			if p.section != nil {
				where = " under " + quoteRE(p.sectionSrc)
			}
			return "no match for " + quoteRE(p.patternSrc) + where, nil
		}
	}
	return "", nil
}

// isShortTitle reports whether l is a line of a few words that titles
// what follows ("Ingredients", "Method"), as a heading would.
func isShortTitle(l Line) bool {
	t := strings.TrimSpace(l.Text)
	return !l.Item && !l.Code && l.Cells == nil && headerKind(l) == 0 && t != "" && len(strings.Fields(t)) <= 4 && !strings.ContainsAny(t[len(t)-1:], ".!?;,")
}

// isTitle reports whether l is a short title line that names the part.
func (p part) isTitle(l Line) (bool, error) {
	if !isShortTitle(l) {
		return false, nil
	}
	return p.section.MatchString(l.Text)
}

// count counts the part's entries among the lines read: with entries
// "lines", every line that opens no section (a list item, a table row, a
// code line, a line of text) and the ';'-separated clauses of inline
// labels; with "list", list items and table rows; with "numbered", entries
// that carry a number. With "item", only entries that match it count.
func (p part) count(d *scoped, in []bool, labelled map[int]bool, inline []string) (int, error) {
	n := 0
	counts := func(text string) (bool, error) {
		if p.item == nil {
			return true, nil
		}
		return p.item.MatchString(text)
	}
	for i, l := range d.all {
		if !in[i] || labelled[i] || l.Drop || l.Header || strings.TrimSpace(l.Text) == "" || (headerKind(l) > 0 && !l.Item) {
			continue
		}
		list := l.Item || l.Cells != nil
		numbered := l.Item && numberedRE.MatchString(l.Raw) || l.Cells != nil && len(l.Cells) > 0 && idCellRE.MatchString(l.Cells[0]) || !list && numberedRE.MatchString(l.Text)
		if p.entries == "list" && !list || p.entries == "numbered" && !numbered {
			continue
		}
		ok, err := counts(l.Text)
		if err != nil {
			return 0, err
		}
		if ok {
			n++
		}
	}
	if p.entries != "lines" {
		return n, nil
	}
	for _, text := range inline {
		for _, seg := range strings.Split(text, ";") {
			if strings.TrimSpace(seg) == "" {
				continue
			}
			ok, err := counts(seg)
			if err != nil {
				return 0, err
			}
			if ok {
				n++
			}
		}
	}
	return n, nil
}
