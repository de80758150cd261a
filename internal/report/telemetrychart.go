package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mongobench/mongobench/internal/result"
)

// The telemetry chart stacks panels that share one time axis: p99 latency
// per operation type on top, then one panel per unit of the telemetry
// below. Each panel's legend stands in a column to the right of the plots,
// so that no legend hides data.
const (
	telemetryWidth   = 9 * vg.Inch
	latencyPanelH    = 2.6 * vg.Inch
	telemetryPanelH  = 1.6 * vg.Inch
	xAxisExtra       = 0.35 * vg.Inch // the bottom panel's tick labels and axis label
	legendFontSize   = 10
	legendColumnPad  = 10 // points between the plots and the legend column
	checkpointRunKey = "checkpointRunning"
	checkpointsKey   = "checkpoints"
)

var (
	// checkpointShade fills the intervals in which a checkpoint ran.
	checkpointShade = color.NRGBA{R: 255, G: 160, B: 40, A: 70}
	checkpointMark  = color.Gray{Y: 40}
)

// telemetrySeries is one telemetry key drawn as a line.
type telemetrySeries struct {
	key   string  // interval key, as documented in internal/telemetry
	host  bool    // read from Interval.Host rather than Interval.Server
	name  string  // legend name
	scale float64 // multiplies the recorded value into the panel's unit
	color int     // plotutil.Color index
}

// telemetryPanel is one panel under the latency panel: series that share
// a unit.
type telemetryPanel struct {
	yLabel      string
	series      []telemetrySeries
	checkpoints bool // also marks the intervals in which checkpoints completed
	// omitZero leaves out a series that is zero in every interval (an
	// opcounter of an operation the workload never sends).
	omitZero bool
}

// telemetryPanels lists the panels top to bottom. A series none of the
// intervals records is left out, and a panel with nothing left is too.
var telemetryPanels = []telemetryPanel{
	{yLabel: "dirty MB", checkpoints: true, series: []telemetrySeries{
		{key: "cacheDirtyBytes", name: "dirty cache", scale: 1e-6, color: 4},
	}},
	{yLabel: "disk MB/s", series: []telemetrySeries{
		{key: "diskWriteBytesPerSec", host: true, name: "disk write", scale: 1e-6, color: 2},
	}},
	{yLabel: "CPU %", series: []telemetrySeries{ // of all cores, as the caption says
		{key: "cpuIowaitPct", host: true, name: "host iowait", scale: 1, color: 0},
		{key: "cpuUserPct", host: true, name: "host user", scale: 1, color: 2},
		{key: "procCpuUserPct", host: true, name: "server user", scale: 1, color: 1},
	}},
	{yLabel: "server ops/s", omitZero: true, series: []telemetrySeries{
		{key: "queryPerSec", name: "queries/s", scale: 1, color: 0},
		{key: "getmorePerSec", name: "getMores/s", scale: 1, color: 5},
		{key: "commandPerSec", name: "commands/s", scale: 1, color: 3},
		{key: "insertPerSec", name: "inserts/s", scale: 1, color: 1},
		{key: "updatePerSec", name: "updates/s", scale: 1, color: 6},
		{key: "deletePerSec", name: "deletes/s", scale: 1, color: 2},
	}},
}

