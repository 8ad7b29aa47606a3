package svg

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDoc(t *testing.T) {
	d := New(100, 50, "chart", `a "title" <b>`)
	d.Rect(1, 2.345, 3, -4, "bar", "tip & more", Attrs{"data-x": `"<x>"`})
	d.Text(5, 6, "end", "tick", "</svg><script>")
	assert.Equal(t, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 50" width="100" height="50" class="chart" role="img" aria-label="a &#34;title&#34; &lt;b&gt;">`+
		`<title>a &#34;title&#34; &lt;b&gt;</title>`+
		`<rect x="1" y="2.35" width="3" height="0" class="bar" data-x="&#34;&lt;x&gt;&#34;"><title>tip &amp; more</title></rect>`+
		`<text x="5" y="6" text-anchor="end" class="tick">&lt;/svg&gt;&lt;script&gt;</text></svg>`, d.String())
}

func TestTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		n      int
		want   []float64
	}{
		{0, 100, 5, []float64{0, 20, 40, 60, 80, 100}},
		{0, 1, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 0.0315, 5, []float64{0, 0.01, 0.02, 0.03, 0.04}},
		{0, 0, 5, []float64{0}},
	}
	for _, tt := range tests {
		got := ticks(tt.lo, tt.hi, tt.n)
		assert.Len(t, got, len(tt.want), "%v..%v", tt.lo, tt.hi)
		for i := range got {
			assert.InDelta(t, tt.want[i], got[i], 1e-12)
			assert.False(t, math.Signbit(got[i]), "no -0")
		}
	}
}

func TestChartsEscapeLabels(t *testing.T) {
	evil := `<img src=x onerror="alert(1)">`
	ref := 25.0
	for name, out := range map[string]string{
		"bars":    BarChart{Title: evil, Series: []string{evil}, Groups: []BarGroup{{Label: evil, Bars: []*Bar{{Value: 50, Lo: 40, Hi: 60, Interval: true, Tip: evil}, nil}}}, Max: 100, YLabel: evil, Reference: &ref, RefLabel: evil}.SVG(),
		"scatter": Scatter{Title: evil, XLabel: evil, YLabel: evil, Points: []Point{{Label: evil, X: 0.01, Y: 0.5, YLo: 0.4, YHi: 0.6, Tip: evil, Attrs: Attrs{"data-model": evil}}}, YMax: 1, Frontier: []int{0}, MarkerID: "m"}.SVG(),
		"heatmap": Heatmap{Title: evil, Rows: []string{evil}, Cols: []string{evil, "b"}, Values: [][]float64{{50, math.NaN()}}, Max: 100}.SVG(),
	} {
		assert.NotContains(t, out, "<img", name)
		assert.Contains(t, out, "&lt;img", name)
		assert.True(t, strings.HasPrefix(out, "<svg ") && strings.HasSuffix(out, "</svg>"), name)
	}
}

func TestShade(t *testing.T) {
	assert.Equal(t, "rgb(247,251,255)", Shade(0))
	assert.Equal(t, "rgb(8,69,148)", Shade(1))
	assert.Equal(t, "rgb(128,160,202)", Shade(0.5))
}

// TestRoomForTurnedLabels: a chart is sized so that its longest turned
// label fits inside it, on every side it reaches.
func TestRoomForTurnedLabels(t *testing.T) {
	long := strings.Repeat("W", 28)
	size := func(svg string) (w, h float64) {
		var x, y float64
		_, err := fmt.Sscanf(svg[strings.Index(svg, `viewBox="`):], `viewBox="%f %f %f %f"`, &x, &y, &w, &h)
		require.NoError(t, err)
		return w, h
	}
	// Bars: the first group's label reaches left from its group's middle,
	// every label down from the axis.
	bars := BarChart{Max: 100, Series: []string{"s"}, Groups: []BarGroup{{Label: long, Bars: []*Bar{{Value: 1}}}, {Label: "b", Bars: []*Bar{{Value: 1}}}}}
	_, h := size(bars.SVG())
	dx, dy := turned(labelLen(clip(long, 28)), 35)
	assert.GreaterOrEqual(t, h, plotTop+plotHeight+14+dy)
	assert.Contains(t, bars.SVG(), `<text x="`+num(dx-44/2+8+44/2)+`"`, "the first label ends in the middle of its group, its whole length from the left edge")
	// Heatmap: the last column's label reaches up and right.
	hm := Heatmap{Rows: []string{"r"}, Cols: []string{"a", long}, Values: [][]float64{{1, 2}}, Max: 2}
	w, _ := size(hm.SVG())
	dx, _ = turned(labelLen(clip(long, 22)), 40)
	assert.GreaterOrEqual(t, w, 6.5+12+64+32+dx)
	// Scatter: the rightmost point's label fits on the right.
	sc := Scatter{YMax: 1, Points: []Point{{Label: long, X: 1, Y: 0.5}}}
	w, _ = size(sc.SVG())
	assert.GreaterOrEqual(t, w, 640-plotRight-120+8+labelLen(clip(long, 24)))
}
