package htmlreport

import (
	"fmt"
	"math"
	"slices"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
)

const (
	timeLabel = "seconds into measured phase"
	timeSync  = "time"
)

// runCharts returns the interactive charts that stand in for a run's SVG
// charts, by the SVG's name: throughput, latency, telemetry.
func runCharts(d *result.Doc) map[string][]Chart {
	if len(d.Intervals) == 0 {
		return nil
	}
	x := make([]float64, len(d.Intervals))
	for i, iv := range d.Intervals {
		x[i] = report.IntervalEnd(d, iv)
	}
	title := d.TestName + " " + d.RunID + ": "
	out := map[string][]Chart{}
	out["throughput"] = []Chart{throughputChart(d, x, title)}
	if c := latencyChart(d, x, title); c != nil {
		out["latency"] = []Chart{*c}
	}
	out["telemetry"] = telemetryCharts(d, x, title)
	return out
}

// opSeries is one value per interval of the named operation type, nil
// where value has none; an interval without the operation counts as
// zero completions.
func opSeries(d *result.Doc, name string, value func(o *result.OpStats, secs float64) *float64) []*float64 {
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

func rate(o *result.OpStats, secs float64) *float64 {
	if secs <= 0 {
		return nil
	}
	return result.F(float64(o.Count) / secs)
}

// completed reports whether the operation type succeeded at least once in
// the run: types that never did (not in the mix) are left off the
// throughput chart rather than drawn as flat zeros.
func completed(d *result.Doc, name string) bool {
	for _, iv := range d.Intervals {
		for _, o := range iv.Ops {
			if o.Name == name && o.Count > 0 {
				return true
			}
		}
	}
	return false
}

// throughputChart: successes per second per operation type; in open loop
// with more than one type, their total too, against the (total) target.
func throughputChart(d *result.Doc, x []float64, title string) Chart {
	c := Chart{Title: title + "throughput", XLabel: timeLabel, YLabel: "ops/s", XAxis: "linear", Sync: timeSync, X: x}
	var names []string
	for _, n := range report.OpNames(d) {
		if completed(d, n) {
			names = append(names, n)
		}
	}
	for i, n := range names {
		c.Series = append(c.Series, Series{Label: n, Y: opSeries(d, n, rate), Color: color(i), Unit: "ops/s"})
	}
	t := d.Schedule.TargetRate
	if len(names) > 1 || (t != nil && report.IsOpen(d) && len(names) == 0) {
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
		c.Series = append(c.Series, Series{Label: "total", Y: total, Color: "#000000", Unit: "ops/s"})
	}
	if t != nil && report.IsOpen(d) {
		c.Series = append(c.Series, Series{Label: "target (total)", Y: constant(len(x), *t), Color: refGrey, Dash: true, Unit: "ops/s"})
	}
	return c
}

// latencyChart: p99 latency (solid) and p99 service time (dashed) per
// operation type, log scale; nil when no interval has a p99.
func latencyChart(d *result.Doc, x []float64, title string) *Chart {
	c := Chart{Title: title + "p99 latency and service time", XLabel: timeLabel, YLabel: "ms (log scale)", XAxis: "linear", YLog: true, Sync: timeSync, X: x}
	for i, n := range report.OpNames(d) {
		lat := opSeries(d, n, func(o *result.OpStats, _ float64) *float64 { return o.Latency.P99 })
		svc := opSeries(d, n, func(o *result.OpStats, _ float64) *float64 { return o.Service.P99 })
		if present(lat) {
			c.Series = append(c.Series, Series{Label: n + " latency", Y: lat, Color: color(i), Unit: "ms"})
		}
		if present(svc) {
			c.Series = append(c.Series, Series{Label: n + " service", Y: svc, Color: color(i), Dash: true, Unit: "ms"})
		}
	}
	if len(c.Series) == 0 {
		return nil
	}
	return &c
}

// telemetryCharts: p99 latency per operation type, then one chart per
// telemetry panel the run recorded, on one time axis with their cursors
// moving together and the checkpoint intervals shaded.
func telemetryCharts(d *result.Doc, x []float64, title string) []Chart {
	shade := report.CheckpointSpans(d)
	var out []Chart
	p99 := Chart{Title: title + "p99 latency per second", XLabel: timeLabel, YLabel: "ms (log scale)", XAxis: "linear", YLog: true, Sync: timeSync, X: x, Shade: shade, Height: 260}
	for i, n := range report.OpNames(d) {
		if y := opSeries(d, n, func(o *result.OpStats, _ float64) *float64 { return o.Latency.P99 }); present(y) {
			p99.Series = append(p99.Series, Series{Label: n + " p99", Y: y, Color: color(i), Unit: "ms"})
		}
	}
	for _, p := range report.TelemetryPanels() {
		c := Chart{Title: p.YLabel, XLabel: timeLabel, YLabel: p.YLabel, XAxis: "linear", Sync: timeSync, X: x, Shade: shade, Height: 200}
		for i, l := range p.Lines {
			y := make([]*float64, len(d.Intervals))
			for j, iv := range d.Intervals {
				m := iv.Server
				if l.Host {
					m = iv.Host
				}
				if v, ok := m[l.Key]; ok {
					y[j] = result.F(v * l.Scale)
				}
			}
			zero := !slices.ContainsFunc(y, func(v *float64) bool { return v != nil && *v != 0 })
			if present(y) && (!p.OmitZero || !zero) {
				c.Series = append(c.Series, Series{Label: l.Name, Y: y, Color: color(i)})
			}
		}
		if len(c.Series) > 0 {
			out = append(out, c)
		}
	}
	if len(out) == 0 && shade == nil {
		return nil
	}
	if len(p99.Series) > 0 {
		out = append([]Chart{p99}, out...)
	}
	return out
}

func present(ys []*float64) bool {
	return slices.ContainsFunc(ys, func(v *float64) bool { return v != nil })
}

func constant(n int, v float64) []*float64 {
	ys := make([]*float64, n)
	for i := range ys {
		ys[i] = result.F(v)
	}
	return ys
}

// distLine is one latency distribution of a percentile chart.
type distLine struct {
	label string
	dist  result.Dist
	dash  bool
	color string
}

// stepsPerDecade is how finely the percentile axis is sampled.
const stepsPerDecade = 20

// percentileChart is the HDR percentile distribution: latency against
// percentile on a log axis of x = 1/(1-p) ("number of nines"), each
// line read from its stored histogram at the same percentiles. A line is
// drawn only as far as its count resolves (p ≤ 1 − 1/count); its maximum
// is its last point. Lines without a histogram are left out; nil when
// none has one.
func percentileChart(title string, lines []distLine) (*Chart, error) {
	type decoded struct {
		distLine
		h *hist.H
	}
	var hs []decoded
	var most int64
	for _, l := range lines {
		if l.dist.Count == 0 || l.dist.Hist == "" {
			continue
		}
		h, err := hist.Decode(l.dist.Hist)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.label, err)
		}
		hs = append(hs, decoded{l, h})
		most = max(most, h.TotalCount())
	}
	if len(hs) == 0 {
		return nil, nil
	}
	var x []float64
	for k := 0; ; k++ {
		v := math.Pow(10, float64(k)/stepsPerDecade)
		if v > float64(most) {
			break
		}
		x = append(x, v)
	}
	x = append(x, float64(most)) // the last value of the largest count
	c := Chart{Title: title, XLabel: "percentile", YLabel: "latency ms (log scale)", XAxis: "nines", YLog: true, X: x, Height: 360,
		Caption: "Latency against percentile on a log axis of 1/(1−p): 90%, 99%, 99.9% … are equally spaced, so the tail gets the room it matters by. " +
			"Read from the stored HDR histograms; each line ends at the highest percentile its count resolves."}
	for _, h := range hs {
		n := float64(h.h.TotalCount())
		ys := make([]*float64, len(x))
		for i, xv := range x {
			if xv > n {
				break
			}
			q := 100 * (1 - 1/xv)
			if xv == n {
				q = 100
			}
			ys[i] = result.F(float64(h.h.ValueAtQuantile(q)) / 1000)
		}
		c.Series = append(c.Series, Series{Label: h.label, Y: ys, Color: h.color, Dash: h.dash, Unit: "ms"})
	}
	return &c, nil
}

