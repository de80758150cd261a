package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/mongobench/mongobench/internal/result"
)

// Chart is one rendered chart of a run.
type Chart struct {
	Name string // "throughput", "latency" or "telemetry"; also the Markdown alt text
	SVG  []byte
}

// figure is a chart ready to draw: its size and how to draw it.
type figure struct {
	width, height vg.Length
	draw          func(draw.Canvas)
}

// svgSize is the standard size of a one-plot chart.
func svgSize(p *plot.Plot) *figure {
	return stack([]*plot.Plot{p}, []vg.Length{chartHeight}, chartWidth+legendExtra)
}

const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4 * vg.Inch
	legendExtra = 1.5 * vg.Inch // the legend column right of a chart's plot
	titlePad    = 8             // points above and below a title
	xLabel      = "seconds into measured phase"
)

var (
	lineWidth  = vg.Points(1.5)
	dashed     = []vg.Length{vg.Points(5), vg.Points(3)}
	targetGrey = color.Gray{Y: 110}
)

// Charts renders a run's charts over time as SVG, from its view's
// series (see timeCharts): p99 latency and service time per operation
// type on a logarithmic scale, drawn on top of the server and host
// telemetry the run recorded on a shared time axis when it recorded any
// (see telemetryFigure), and successful operations per second per
// operation type with the target rate in open loop. A run without
// intervals has no charts. The same document always renders to the same
// bytes.
func Charts(d *result.Doc) ([]Chart, error) {
	v, err := NewRunView(d)
	if err != nil {
		return nil, err
	}
	return v.SVGCharts()
}

// SVGCharts draws the view's charts over time as SVG.
func (v *RunView) SVGCharts() ([]Chart, error) {
	d := v.doc
	if len(d.Intervals) == 0 {
		return nil, nil
	}
	var lat, thr *TimeChart
	for i := range v.Charts {
		switch v.Charts[i].Name {
		case "latency":
			lat = &v.Charts[i]
		case "throughput":
			thr = &v.Charts[i]
		}
	}
	var figs []namedFigure
	if fig := telemetryFigure(d, lat); fig != nil {
		figs = append(figs, namedFigure{"telemetry", fig})
	} else if lat != nil {
		if p := latencyPlot(d, *lat); p != nil {
			figs = append(figs, namedFigure{"latency", svgSize(p)})
		}
	}
	if thr != nil {
		figs = append(figs, namedFigure{"throughput", svgSize(throughputPlot(d, *thr))})
	}
	var charts []Chart
	for _, f := range figs {
		svg, err := render(f.fig)
		if err != nil {
			return nil, fmt.Errorf("render %s chart: %w", f.name, err)
		}
		charts = append(charts, Chart{Name: f.name, SVG: svg})
	}
	return charts, nil
}

type namedFigure struct {
	name string
	fig  *figure
}

// throughputPlot plots the throughput chart's lines, from zero up.
func throughputPlot(d *result.Doc, c TimeChart) *plot.Plot {
	p := newPlot(d, "throughput", c.YLabel)
	drawLines(p, c)
	p.Y.Min = 0
	p.Y.Max = math.Max(p.Y.Max*1.05, 1)
	p.Y.Tick.Marker = niceTicks{n: 5}
	return p
}

// completedAny reports whether the operation type succeeded in any
// interval.
func completedAny(d *result.Doc, name string) bool {
	for _, iv := range d.Intervals {
		for _, o := range iv.Ops {
			if o.Name == name && o.Count > 0 {
				return true
			}
		}
	}
	return false
}

// latencyPlot plots the latency chart's lines on a log scale, or returns
// nil when none has a value it can place.
func latencyPlot(d *result.Doc, c TimeChart) *plot.Plot {
	p := newPlot(d, "p99 latency and service time", c.YLabel)
	if !drawLines(p, c) {
		return nil
	}
	logScale(p)
	return p
}

// logScale sets a plot's y axis logarithmic, over whole decades.
func logScale(p *plot.Plot) {
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(p.Y.Min)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(p.Y.Max)))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
}

// drawLines draws a time chart's lines: measured ones in the palette
// (dashed where the line says), the total in black, and a reference
// (the target) grey and dashed from the start of the phase to its end.
// On a log scale, values it cannot place are gaps. It reports whether
// anything was drawn.
func drawLines(p *plot.Plot, c TimeChart) bool {
	plotted := false
	for _, l := range c.Lines {
		pts := make([]*plotter.XY, len(l.Y))
		for i, y := range l.Y {
			if y != nil {
				pts[i] = &plotter.XY{X: c.X[i], Y: *y}
			}
		}
		col, dash := plotutil.Color(l.Color), []vg.Length(nil)
		if l.Dash {
			dash = dashed
		}
		switch l.Kind {
		case LineTotal:
			col = color.Black
		case LineReference:
			col = targetGrey
			if len(pts) > 0 && pts[0] != nil {
				pts = []*plotter.XY{{X: 0, Y: pts[0].Y}, {X: c.X[len(c.X)-1], Y: pts[0].Y}}
			}
		}
		if c.Log {
			pts = positive(pts)
		}
		plotted = addSeries(p, l.Label, pts, col, dash) || plotted
	}
	return plotted
}

// newPlot returns an empty plot with the run's title and axis labels.
func newPlot(d *result.Doc, what, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s %s: %s", d.TestName, d.RunID, what)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Min = 0
	p.X.Tick.Marker = niceTicks{}
	p.Title.Padding = vg.Points(titlePad)
	p.Add(plotter.NewGrid())
	return p
}

// intervalRate is an operation's successes per second in an interval of
// the given length.
func intervalRate(o *result.OpStats, secs float64) *float64 {
	if secs <= 0 {
		return nil
	}
	return result.F(float64(o.Count) / secs)
}

// intervalEnd is the end of an interval in seconds from the start of the
// measured phase.
func intervalEnd(d *result.Doc, iv result.Interval) float64 {
	return iv.Start.Sub(origin(d)).Seconds() + iv.Seconds
}

// positive replaces points that a log scale cannot show by gaps.
func positive(pts []*plotter.XY) []*plotter.XY {
	out := make([]*plotter.XY, len(pts))
	for i, p := range pts {
		if p != nil && p.Y > 0 {
			out[i] = p
		}
	}
	return out
}

// addSeries draws pts as a line, broken where a point is missing, and
// names it in the legend. A point with no neighbours is drawn as a dot.
// It reports whether anything was drawn.
func addSeries(p *plot.Plot, name string, pts []*plotter.XY, c color.Color, dashes []vg.Length) bool {
	var key plot.Thumbnailer
	for _, seg := range segments(pts) {
		l, err := plotter.NewLine(seg)
		if err != nil {
			continue // a segment with NaN or Inf is left out
		}
		l.Color, l.Width, l.Dashes = c, lineWidth, dashes
		p.Add(l)
		if len(seg) == 1 {
			s, _ := plotter.NewScatter(seg) // NewLine has vetted seg
			s.Color, s.Shape, s.Radius = c, draw.CircleGlyph{}, lineWidth
			p.Add(s)
		}
		if key == nil {
			key = l
		}
	}
	if key != nil {
		p.Legend.Add(name, key)
	}
	return key != nil
}

// segments splits pts into runs of present points.
func segments(pts []*plotter.XY) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for _, p := range append(pts, nil) {
		if p != nil {
			cur = append(cur, *p)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	return out
}

// render draws fig as an SVG document.
func render(fig *figure) (svg []byte, err error) {
	defer func() {
		if r := recover(); r != nil { // gonum/plot reports bad ranges by panicking
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	c := vgsvg.New(fig.width, fig.height)
	fig.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
