package svg

import (
	"fmt"
	"math"
)

// Bar is one bar: a value with an optional interval drawn as a whisker.
type Bar struct {
	Value  float64
	Lo, Hi float64
	// Interval says whether Lo and Hi are drawn.
	Interval bool
	Tip      string
}

// BarGroup is one label on the x axis with one bar per series; a nil bar
// is a gap (the model was not run in that series).
type BarGroup struct {
	Label string
	Bars  []*Bar
}

// BarChart is a vertical grouped bar chart on a fixed 0..Max axis.
type BarChart struct {
	Title  string
	Series []string
	Groups []BarGroup
	// Max is the top of the axis (100 for percentages).
	Max    float64
	YLabel string
	// Reference, when set, draws a dashed line (chance, say) labelled RefLabel.
	Reference *float64
	RefLabel  string
}

// Layout constants shared by the charts, in user units.
const (
	plotTop    = 40.0
	plotLeft   = 56.0
	plotRight  = 16.0
	plotHeight = 220.0
	// charW is an upper estimate of the advance of one character of an
	// 11-unit label (the widest common sans fonts set digits and capitals
	// at about 0.64 em): room for labels is sized with it, so none is cut.
	charW = 7.2
)

// labelLen is the estimated length of a label in user units.
func labelLen(s string) float64 { return charW * float64(len([]rune(s))) }

// turned is how far a label of length l turned by deg degrees reaches
// across (dx) and down or up (dy), plus the label's own height.
func turned(l, deg float64) (dx, dy float64) {
	sin, cos := math.Sincos(deg * math.Pi / 180)
	return l*math.Abs(cos) + 11*math.Abs(sin), l*math.Abs(sin) + 11*math.Abs(cos)
}

// SVG draws the chart.
func (c BarChart) SVG() string {
	nSeries := max(len(c.Series), 1)
	barW := 16.0
	groupW := math.Max(float64(nSeries)*barW+18, 44)
	// Group labels are turned 35° and end under their group: each one
	// reaches left and down by its length, which sets the room on the
	// left and below.
	left, below := plotLeft, 40.0
	for gi, g := range c.Groups {
		dx, dy := turned(labelLen(clip(g.Label, 28)), 35)
		left = math.Max(left, dx-float64(gi)*groupW-groupW/2+8)
		below = math.Max(below, 14+dy+8)
	}
	w := left + plotRight + math.Max(float64(len(c.Groups))*groupW, 360)
	h := plotTop + plotHeight + below
	d := New(w, h, "chart bars", c.Title)
	top := c.Max
	if top <= 0 {
		top = 1
	}
	y := func(v float64) float64 { return plotTop + plotHeight*(1-math.Min(math.Max(v, 0), top)/top) }

	// Axis with horizontal grid lines.
	for _, t := range ticks(0, top, 5) {
		d.Line(left, y(t), w-plotRight, y(t), "grid")
		d.Text(left-6, y(t)+4, "end", "tick", num(t))
	}
	d.RotatedText(left-40, plotTop+plotHeight/2, -90, "middle", "axis-label", c.YLabel)
	if c.Reference != nil {
		d.Line(left, y(*c.Reference), w-plotRight, y(*c.Reference), "reference")
		d.Text(w-plotRight, y(*c.Reference)-4, "end", "reference-label", c.RefLabel)
	}

	// Legend.
	for i, s := range c.Series {
		x := left + float64(i)*130
		d.Rect(x, 12, 12, 12, fmt.Sprintf("series-%d", i), "", nil)
		d.Text(x+16, 22, "start", "legend", s)
	}

	for gi, g := range c.Groups {
		x0 := left + float64(gi)*groupW + (groupW-float64(len(g.Bars))*barW)/2
		for si, b := range g.Bars {
			if b == nil {
				continue
			}
			x := x0 + float64(si)*barW
			d.Rect(x+1, y(b.Value), barW-2, y(0)-y(b.Value), fmt.Sprintf("bar series-%d", si), b.Tip, nil)
			if b.Interval {
				d.whisker(x+barW/2, y(b.Lo), y(b.Hi))
			}
		}
		lx := x0 + float64(len(g.Bars))*barW/2
		d.RotatedText(lx, y(0)+14, -35, "end", "group-label", clip(g.Label, 28))
	}
	d.Line(left, y(0), w-plotRight, y(0), "axis")
	return d.String()
}