// telemetryFigure stacks the latency chart (p99 latency and service time
// per operation type, log scale) above the server and host telemetry of
// the run: dirty cache
// with completed checkpoints marked, disk write throughput, host iowait
// and CPU, and server opcounter rates. Intervals in which a checkpoint ran
// are shaded in every panel. Only series the document records are drawn;
// an interval without a reading is a gap. It returns nil when the run
// recorded none of these telemetry keys.
func telemetryFigure(d *result.Doc, lat *TimeChart) *figure {
	shade := checkpointSpans(d)
	var panels []*plot.Plot
	for _, spec := range telemetryPanels {
		if p := telemetryPlot(d, spec, shade); p != nil {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 && shade == nil {
		return nil
	}
	if len(panels) == 0 { // only checkpointRunning: shade an empty strip
		panels = append(panels, emptyPanel(shade))
	}
	heights := make([]vg.Length, len(panels))
	for i := range heights {
		heights[i] = telemetryPanelH
	}
	what := "server and host telemetry"
	if lat != nil {
		if p := latencyPanel(*lat, shade); p != nil {
			panels = append([]*plot.Plot{p}, panels...)
			heights = append([]vg.Length{latencyPanelH}, heights...)
			what = "p99 latency and service time against server and host telemetry"
		}
	}
	panels[0].Title.Text = fmt.Sprintf("%s %s: %s", d.TestName, d.RunID, what)
	panels[0].Title.Padding = vg.Points(titlePad)
	if shade != nil {
		panels[0].Legend.Add("checkpoint running", shade)
	}
	end := intervalEnd(d, d.Intervals[len(d.Intervals)-1])
	for i, p := range panels {
		p.X.Min, p.X.Max = 0, end
		p.X.Tick.Marker = niceTicks{}
		if i < len(panels)-1 {
			p.X.Tick.Marker = unlabelled{niceTicks{}}
		} else {
			p.X.Label.Text = xLabel
			heights[i] += xAxisExtra
		}
	}
	return stack(panels, heights, telemetryWidth)
}

// latencyPanel draws the latency chart's lines on a log scale, or
// returns nil when none has a value it can place.
func latencyPanel(c TimeChart, shade *spans) *plot.Plot {
	p := panel(c.YLabel, shade)
	if !drawLines(p, c) {
		return nil
	}
	logScale(p)
	return p
}

// telemetryPlot draws one panel's series, or returns nil when the run
// recorded none of them.
func telemetryPlot(d *result.Doc, spec telemetryPanel, shade *spans) *plot.Plot {
	p := panel(spec.yLabel, shade)
	top, lines := 0.0, false
	for _, s := range spec.series {
		pts := telemetryPoints(d, s.key, s.host, s.scale)
		if spec.omitZero && !slices.ContainsFunc(pts, func(p *plotter.XY) bool { return p != nil && p.Y != 0 }) {
			continue
		}
		if addSeries(p, s.name, pts, plotutil.Color(s.color), nil) {
			lines = true
			for _, pt := range pts {
				if pt != nil {
					top = math.Max(top, pt.Y)
				}
			}
		}
	}
	var marks plotter.XYs
	if spec.checkpoints {
		for _, pt := range telemetryPoints(d, checkpointsKey, false, 1) {
			if pt != nil && pt.Y > 0 {
				marks = append(marks, plotter.XY{X: pt.X})
			}
		}
	}
	if !lines && len(marks) == 0 {
		return nil
	}
	if !lines { // only checkpoint marks: a unitless strip
		p.Y.Label.Text = ""
		p.Y.Tick.Marker = plot.ConstantTicks{}
	}
	ymax := math.Max(top*1.15, 1)
	if len(marks) > 0 {
		for i := range marks {
			marks[i].Y = ymax * 0.93 // along the top of the panel
		}
		s, _ := plotter.NewScatter(marks) // finite by construction
		s.Shape = draw.PyramidGlyph{}
		s.Color, s.Radius = checkpointMark, vg.Points(3.5)
		p.Add(s)
		p.Legend.Add("checkpoint completed", s)
	}
	p.Y.Min, p.Y.Max = 0, ymax
	if lines {
		p.Y.Tick.Marker = niceTicks{n: 3}
	}
	return p
}

// emptyPanel is a unitless panel for shading alone.
func emptyPanel(shade *spans) *plot.Plot {
	p := panel("", shade)
	p.Y.Min, p.Y.Max = 0, 1
	p.Y.Tick.Marker = plot.ConstantTicks{}
	return p
}

// panel returns an empty panel with a grid, the checkpoint spans shaded
// (when there are any) and a Y label; the title, X range and X labels are
// set when panels are stacked.
func panel(yLabel string, shade *spans) *plot.Plot {
	p := plot.New()
	p.Y.Label.Text = yLabel
	g := plotter.NewGrid()
	g.Vertical.Color = nil // timeGrid draws these, as upper panels' ticks have no labels
	p.Add(g, timeGrid{})
	if shade != nil {
		p.Add(shade) // under the data, which is added later
	}
	return p
}

// telemetryPoints returns one point per interval: the interval's end and
// its reading of key times scale, or nil (a gap) where the interval has no
// finite reading.
func telemetryPoints(d *result.Doc, key string, host bool, scale float64) []*plotter.XY {
	pts := make([]*plotter.XY, len(d.Intervals))
	for i, iv := range d.Intervals {
		m := iv.Server
		if host {
			m = iv.Host
		}
		if v, ok := m[key]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			pts[i] = &plotter.XY{X: intervalEnd(d, iv), Y: v * scale}
		}
	}
	return pts
}

// checkpointSpans returns the time ranges of consecutive intervals in
// which checkpointRunning was 1, or nil when there are none.
func checkpointSpans(d *result.Doc) *spans {
	var s spans
	open := false
	for _, iv := range d.Intervals {
		v, ok := iv.Server[checkpointRunKey]
		if !ok || v < 0.5 {
			open = false
			continue
		}
		to := intervalEnd(d, iv)
		from := to - iv.Seconds
		if open && len(s) > 0 && s[len(s)-1][1] >= from-1e-9 {
			s[len(s)-1][1] = to
		} else {
			s = append(s, [2]float64{from, to})
		}
		open = true
	}
	if len(s) == 0 {
		return nil
	}
	return &s
}

// spans shades time ranges across the full height of a panel.
type spans [][2]float64

// Plot implements plot.Plotter.
func (s *spans) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	c.SetColor(checkpointShade)
	for _, r := range *s {
		x0 := max(trX(r[0]), c.Min.X)
		x1 := min(trX(r[1]), c.Max.X)
		if x1 <= x0 {
			continue
		}
		c.Fill(vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}.Path())
	}
}

