package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/mongobench/mongobench/internal/result"
)

// Curve is one label's sweep: a point per target rate. Ops holds the same
// sweep per operation type, one curve each, labelled by the operation
// type: at each target, that type's achieved rate and p99.
type Curve struct {
	Label  string
	Points []CurvePoint
	Ops    []Curve
}

// CurvePoint is one target rate of a sweep: the achieved rate and the p99
// in milliseconds (nil: not recorded).
type CurvePoint struct {
	Target, Achieved float64
	P99              *float64
}

// SweepCharts renders the two figures a throughput study is built on, one
// line per curve: achieved against target throughput with the ideal
// diagonal (achieved = target) dashed ("sweep-throughput"), and p99
// against target on a logarithmic scale ("sweep-p99"; left out when no
// curve has a p99), with the SLA on p99 dashed when slaMs is positive.
// Points are sorted by target; each chart's legend stands right of its
// plot. No curve, no charts; the same curves always render to the same
// bytes.
func SweepCharts(title string, curves []Curve, slaMs float64) ([]Chart, error) {
	return curveCharts("sweep", title, curves, true, slaMs)
}

// OpCharts renders, for each operation type of the curves, the same two
// figures with one line per curve (label): that type's achieved rate
// against the target ("<OP>-throughput"), and its p99 against the
// target ("<OP>-p99"; left out when no curve has one). The target axis is
// the sweep's whole target rate, so an operation type's achieved rate
// runs at its share of the target, with no ideal diagonal. Operation
// types come in the order first seen; curves of a single operation type
// between them have none (the whole sweep's charts show it).
func OpCharts(title string, curves []Curve) ([]Chart, error) {
	names := opCurveNames(curves)
	if len(names) < 2 {
		return nil, nil
	}
	var out []Chart
	for _, name := range names {
		charts, err := curveCharts(name, title+" — "+name, opCurves(curves, name), false, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, charts...)
	}
	return out, nil
}

// opCurveNames are the operation types of curves, in the order first
// seen; none for fewer than two.
func opCurveNames(curves []Curve) []string {
	var names []string
	for _, c := range curves {
		for _, o := range c.Ops {
			if !slices.Contains(names, o.Label) {
				names = append(names, o.Label)
			}
		}
	}
	if len(names) < 2 {
		return nil
	}
	return names
}

// opCurves are the curves of one operation type, labelled by their
// curve's label.
func opCurves(curves []Curve, name string) []Curve {
	var per []Curve
	for _, c := range curves {
		i := slices.IndexFunc(c.Ops, func(o Curve) bool { return o.Label == name })
		if i < 0 {
			continue
		}
		per = append(per, Curve{Label: c.Label, Points: c.Ops[i].Points})
	}
	return per
}

// MixCharts renders one sweep's operation types, one line each: achieved
// rate against target ("ops-throughput") and p99 against target
// ("ops-p99"). A sweep of fewer than two operation types has none.
func MixCharts(title string, c Curve) ([]Chart, error) {
	if len(c.Ops) < 2 {
		return nil, nil
	}
	return curveCharts("ops", title+" by operation type", c.Ops, false, 0)
}

// curveCharts renders name-throughput (with the ideal diagonal when
// ideal is set) and name-p99 (with the SLA dashed when slaMs is
// positive) for curves, each chart's legend right of its plot; none when
// no curve has a point.
func curveCharts(name, title string, curves []Curve, ideal bool, slaMs float64) ([]Chart, error) {
	var charts []Chart
	for _, c := range curveStudyCharts(name, title, curves, ideal, slaMs) {
		svg, err := c.SVG()
		if err != nil {
			return nil, err
		}
		charts = append(charts, Chart{Name: c.Name, SVG: svg})
	}
	return charts, nil
}

