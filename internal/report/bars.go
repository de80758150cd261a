package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Bar is one bar of a bar chart; a nil Value was not measured and is
// left out (its name stays on the axis, with no bar).
type Bar struct {
	Name  string
	Value *float64
	// Marked bars (the baseline) are drawn in a colour of their own.
	Marked bool
}

var (
	barBlue   = color.RGBA{R: 70, G: 110, B: 180, A: 255}
	barOrange = color.RGBA{R: 230, G: 140, B: 40, A: 255}
)

// BarChart renders one value per candidate as an SVG bar chart, marked
// bars (the baseline) in orange and labelled in the title's note. It
// returns nil when no bar has a value.
func BarChart(title, yLabel, markNote string, bars []Bar) ([]byte, error) {
	var names []string
	var vals, marked plotter.Values
	some := false
	for _, b := range bars {
		names = append(names, b.Name)
		v, m := math.NaN(), math.NaN()
		if b.Value != nil {
			some = true
			if b.Marked {
				m = *b.Value
			} else {
				v = *b.Value
			}
		}
		vals, marked = append(vals, zeroNaN(v)), append(marked, zeroNaN(m))
	}
	if !some {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = title
	if markNote != "" {
		p.Title.Text += " (" + markNote + " in orange)"
	}
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	w := vg.Points(28)
	for _, s := range []struct {
		v plotter.Values
		c color.Color
	}{{vals, barBlue}, {marked, barOrange}} {
		bc, err := plotter.NewBarChart(s.v, w)
		if err != nil {
			return nil, fmt.Errorf("bar chart %s: %w", title, err)
		}
		bc.Color = s.c
		bc.LineStyle.Width = 0
		p.Add(bc)
	}
	p.NominalX(names...)
	return render(&figure{width: chartWidth, height: chartHeight, draw: p.Draw})
}

// zeroNaN draws a missing bar as no bar at all (height 0 is not drawn as a
// value: the axis label stays, the bar is absent).
func zeroNaN(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