// Thumbnail implements plot.Thumbnailer.
func (s *spans) Thumbnail(c *draw.Canvas) {
	c.SetColor(checkpointShade)
	c.Fill(c.Path())
}

// unlabelled keeps a ticker's tick marks but drops their labels, for the
// time axis of every panel but the bottom one.
type unlabelled struct{ plot.Ticker }

// Ticks implements plot.Ticker.
func (u unlabelled) Ticks(min, max float64) []plot.Tick {
	ts := u.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// timeGrid draws a vertical grid line at each labelled tick of the time
// axis, whether or not the panel shows the labels.
type timeGrid struct{}

// Plot implements plot.Plotter.
func (timeGrid) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, t := range (niceTicks{}).Ticks(p.X.Min, p.X.Max) {
		if x := trX(t.Value); !t.IsMinor() && x >= c.Min.X && x <= c.Max.X {
			c.StrokeLine2(plotter.DefaultGridLineStyle, x, c.Min.Y, x, c.Max.Y)
		}
	}
}

// stack returns a figure of the panels one above the other, each of its
// height, their data
// areas aligned on the time axis and each panel's legend to its right.
func stack(panels []*plot.Plot, heights []vg.Length, width vg.Length) *figure {
	var total vg.Length
	for _, h := range heights {
		total += h
	}
	legends := make([]plot.Legend, len(panels))
	var legendW vg.Length
	for i, p := range panels {
		legends[i] = p.Legend
		legends[i].Top, legends[i].Left = true, true
		legends[i].TextStyle.Font.Size = legendFontSize
		p.Legend = plot.NewLegend() // drawn in the legend column instead
		r := legends[i].Rectangle(draw.Canvas{})
		legendW = max(legendW, r.Max.X-r.Min.X)
	}
	legendW += vg.Points(5 * legendColumnPad) // the text's measure runs short of its drawing
	return &figure{width: width, height: total, draw: func(dc draw.Canvas) {
		plots := draw.Crop(dc, 0, -legendW, 0, 0)
		// Cut the panels top to bottom, then crop each so that the data
		// areas share their left and right edges.
		cs := make([]draw.Canvas, len(panels))
		top := plots.Max.Y
		var left, right vg.Length
		for i, p := range panels {
			cs[i] = plots
			cs[i].Max.Y, cs[i].Min.Y = top, top-heights[i]
			top -= heights[i]
			da := p.DataCanvas(cs[i])
			left = max(left, da.Min.X-cs[i].Min.X)
			right = max(right, cs[i].Max.X-da.Max.X)
		}
		for i, p := range panels {
			da := p.DataCanvas(cs[i])
			c := draw.Crop(cs[i], left-(da.Min.X-cs[i].Min.X), -(right - (cs[i].Max.X - da.Max.X)), 0, 0)
			p.Draw(c)
			da = p.DataCanvas(c)
			lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: dc.Max.X - legendW + vg.Points(legendColumnPad), Y: da.Min.Y},
				Max: vg.Point{X: dc.Max.X, Y: da.Max.Y},
			}}
			legends[i].Draw(lc)
		}
	}}
}
