package report

import (
	"slices"

	"github.com/mongobench/mongobench/internal/result"
)

// TimeChart is one chart over the measured phase: a value per interval
// for each line, at the intervals' ends.
type TimeChart struct {
	Name   string // "latency", "throughput" or "telemetry"
	Title  string
	YLabel string
	// XLabel is the time axis' label when it is not XLabel's (a window
	// of FTDC samples rather than a run).
	XLabel string
	Log    bool   // a logarithmic y axis
	Unit   string // of the values, shown beside them
	X      []float64
	Lines  []Line
	// Shade are the time ranges in which a checkpoint ran; on the latency
	// chart, those of the p99 tail's best cause when the diagnosis found
	// one.
	Shade [][2]float64
}

// Line is one series of a chart; a nil value is a gap.
type Line struct {
	Label string
	Y     []*float64
	Color int // the line's place in the palette
	Dash  bool
	Kind  LineKind
	// Points puts a dot on every value (a line through measured points,
	// such as a sweep's target rates).
	Points bool
}

// LineKind says what a line stands for.
type LineKind int

const (
	LineData      LineKind = iota // a measured series, coloured
	LineTotal                     // the sum of the measured series, black
	LineReference                 // a target, drawn grey and dashed
)

// XLabel is the time axis of every time chart.
const XLabel = xLabel

// timeCharts are the run's charts over time: p99 latency and service
// time per operation type, throughput against the target, then one chart
// per telemetry panel the run recorded, the checkpoint spans shaded.
// Latency over time is drawn once: the telemetry charts sit under it on
// the same time axis.
func timeCharts(d *result.Doc) []TimeChart {
	if len(d.Intervals) == 0 {
		return nil
	}
	x := make([]float64, len(d.Intervals))
	for i, iv := range d.Intervals {
		x[i] = intervalEnd(d, iv)
	}
	title := d.TestName + " " + d.RunID + ": "
	shade := CheckpointSpans(d)
	var out []TimeChart
	if c := latencyTimeChart(d, x, title); c != nil {
		c.Shade = shade
		if t := tailSpans(d); t != nil { // the seconds the p99 tail coincided with
			c.Shade = t
			c.Title += " (shaded: " + d.Diagnosis.Tail.Causes[0].Condition + ")"
		}
		out = append(out, *c)
	}
	out = append(out, throughputTimeChart(d, x, title))
	for _, p := range telemetryPanels {
		c := TimeChart{Name: "telemetry", Title: p.yLabel, YLabel: p.yLabel, X: x, Shade: shade}
		for _, s := range p.series {
			y := make([]*float64, len(d.Intervals))
			for j, iv := range d.Intervals {
				m := iv.Server
				if s.host {
					m = iv.Host
				}
				if v, ok := m[s.key]; ok {
					y[j] = result.F(v * s.scale)
				}
			}
			zero := !slices.ContainsFunc(y, func(v *float64) bool { return v != nil && *v != 0 })
			if present(y) && (!p.omitZero || !zero) {
				c.Lines = append(c.Lines, Line{Label: s.name, Y: y, Color: s.color})
			}
		}
		if len(c.Lines) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// latencyTimeChart: p99 latency (solid) and p99 service time (dashed)
// per operation type, log scale; nil when no interval has a p99.
func latencyTimeChart(d *result.Doc, x []float64, title string) *TimeChart {
	c := TimeChart{Name: "latency", Title: title + "p99 latency and service time", YLabel: "ms (log scale)", Log: true, Unit: "ms", X: x}
	for i, n := range opNames(d) {
		lat := opValues(d, n, func(o *result.OpStats, _ float64) *float64 { return o.Latency.P99 })
		svc := opValues(d, n, func(o *result.OpStats, _ float64) *float64 { return o.Service.P99 })
		if present(lat) {
			c.Lines = append(c.Lines, Line{Label: n + " latency", Y: lat, Color: i})
		}
		if present(svc) {
			c.Lines = append(c.Lines, Line{Label: n + " service", Y: svc, Color: i, Dash: true})
		}
	}
	if len(c.Lines) == 0 {
		return nil
	}
	return &c
}

// throughputTimeChart: successes per second per operation type that
// succeeded at all; their total when more than one did (or, in open
// loop, when none did); and the target, a total.
func throughputTimeChart(d *result.Doc, x []float64, title string) TimeChart {
	c := TimeChart{Name: "throughput", Title: title + "throughput", YLabel: "ops/s", Unit: "ops/s", X: x}
	var names []string
	for _, n := range opNames(d) {
		if completedAny(d, n) {
			names = append(names, n)
		}
	}
	for i, n := range names {
		c.Lines = append(c.Lines, Line{Label: n, Y: opValues(d, n, intervalRate), Color: i})
	}
	t := d.Schedule.TargetRate
	if len(names) > 1 || (t != nil && isOpen(d) && len(names) == 0) {
		total := make([]*float64, len(d.Intervals))
		for i, iv := range d.Intervals {
			var n int64
			for _, o := range iv.Ops {
				n += o.Count
			}
			if iv.Seconds > 0 {
				total[i] = result.F(float64(n) / iv.Seconds)
			}
		}
		c.Lines = append(c.Lines, Line{Label: "total", Y: total, Kind: LineTotal})
	}
	if t != nil && isOpen(d) {
		ref := make([]*float64, len(x))
		for i := range ref {
			ref[i] = result.F(*t)
		}
		c.Lines = append(c.Lines, Line{Label: "target (total)", Y: ref, Dash: true, Kind: LineReference})
	}
	return c
}

// opValues is one value per interval of the named operation type, nil
// where value has none; an interval without the operation counts as
// zero completions.
func opValues(d *result.Doc, name string, value func(o *result.OpStats, secs float64) *float64) []*float64 {
	ys := make([]*float64, len(d.Intervals))
	for i, iv := range d.Intervals {
		o := &result.OpStats{Name: name}
		for j := range iv.Ops {
			if iv.Ops[j].Name == name {
				o = &iv.Ops[j]
			}
		}
		ys[i] = value(o, iv.Seconds)
	}
	return ys
}

func present(ys []*float64) bool {
	return slices.ContainsFunc(ys, func(v *float64) bool { return v != nil })
}
