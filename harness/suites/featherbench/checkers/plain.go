package checkers

import (
	"regexp"
	"strings"
)

// Line is one line of an answer, read both as written and as plain text.
// Lines keeps every line of the answer, so Lines(text)[i].N == i+1.
type Line struct {
	N      int      // 1-based line number in the answer
	Raw    string   // the line as written (a trailing "\r" included)
	Text   string   // the line with its markdown made plain; see Plain
	Cells  []string // a table row's cells, each made plain; nil for other lines
	Header bool     // a table's header row (the row above its separator row)

	Heading int  // a markdown heading's level (1–6), else 0
	Label   bool // a label line: wholly bold ("**Ingredients**") or starting with a bold label ending in ':'
	Item    bool // a list item ("- x", "* x", "1. x")
	Code    bool // inside a fenced code block: Text is Raw
	Drop    bool // markup with no text of its own: a fence, a table separator, a rule
}

// Plain is text with its markdown made plain, so a check can be written
// against what a reader sees rather than how a model spelled it: emphasis
// (**x**, __x__, *x*, _x_, ~~x~~) and backticks are removed; heading #s,
// blockquote >s and list bullets or numbers at line start are removed; a
// table row becomes its cells separated by single spaces, and separator rows,
// fence lines and horizontal rules are dropped (code inside fences is kept as
// written); links become "text (url)"; backslash escapes are undone; curly
// quotes become straight; non-breaking, thin and other wide spaces become
// spaces and runs of spaces one; an en dash, and an em dash between two
// numbers, becomes '-' (so "25–30" reads "25-30"), as does U+2212 minus.
func Plain(text string) string {
	lines := Lines(text)
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if !l.Drop {
			out = append(out, l.Text)
		}
	}
	return strings.Join(out, "\n")
}

var (
	headingRE    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+|$)(.*?)(?:[ \t]+#+)?[ \t]*$`)
	blockquoteRE = regexp.MustCompile(`^[ \t]*(?:>[ \t]?)+`)
	bulletRE     = regexp.MustCompile(`^[ \t]*(?:[-*+•‣◦▪]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?`)
	ruleRE       = regexp.MustCompile(`^[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	setextRE     = regexp.MustCompile(`^[ \t]*(?:=+|-+)[ \t]*$`)
	separatorRE  = regexp.MustCompile(`^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$|^[ \t]*\|[ \t]*:?-+:?[ \t]*\|[ \t]*$`)
	boldLineRE   = regexp.MustCompile(`^(?:\*\*|__)[^*_].*?(?:\*\*|__)[ \t]*:?[ \t]*$|^(?:\*\*|__)[^*_][^*]*?:[ \t]*(?:\*\*|__)`)

	linkRE      = regexp.MustCompile(`!?\[([^\]\n]+)\]\(([^)\s]+)(?:[ \t]+"[^"]*")?\)`)
	strongRE    = regexp.MustCompile(`\*\*(.+?)\*\*`)
	strongUndRE = regexp.MustCompile(`(^|[^\pL\pN_])__(.+?)__($|[^\pL\pN_])`)
	emStarRE    = regexp.MustCompile(`(^|[^\pL\pN*\\])\*([^*\s](?:[^*]*[^*\s\\])?)\*($|[^\pL\pN*])`)
	emUndRE     = regexp.MustCompile(`(^|[^\pL\pN_\\])_([^_\s](?:[^_]*[^_\s\\])?)_($|[^\pL\pN_])`)
	strikeRE    = regexp.MustCompile(`~~(.+?)~~`)
	brRE        = regexp.MustCompile(`(?i)<br\s*/?>`)
	escapeRE    = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	numDashRE   = regexp.MustCompile(`(\d[%p]?)[ \t]*[‒–—―][ \t]*([£€$]?\d)`)
	spacesRE    = regexp.MustCompile(`[ \t]+`)
)