// runPercentileCharts: one percentile chart per operation type, its
// latency and service time.
func runPercentileCharts(d *result.Doc) ([]Chart, error) {
	var out []Chart
	for i, o := range d.Ops {
		c, err := percentileChart(fmt.Sprintf("%s: latency by percentile", o.Name), []distLine{
			{label: o.Name + " latency", dist: o.Latency, color: color(i)},
			{label: o.Name + " service", dist: o.Service, color: color(i), dash: true},
		})
		if err != nil {
			return nil, fmt.Errorf("run %s, %s: %w", d.RunID, o.Name, err)
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}

// curveCharts: achieved against target and p99 against target, one
// series per curve (label), with the ideal diagonal and the SLA (0: none)
// as reference lines.
func curveCharts(title string, curves []report.Curve, sla *float64) []Chart {
	var xs []float64
	for _, c := range curves {
		for _, p := range c.Points {
			if !slices.Contains(xs, p.Target) {
				xs = append(xs, p.Target)
			}
		}
	}
	if len(xs) == 0 {
		return nil
	}
	slices.Sort(xs)
	ach := Chart{Title: title + ": achieved vs target throughput", XLabel: "target ops/s", YLabel: "achieved ops/s", XAxis: "linear", X: xs}
	ach.Series = append(ach.Series, Series{Label: "ideal (achieved = target)", Y: ptrs(xs), Color: refGrey, Dash: true, Unit: "ops/s"})
	p99 := Chart{Title: title + ": p99 latency vs target throughput", XLabel: "target ops/s", YLabel: "p99 ms (log scale)", XAxis: "linear", YLog: true, X: xs}
	for i, c := range curves {
		a, p := make([]*float64, len(xs)), make([]*float64, len(xs))
		for _, pt := range c.Points {
			j := slices.Index(xs, pt.Target)
			if a[j] != nil { // a repeated target: the curve holds the first
				continue
			}
			a[j], p[j] = result.F(pt.Achieved), pt.P99
		}
		ach.Series = append(ach.Series, Series{Label: c.Label, Y: a, Color: color(i), Points: true, Unit: "ops/s"})
		if present(p) {
			p99.Series = append(p99.Series, Series{Label: c.Label, Y: p, Color: color(i), Points: true, Unit: "ms"})
		}
	}
	out := []Chart{ach}
	if len(p99.Series) > 0 {
		if sla != nil {
			p99.Series = append(p99.Series, Series{Label: "SLA (p99)", Y: constant(len(xs), *sla), Color: refGrey, Dash: true, Unit: "ms"})
		}
		out = append(out, p99)
	}
	return out
}

func ptrs(xs []float64) []*float64 {
	out := make([]*float64, len(xs))
	for i, v := range xs {
		out[i] = result.F(v)
	}
	return out
}
