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

// single wraps a one-plot chart as a figure of the standard size.
func single(build func(*result.Doc) *plot.Plot) func(*result.Doc) *figure {
	return func(d *result.Doc) *figure {
		p := build(d)
		if p == nil {
			return nil
		}
		return stack([]*plot.Plot{p}, []vg.Length{chartHeight}, chartWidth+legendExtra)
	}
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

// Charts renders a run's per-interval charts as SVG: successful
// operations per second per operation type (with the target rate in open
// loop); p99 latency and p99 service time per operation type on a
// logarithmic scale; and p99 latency per second above the server and host
// telemetry the run recorded, on a shared time axis (see telemetryFigure).
// A run without intervals has no charts, one without any latency
// percentile has no latency chart, and one without any of the plotted
// telemetry keys has no telemetry chart. The same document always renders
// to the same bytes.
func Charts(d *result.Doc) ([]Chart, error) {
	if len(d.Intervals) == 0 {
		return nil, nil
	}
	var charts []Chart
	for _, c := range []struct {
		name  string
		build func(*result.Doc) *figure
	}{
		{"throughput", single(throughputPlot)},
		{"latency", single(latencyPlot)},
		{"telemetry", telemetryFigure},
	} {
		fig := c.build(d)
		if fig == nil {
			continue
		}
		svg, err := render(fig)
		if err != nil {
			return nil, fmt.Errorf("render %s chart: %w", c.name, err)
		}
		charts = append(charts, Chart{Name: c.name, SVG: svg})
	}
	return charts, nil
}

// throughputPlot plots successful operations per second per operation
// type that succeeded at all in the run (a type outside the mix is no
// flat line at zero); with more than one, their total in black; and the
// target rate, a total, as a dashed grey line.
func throughputPlot(d *result.Doc) *plot.Plot {
	p := newPlot(d, "throughput", "ops/s")
	var names []string
	for _, name := range opNames(d) {
		if completedAny(d, name) {
			names = append(names, name)
		}
	}
	for i, name := range names {
		addSeries(p, name, intervalSeries(d, name, intervalRate), plotutil.Color(i), nil)
	}
	if len(names) > 1 {
		addSeries(p, "total", totalSeries(d), color.Black, nil)
	}
	if t := d.Schedule.TargetRate; isOpen(d) && t != nil {
		end := intervalEnd(d, d.Intervals[len(d.Intervals)-1])
		addSeries(p, "target (total)", []*plotter.XY{{X: 0, Y: *t}, {X: end, Y: *t}}, targetGrey, dashed)
	}
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

// totalSeries is the successes of every operation type per second, one
// point per interval.
func totalSeries(d *result.Doc) []*plotter.XY {
	pts := make([]*plotter.XY, len(d.Intervals))
	for i, iv := range d.Intervals {
		if iv.Seconds <= 0 {
			continue
		}
		var n int64
		for _, o := range iv.Ops {
			n += o.Count
		}
		pts[i] = &plotter.XY{X: intervalEnd(d, iv), Y: float64(n) / iv.Seconds}
	}
	return pts
}

// latencyPlot plots p99 latency (solid) and p99 service time (dashed) per
// operation type on a log scale, or returns nil when there is nothing to
// plot.
func latencyPlot(d *result.Doc) *plot.Plot {
	p := newPlot(d, "p99 latency and service time", "ms (log scale)")
	plotted := false
	for i, name := range opNames(d) {
		lat := intervalSeries(d, name, func(o *result.OpStats, _ float64) *float64 { return o.Latency.P99 })
		svc := intervalSeries(d, name, func(o *result.OpStats, _ float64) *float64 { return o.Service.P99 })
		plotted = addSeries(p, name+" latency", positive(lat), plotutil.Color(i), nil) || plotted
		plotted = addSeries(p, name+" service", positive(svc), plotutil.Color(i), dashed) || plotted
	}
	if !plotted {
		return nil
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(p.Y.Min)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(p.Y.Max)))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
	return p
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

// intervalSeries returns one point per interval: the interval's end in
// seconds and value(op) for the named operation type, or a nil point where
// the value is missing. An interval without the operation counts as zero
// completions.
func intervalSeries(d *result.Doc, name string, value func(*result.OpStats, float64) *float64) []*plotter.XY {
	var pts []*plotter.XY
	for _, iv := range d.Intervals {
		o := &result.OpStats{Name: name}
		for i := range iv.Ops {
			if iv.Ops[i].Name == name {
				o = &iv.Ops[i]
			}
		}
		var pt *plotter.XY
		if v := value(o, iv.Seconds); v != nil {
			pt = &plotter.XY{X: intervalEnd(d, iv), Y: *v}
		}
		pts = append(pts, pt)
	}
	return pts
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
