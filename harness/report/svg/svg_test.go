package svg

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
