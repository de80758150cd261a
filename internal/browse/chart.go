package browse

import (
	"bytes"
	"fmt"
	"html/template"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Chart is one SVG figure of a page.
type Chart struct {
	Name  string
	Title string
	SVG   template.HTML
}

// percentiles are the points of a percentile distribution.
var percentiles = []float64{0, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.99, 99.995, 99.999, 99.9995, 99.9999}

// nines places percentile p on the "number of nines" axis: 90% is 1,
// 99% 2, 99.9% 3.
func nines(p float64) float64 { return -math.Log10(1 - p/100) }

// distributionPoints is the latency (ms) at each percentile that d's
// count resolves, and the maximum at the end; nil without a histogram.
func distributionPoints(d result.Dist) (plotter.XYs, error) {
	if d.Count == 0 || d.Hist == "" {
		return nil, nil
	}
	h, err := hist.Decode(d.Hist)
	if err != nil {
		return nil, err
	}
	var pts plotter.XYs
	last := 0.0
	for _, p := range percentiles {
		if p > 0 && 1-p/100 < 1/float64(d.Count) {
			break
		}
		last = p
		pts = append(pts, plotter.XY{X: nines(p), Y: float64(h.ValueAtPercentile(p)) / 1000})
	}
	// The maximum sits one step of resolution past the last percentile
	// the count resolves.
	pts = append(pts, plotter.XY{X: math.Max(nines(last)+0.3, math.Log10(float64(d.Count))), Y: float64(h.Max()) / 1000})
	return pts, nil
}

// distributionChart draws the latency percentile distribution of one
// operation type, a line per run and a thicker one for the merge; nil
// when no run has a histogram.
func distributionChart(op string, heads []Head, oc OpComparison) (*Chart, error) {
	p := plot.New()
	p.Title.Text = op + ": latency by percentile"
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = "latency ms (log)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.X.Tick.Marker = ninesTicks{}
	p.Legend.Top, p.Legend.Left = false, false // bottom right: the curves rise to the right
	drawn := 0
	lo, hi := math.Inf(1), 0.0
	add := func(name string, d result.Dist, i int, width vg.Length) error {
		pts, err := distributionPoints(d)
		if err != nil || pts == nil {
			return err
		}
		for j := range pts {
			pts[j].Y = math.Max(pts[j].Y, 0.001)
			lo, hi = math.Min(lo, pts[j].Y), math.Max(hi, pts[j].Y)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Width = width
		p.Add(l)
		p.Legend.Add(name, l)
		drawn++
		return nil
	}
	for i, r := range oc.Rows {
		if r == nil {
			continue
		}
		if err := add(heads[i].RunID+" "+heads[i].Label, r.Latency, i, vg.Points(1.2)); err != nil {
			return nil, fmt.Errorf("%s chart: %w", op, err)
		}
	}
	if oc.Merged != nil && len(oc.Rows) > 1 {
		if err := add("merged (exact)", oc.Merged.Latency, len(oc.Rows), vg.Points(2.5)); err != nil {
			return nil, fmt.Errorf("%s chart: %w", op, err)
		}
	}
	if drawn == 0 {
		return nil, nil
	}
	logRange(&p.Y, lo, hi)
	svg, err := renderSVG(p)
	if err != nil {
		return nil, fmt.Errorf("%s chart: %w", op, err)
	}
	return &Chart{Name: "distribution-" + op, Title: p.Title.Text, SVG: svg}, nil
}

// logRange sets a log axis's range around the plotted values, so a flat
// line (every value equal) still has a range above 0.
func logRange(ax *plot.Axis, lo, hi float64) {
	if lo <= 0 || hi <= 0 {
		return
	}
	ax.Min, ax.Max = lo/1.5, hi*1.5
}

// ninesTicks labels the number-of-nines axis in percent.
type ninesTicks struct{}

func (ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for n := 0.0; n <= math.Ceil(hi); n++ {
		if n < lo-1e-9 {
			continue
		}
		pct := 100 * (1 - math.Pow(10, -n))
		ts = append(ts, plot.Tick{Value: n, Label: strconv.FormatFloat(pct, 'f', -1, 64) + "%"})
	}
	return ts
}

func renderSVG(p *plot.Plot) (svg template.HTML, err error) {
	defer func() {
		if r := recover(); r != nil { // gonum/plot reports bad ranges by panicking
			svg, err = "", fmt.Errorf("draw %q: %v", p.Title.Text, r)
		}
	}()
	w, err := p.WriterTo(7*vg.Inch, 4*vg.Inch, "svg")
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return "", err
	}
	return inline(b.Bytes()), nil
}

// inline makes a generated SVG document an element of the page: the XML
// prolog and comments before <svg are dropped. Text in it (titles, run ids,
// labels) was escaped by the SVG writer.
func inline(svg []byte) template.HTML {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		svg = svg[i:]
	}
	return template.HTML(svg)
}