// charReplacer straightens quotes, turns wide and non-breaking spaces into
// spaces, and hyphen-like dashes into '-'. Em dashes are left alone here:
// in prose they are punctuation, not hyphens (numDashRE handles ranges).
var charReplacer = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u2033", `"`,
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ",
	"\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ",
	"\u202f", " ", "\u205f", " ", "\u3000", " ", "\u200b", "", "\ufeff", "",
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2212", "-",
)

// Lines splits text into lines and reads each one's markdown: the line
// structure Plain, sections and table-aware checkers share.
func Lines(text string) []Line {
	raws := strings.Split(text, "\n")
	out := make([]Line, len(raws))
	var fenceCh byte
	var fenceN int
	inTable := false
	for i, raw := range raws {
		l := Line{N: i + 1, Raw: raw}
		s := strings.TrimSuffix(raw, "\r")
		switch {
		case fenceN > 0:
			if ch, n, rest, ok := fence(s); ok && ch == fenceCh && n >= fenceN && strings.TrimSpace(rest) == "" {
				fenceN, l.Drop = 0, true
			} else {
				l.Code, l.Text = true, s
			}
		case isFence(s):
			fenceCh, fenceN, _, _ = fence(s)
			l.Drop = true
		case separatorRE.MatchString(s) && i > 0 && out[i-1].Cells != nil:
			out[i-1].Header = true
			inTable, l.Drop = true, true
		case isTableRow(s, inTable, raws, i):
			l.Cells = tableCells(s)
			l.Text = strings.Join(nonEmpty(l.Cells), " ")
			inTable = true
		case setextRE.MatchString(s) && i > 0 && isParagraph(out[i-1]):
			out[i-1].Heading = 1
			if strings.Contains(s, "-") {
				out[i-1].Heading = 2
			}
			l.Drop = true
		case ruleRE.MatchString(s):
			l.Drop = true
		default:
			inTable = false
			readBlock(&l, s)
		}
		if l.Cells == nil && !l.Drop && !l.Code {
			inTable = false
		}
		out[i] = l
	}
	return out
}

func isFence(s string) bool {
	_, _, _, ok := fence(s)
	return ok
}

func isParagraph(l Line) bool {
	return !l.Drop && !l.Code && l.Cells == nil && l.Heading == 0 && !l.Item && strings.TrimSpace(l.Text) != ""
}

// isTableRow: a line inside a table holding a '|', a line starting with
// '|', or a line with a '|' directly above a separator row (a header row
// written without outer pipes).
func isTableRow(s string, inTable bool, raws []string, i int) bool {
	t := strings.TrimSpace(s)
	if !strings.Contains(t, "|") {
		return false
	}
	if inTable || strings.HasPrefix(t, "|") {
		return true
	}
	return i+1 < len(raws) && separatorRE.MatchString(strings.TrimSuffix(raws[i+1], "\r"))
}

// tableCells splits a row on unescaped pipes, dropping the outer ones.
func tableCells(s string) []string {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '|':
			cur.WriteByte('|')
			i++
		case t[i] == '|':
			cells = append(cells, inlinePlain(brRE.ReplaceAllString(cur.String(), " ")))
			cur.Reset()
		default:
			cur.WriteByte(t[i])
		}
	}
	return append(cells, inlinePlain(brRE.ReplaceAllString(cur.String(), " ")))
}

func nonEmpty(cells []string) []string {
	out := make([]string, 0, len(cells))
	for _, c := range cells {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// readBlock strips a line's block markers (blockquote, heading, bullet),
// noting what they were, then its inline markup.
func readBlock(l *Line, s string) {
	s = blockquoteRE.ReplaceAllString(s, "")
	if m := headingRE.FindStringSubmatch(s); m != nil {
		l.Heading = len(m[1])
		s = m[2]
	} else if loc := bulletRE.FindStringIndex(s); loc != nil {
		l.Item = true
		s = s[loc[1]:]
	}
	if l.Heading == 0 && !l.Item && boldLineRE.MatchString(strings.TrimSpace(s)) {
		l.Label = true
	}
	l.Text = inlinePlain(s)
}

// inlinePlain removes inline markdown from one line or cell. Each rewrite
// runs only when its marker is present: most prose has none, and the
// regexps are the cost on long lines.
func inlinePlain(s string) string {
	s = charReplacer.Replace(s)
	if strings.ContainsAny(s, "‒–—―") {
		s = numDashRE.ReplaceAllString(s, "$1-$2")
	}
	if strings.Contains(s, "](") {
		s = linkRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := linkRE.FindStringSubmatch(m)
			if sub[1] == sub[2] {
				return sub[2]
			}
			return sub[1] + " (" + sub[2] + ")"
		})
	}
	s = strings.ReplaceAll(s, "`", "")
	star, under := strings.Contains(s, "*"), strings.Contains(s, "_")
	if star {
		s = strongRE.ReplaceAllString(s, "$1")
		s = strings.ReplaceAll(s, "**", "")
	}
	for range 2 { // adjacent spans share a delimiter context; a second pass takes the rest
		if under {
			s = strongUndRE.ReplaceAllString(s, "$1$2$3")
			s = emUndRE.ReplaceAllString(s, "$1$2$3")
		}
		if star {
			s = emStarRE.ReplaceAllString(s, "$1$2$3")
		}
	}
	if strings.Contains(s, "~~") {
		s = strikeRE.ReplaceAllString(s, "$1")
	}
	if strings.Contains(s, "\\") {
		s = escapeRE.ReplaceAllString(s, "$1")
	}
	return strings.TrimSpace(spacesRE.ReplaceAllString(s, " "))
}