// curveStudyCharts are name-throughput and name-p99 of curves as a
// study's charts: the data a page draws and the same curves drawn as SVG.
func curveStudyCharts(name, title string, curves []Curve, ideal bool, slaMs float64) []StudyChart {
	if !slices.ContainsFunc(curves, func(c Curve) bool { return len(c.Points) > 0 }) {
		return nil
	}
	ach, p99 := curvePlots(title, curves, ideal, slaMs)
	var out []StudyChart
	for _, c := range []struct {
		name string
		data *Plot
		p    func() *plot.Plot
	}{
		{name + "-throughput", ach, func() *plot.Plot { return achievedPlot(title, curves, ideal) }},
		{name + "-p99", p99, func() *plot.Plot { return p99TargetPlot(title, curves, slaMs) }},
	} {
		if c.data == nil {
			continue
		}
		draw, chart := c.p, c.name
		out = append(out, StudyChart{Name: chart, Caption: SweepCaption(chart), Plot: c.data, draw: func() ([]byte, error) {
			p := draw()
			if p == nil {
				return nil, nil
			}
			svg, err := render(stack([]*plot.Plot{p}, []vg.Length{chartHeight}, chartWidth+legendExtra))
			if err != nil {
				return nil, fmt.Errorf("render %s chart: %w", chart, err)
			}
			return svg, nil
		}})
	}
	return out
}

// curvePlots are the data of achieved and p99 against target, one line
// per curve (a repeated target: the curve's first point), with the ideal
// diagonal when ideal is set and the SLA (slaMs positive) as reference
// lines; the p99 plot is nil when no curve has a p99.
func curvePlots(title string, curves []Curve, ideal bool, slaMs float64) (ach, p99 *Plot) {
	var xs []float64
	for _, c := range curves {
		for _, p := range c.Points {
			if !slices.Contains(xs, p.Target) {
				xs = append(xs, p.Target)
			}
		}
	}
	slices.Sort(xs)
	ach = &Plot{Title: title + ": achieved vs target throughput", XLabel: "target ops/s", YLabel: "achieved ops/s", Unit: "ops/s", X: xs}
	if ideal {
		diag := make([]*float64, len(xs))
		for i, x := range xs {
			diag[i] = result.F(x)
		}
		ach.Lines = append(ach.Lines, Line{Label: "ideal (achieved = target)", Y: diag, Dash: true, Kind: LineReference})
	}
	p99 = &Plot{Title: title + ": p99 latency vs target throughput", XLabel: "target ops/s", YLabel: "p99 ms (log scale)", Unit: "ms", YLog: true, X: xs}
	for i, c := range curves {
		a, p := make([]*float64, len(xs)), make([]*float64, len(xs))
		for _, pt := range c.Points {
			j := slices.Index(xs, pt.Target)
			if a[j] != nil {
				continue
			}
			a[j], p[j] = result.F(pt.Achieved), pt.P99
		}
		ach.Lines = append(ach.Lines, Line{Label: c.Label, Y: a, Color: i, Points: true})
		if present(p) {
			p99.Lines = append(p99.Lines, Line{Label: c.Label, Y: p, Color: i, Points: true})
		}
	}
	if len(p99.Lines) == 0 {
		return ach, nil
	}
	if slaMs > 0 {
		sla := make([]*float64, len(xs))
		for i := range sla {
			sla[i] = result.F(slaMs)
		}
		p99.Lines = append(p99.Lines, Line{Label: "SLA (p99)", Y: sla, Dash: true, Kind: LineReference})
	}
	return ach, p99
}

// SweepStudyCharts are a sweep's charts as a study shows them: the whole
// sweep's two (the p99 chart with the SLA when slaMs is positive), then
// with perOp one pair per operation type, a line per curve (a
// comparison), else for a single curve one pair with a line per
// operation type.
func SweepStudyCharts(title string, curves []Curve, perOp bool, slaMs float64) []StudyChart {
	out := curveStudyCharts("sweep", title, curves, true, slaMs)
	if len(out) == 0 {
		return nil
	}
	switch {
	case perOp:
		for _, name := range opCurveNames(curves) {
			out = append(out, curveStudyCharts(name, title+" — "+name, opCurves(curves, name), false, 0)...)
		}
	case len(curves) == 1 && len(curves[0].Ops) >= 2:
		out = append(out, curveStudyCharts("ops", title+" by operation type", curves[0].Ops, false, 0)...)
	}
	return out
}