// whisker draws an interval at x from y1 to y2, with caps.
func (d *Doc) whisker(x, y1, y2 float64) {
	d.Line(x, y1, x, y2, "whisker")
	d.Line(x-3, y1, x+3, y1, "whisker")
	d.Line(x-3, y2, x+3, y2, "whisker")
}

// Point is one dot of a scatter: X with Y and Y's interval.
type Point struct {
	Label    string
	X, Y     float64
	YLo, YHi float64
	Tip      string
	Attrs    Attrs
}

// Scatter plots points with vertical error bars; Frontier lists indices of
// Points joined, in that order, by a step line (each step: right at the
// previous height, then up).
type Scatter struct {
	Title          string
	XLabel, YLabel string
	Points         []Point
	// LogX uses a log10 x axis; every X must then be positive.
	LogX bool
	// YMax is the top of the y axis (Y runs from 0).
	YMax     float64
	Frontier []int
	// FormatX and FormatY write tick labels.
	FormatX, FormatY func(float64) string
	// MarkerID, when set, adds a horizontal line with that id at y = 0 and
	// data-top/data-bottom attributes (the y of YMax and of 0), for a
	// script to move to a chosen height.
	MarkerID string
}

// SVG draws the scatter.
func (s Scatter) SVG() string {
	// Point labels start right of their point: the longest sets the room
	// right of the plot.
	room := 120.0
	for _, p := range s.Points {
		room = math.Max(room, 8+labelLen(clip(p.Label, 24))+8)
	}
	right := 640 - plotRight - 120.0
	w, h := right+plotRight+room, plotTop+plotHeight+60
	d := New(w, h, "chart scatter", s.Title)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, p := range s.Points {
		xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
	}
	tr := func(v float64) float64 { return v }
	if s.LogX {
		tr = math.Log10
	}
	var xt []float64
	switch {
	case len(s.Points) == 0:
		xlo, xhi = 0, 1
		xt = ticks(0, 1, 4)
	case s.LogX:
		lo, hi := math.Floor(math.Log10(xlo)), math.Ceil(math.Log10(xhi))
		if hi == lo {
			hi++
		}
		xlo, xhi = math.Pow(10, lo), math.Pow(10, hi)
		for e := lo; e <= hi; e++ {
			xt = append(xt, math.Pow(10, e))
		}
	default:
		xlo = 0
		if xhi <= 0 {
			xhi = 1
		}
		xt = ticks(0, xhi*1.05, 5)
		xhi = xt[len(xt)-1]
	}
	x := func(v float64) float64 {
		span := tr(xhi) - tr(xlo)
		if span == 0 {
			return plotLeft
		}
		return plotLeft + (right-plotLeft)*(tr(v)-tr(xlo))/span
	}
	ymax := s.YMax
	if ymax <= 0 {
		ymax = 1
	}
	y := func(v float64) float64 { return plotTop + plotHeight*(1-math.Min(math.Max(v, 0), ymax)/ymax) }
	fx, fy := s.FormatX, s.FormatY
	if fx == nil {
		fx = num
	}
	if fy == nil {
		fy = num
	}

	for _, t := range ticks(0, ymax, 5) {
		d.Line(plotLeft, y(t), right, y(t), "grid")
		d.Text(plotLeft-6, y(t)+4, "end", "tick", fy(t))
	}
	for _, t := range xt {
		d.Line(x(t), plotTop, x(t), y(0), "grid")
		d.Text(x(t), y(0)+16, "middle", "tick", fx(t))
	}
	d.Line(plotLeft, y(0), right, y(0), "axis")
	d.Line(plotLeft, plotTop, plotLeft, y(0), "axis")
	d.Text((plotLeft+right)/2, h-12, "middle", "axis-label", s.XLabel)
	d.RotatedText(14, plotTop+plotHeight/2, -90, "middle", "axis-label", s.YLabel)

	if len(s.Frontier) > 0 {
		var xy []float64
		for i, pi := range s.Frontier {
			p := s.Points[pi]
			if i > 0 {
				xy = append(xy, x(p.X), xy[len(xy)-1])
			}
			xy = append(xy, x(p.X), y(p.Y))
		}
		d.Polyline("frontier", xy...)
	}
	if s.MarkerID != "" {
		fmt.Fprintf(&d.b, `<line id="%s" class="bar-line" x1="%s" y1="%s" x2="%s" y2="%s" data-top="%s" data-bottom="%s"/>`,
			Esc(s.MarkerID), num(plotLeft), num(y(0)), num(right), num(y(0)), num(y(ymax)), num(y(0)))
	}
	for _, p := range s.Points {
		d.Group("point", p.Attrs)
		d.whisker(x(p.X), y(p.YLo), y(p.YHi))
		d.Circle(x(p.X), y(p.Y), 5, "dot", p.Tip, nil)
		d.Text(x(p.X)+8, y(p.Y)+4, "start", "point-label", clip(p.Label, 24))
		d.End()
	}
	return d.String()
}

