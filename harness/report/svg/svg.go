// Package svg draws the few charts feather's reports need — grouped bars
// with interval whiskers, a scatter with error bars and a frontier line,
// and a heatmap — as inline SVG text. It is small on purpose: the charts
// must work from a file:// page with no scripts or fonts fetched, and every
// label is escaped here, once, because labels carry model names and other
// text we did not write.
package svg

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Doc accumulates one <svg> element.
type Doc struct {
	b    strings.Builder
	w, h float64
}

// New starts a drawing of w×h user units; title is its accessible name.
func New(w, h float64, class, title string) *Doc {
	d := &Doc{w: w, h: h}
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" class="%s" role="img" aria-label="%s">`,
		num(w), num(h), num(w), num(h), Esc(class), Esc(title))
	fmt.Fprintf(&d.b, "<title>%s</title>", Esc(title))
	return d
}

// Esc escapes text for SVG/HTML content and attribute values.
func Esc(s string) string { return html.EscapeString(s) }

// num writes a coordinate compactly: two decimals at most, no trailing zeros.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// Attrs renders extra attributes; keys are ours, values are escaped.
type Attrs map[string]string

func (a Attrs) String() string {
	if len(a) == 0 {
		return ""
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, ` %s="%s"`, k, Esc(a[k]))
	}
	return b.String()
}

// Rect draws a rectangle; tip, when set, becomes its hover text.
func (d *Doc) Rect(x, y, w, h float64, class, tip string, a Attrs) {
	fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" class="%s"%s>`, num(x), num(y), num(math.Max(w, 0)), num(math.Max(h, 0)), Esc(class), a)
	d.tip(tip)
	d.b.WriteString("</rect>")
}

// Line draws a segment.
func (d *Doc) Line(x1, y1, x2, y2 float64, class string) {
	fmt.Fprintf(&d.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" class="%s"/>`, num(x1), num(y1), num(x2), num(y2), Esc(class))
}

// Polyline joins points (x0, y0, x1, y1, ...).
func (d *Doc) Polyline(class string, xy ...float64) {
	var pts []string
	for i := 0; i+1 < len(xy); i += 2 {
		pts = append(pts, num(xy[i])+","+num(xy[i+1]))
	}
	fmt.Fprintf(&d.b, `<polyline points="%s" class="%s"/>`, strings.Join(pts, " "), Esc(class))
}

// Circle draws a dot.
func (d *Doc) Circle(cx, cy, r float64, class, tip string, a Attrs) {
	fmt.Fprintf(&d.b, `<circle cx="%s" cy="%s" r="%s" class="%s"%s>`, num(cx), num(cy), num(r), Esc(class), a)
	d.tip(tip)
	d.b.WriteString("</circle>")
}

// Text writes a label; anchor is start, middle or end.
func (d *Doc) Text(x, y float64, anchor, class, text string) {
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s" class="%s">%s</text>`, num(x), num(y), anchor, Esc(class), Esc(text))
}

// RotatedText writes a label turned by deg degrees about its anchor point.
func (d *Doc) RotatedText(x, y, deg float64, anchor, class, text string) {
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s" class="%s" transform="rotate(%s %s %s)">%s</text>`,
		num(x), num(y), anchor, Esc(class), num(deg), num(x), num(y), Esc(text))
}

// Group opens a <g>; close it with End.
func (d *Doc) Group(class string, a Attrs) {
	fmt.Fprintf(&d.b, `<g class="%s"%s>`, Esc(class), a)
}

// End closes the last Group.
func (d *Doc) End() { d.b.WriteString("</g>") }

func (d *Doc) tip(t string) {
	if t != "" {
		fmt.Fprintf(&d.b, "<title>%s</title>", Esc(t))
	}
}

// String closes the drawing and returns it.
func (d *Doc) String() string { return d.b.String() + "</svg>" }

// ticks returns about n round tick values from lo up to the first at or
// above hi, so an axis ending at the last tick holds every value.
func ticks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for i := math.Ceil(lo/step - 1e-9); ; i++ {
		v := i*step + 0 // +0 turns -0 into 0
		out = append(out, v)
		if v >= hi-step*1e-9 {
			return out
		}
	}
}