// SweepCaption says under a sweep chart what to read from it.
func SweepCaption(chart string) string {
	switch chart {
	case "sweep-throughput":
		return "Achieved against target throughput; the dashed diagonal is every target met. Where a curve leaves the diagonal, that target saturated it."
	case "sweep-p99":
		return "p99 latency (the highest over the operation types, log scale) against target throughput: how the tail grows as the load nears saturation; the dashed line is the SLA, when one was set."
	case "ops-throughput":
		return "Each operation type's achieved rate against the sweep's target throughput: each runs at its share of the target until the sweep saturates."
	case "ops-p99":
		return "Each operation type's p99 latency (log scale) against the sweep's target throughput."
	}
	if op, ok := strings.CutSuffix(chart, "-throughput"); ok {
		return op + "'s achieved rate against the sweep's target throughput, one line per label: " + op + " runs at its share of the target until a sweep saturates."
	}
	if op, ok := strings.CutSuffix(chart, "-p99"); ok {
		return op + "'s p99 latency (log scale) against the sweep's target throughput, one line per label."
	}
	return ""
}

// achievedPlot plots achieved against target throughput per curve, over
// the dashed ideal diagonal when ideal is set.
func achievedPlot(title string, curves []Curve, ideal bool) *plot.Plot {
	p := targetPlot(title+": achieved vs target throughput", "achieved ops/s")
	top := 0.0
	for _, c := range curves {
		for _, pt := range c.Points {
			top = math.Max(top, math.Max(pt.Target, pt.Achieved))
		}
	}
	if ideal {
		addSeries(p, "ideal (achieved = target)", []*plotter.XY{{X: 0, Y: 0}, {X: top, Y: top}}, targetGrey, dashed)
	}
	for i, c := range curves {
		addMarked(p, c.Label, curvePoints(c, func(pt CurvePoint) *float64 { return &pt.Achieved }), i)
	}
	p.X.Min, p.Y.Min = 0, 0
	p.X.Max, p.Y.Max = math.Max(top, 1), math.Max(top*1.05, 1)
	return p
}

// p99TargetPlot plots p99 against target throughput per curve on a log
// scale, or returns nil when no point has a positive p99.
func p99TargetPlot(title string, curves []Curve, slaMs float64) *plot.Plot {
	p := targetPlot(title+": p99 latency vs target throughput", "p99 ms (log scale)")
	plotted := false
	top := 0.0
	for i, c := range curves {
		pts := positive(curvePoints(c, func(pt CurvePoint) *float64 { return pt.P99 }))
		plotted = addMarked(p, c.Label, pts, i) || plotted
		for _, pt := range c.Points {
			top = math.Max(top, pt.Target)
		}
	}
	if !plotted {
		return nil
	}
	if slaMs > 0 {
		addSeries(p, "SLA (p99)", []*plotter.XY{{X: 0, Y: slaMs}, {X: math.Max(top, 1), Y: slaMs}}, targetGrey, dashed)
	}
	p.X.Min = 0
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min = math.Pow(10, math.Floor(math.Log10(p.Y.Min)))
	p.Y.Max = math.Pow(10, math.Ceil(math.Log10(p.Y.Max)))
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min * 10
	}
	return p
}

func targetPlot(title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "target ops/s"
	p.Y.Label.Text = yLabel
	p.Title.Padding = vg.Points(titlePad)
	p.X.Tick.Marker = niceTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// curvePoints returns c's points sorted by target, value(pt) on the y
// axis, nil where it is missing.
func curvePoints(c Curve, value func(CurvePoint) *float64) []*plotter.XY {
	pts := slices.Clone(c.Points)
	slices.SortStableFunc(pts, func(a, b CurvePoint) int { return cmp.Compare(a.Target, b.Target) })
	out := make([]*plotter.XY, len(pts))
	for i, pt := range pts {
		if v := value(pt); v != nil {
			out[i] = &plotter.XY{X: pt.Target, Y: *v}
		}
	}
	return out
}

// addMarked draws pts as the i-th curve: a line with a dot on every
// measured point.
func addMarked(p *plot.Plot, name string, pts []*plotter.XY, i int) bool {
	drawn := addSeries(p, name, pts, plotutil.Color(i), nil)
	for _, seg := range segments(pts) {
		if len(seg) < 2 {
			continue // addSeries dots a lone point already
		}
		s, err := plotter.NewScatter(seg)
		if err != nil {
			continue
		}
		s.Color, s.Shape, s.Radius = plotutil.Color(i), draw.CircleGlyph{}, lineWidth*1.5
		p.Add(s)
	}
	return drawn
}