// Heatmap colours a grid of values on 0..Max; NaN cells are blank.
type Heatmap struct {
	Title      string
	Rows, Cols []string
	Values     [][]float64
	Max        float64
	// Format writes a cell's text.
	Format func(float64) string
}

// SVG draws the heatmap.
func (m Heatmap) SVG() string {
	cellW, cellH := 64.0, 24.0
	left := 16.0
	for _, r := range m.Rows {
		left = math.Max(left, 6.5*float64(len([]rune(clip(r, 60))))+12)
	}
	// Column labels are turned 40° up and to the right from their
	// column: the longest sets the room on top, the last ones the room on
	// the right.
	top := 40.0
	w := left + cellW*float64(len(m.Cols)) + 16
	for ci, c := range m.Cols {
		dx, dy := turned(labelLen(clip(c, 22)), 40)
		top = math.Max(top, 8+dy+4)
		w = math.Max(w, left+cellW*float64(ci)+cellW/2+dx+8)
	}
	h := top + cellH*float64(len(m.Rows)) + 8
	d := New(w, h, "chart heatmap", m.Title)
	format := m.Format
	if format == nil {
		format = num
	}
	for ci, c := range m.Cols {
		d.RotatedText(left+cellW*float64(ci)+cellW/2, top-8, -40, "start", "group-label", clip(c, 22))
	}
	for ri, r := range m.Rows {
		yy := top + cellH*float64(ri)
		d.Text(left-8, yy+cellH/2+4, "end", "row-label", clip(r, 60))
		for ci := range m.Cols {
			v := math.NaN()
			if ri < len(m.Values) && ci < len(m.Values[ri]) {
				v = m.Values[ri][ci]
			}
			xx := left + cellW*float64(ci)
			if math.IsNaN(v) {
				d.Rect(xx, yy, cellW-2, cellH-2, "cell empty", r+" × "+m.Cols[ci]+": not run", nil)
				continue
			}
			frac := 0.0
			if m.Max > 0 {
				frac = math.Min(math.Max(v/m.Max, 0), 1)
			}
			d.Rect(xx, yy, cellW-2, cellH-2, "cell", r+" × "+m.Cols[ci]+": "+format(v), Attrs{"fill": Shade(frac)})
			cls := "cell-text"
			if frac > 0.55 {
				cls = "cell-text dark"
			}
			d.Text(xx+cellW/2-1, yy+cellH/2+4, "middle", cls, format(v))
		}
	}
	return d.String()
}

// Shade maps 0..1 onto a white-to-blue ramp, as an rgb() colour.
func Shade(frac float64) string {
	lo := [3]float64{247, 251, 255}
	hi := [3]float64{8, 69, 148}
	var c [3]int
	for i := range c {
		c[i] = int(math.Round(lo[i] + (hi[i]-lo[i])*frac))
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", c[0], c[1], c[2])
}

// clip shortens a label to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
