package browse

import (
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/mongobench/mongobench/internal/result"
)

// LiveRun is a run as its live feed publishes it (internal/live's
// RunFeed): the intervals closed so far.
type LiveRun struct {
	RunID, Test, Label, Step string
	Started                  time.Time
	Running                  bool
	Intervals                []LiveInterval
}

// LiveInterval is one closed interval of a live run.
type LiveInterval struct {
	result.Interval
	LagP99, Target *float64
	InFlight       int64
}

// LiveView is a live run's page: a row per interval, newest first, and
// charts of the rates and p99s over time.
type LiveView struct {
	RunID, Test, Label, Step, Started string
	Running                           bool
	Intervals                         []LiveInterval
	Ops                               []string
	Rows                              []LiveRow
	Charts                            []Chart
}

// LiveRow is one interval of the live table.
type LiveRow struct {
	At            float64 // seconds since the measured phase began, at the interval's end
	Rate          float64 // completed operations (successes and errors) per second
	Target        *float64
	Ops           []result.OpStats // in LiveView.Ops order; an absent type is zero
	Late, Dropped int64
	LagP99, CPU   *float64
	InFlight      int64
}

// liveRows bounds the intervals shown in the table (the charts show all).
const liveRows = 120

// Live assembles a live run's view.
func Live(r LiveRun) (LiveView, error) {
	v := LiveView{RunID: r.RunID, Test: r.Test, Label: r.Label, Step: r.Step, Started: stamp(r.Started), Running: r.Running, Intervals: r.Intervals}
	for _, iv := range r.Intervals {
		for _, o := range iv.Ops {
			if !slices.Contains(v.Ops, o.Name) {
				v.Ops = append(v.Ops, o.Name)
			}
		}
	}
	if len(r.Intervals) == 0 {
		return v, nil
	}
	first := r.Intervals[0].Start
	for _, iv := range r.Intervals {
		row := LiveRow{At: iv.Start.Sub(first).Seconds() + iv.Seconds, Target: iv.Target, Late: iv.Late, Dropped: iv.Dropped,
			LagP99: iv.LagP99, CPU: iv.ClientCPU, InFlight: iv.InFlight}
		var done int64
		for _, name := range v.Ops {
			op := result.OpStats{Name: name}
			for _, o := range iv.Ops {
				if o.Name == name {
					op = o
				}
			}
			done += op.Count + op.Errors.Total
			row.Ops = append(row.Ops, op)
		}
		if iv.Seconds > 0 {
			row.Rate = float64(done) / iv.Seconds
		}
		v.Rows = append(v.Rows, row)
	}
	charts, err := liveCharts(v)
	v.Charts = charts
	slices.Reverse(v.Rows)
	if len(v.Rows) > liveRows {
		v.Rows = v.Rows[:liveRows]
	}
	return v, err
}

// liveCharts draws ops/s and p99 latency per operation type over time.
func liveCharts(v LiveView) ([]Chart, error) {
	var charts []Chart
	for _, c := range []struct {
		name, title, unit string
		log               bool
		value             func(result.OpStats) *float64
	}{
		{"live-throughput", "successful ops/s", "ops/s", false, func(o result.OpStats) *float64 { return &o.Rate }},
		{"live-p99", "p99 latency", "ms (log)", true, func(o result.OpStats) *float64 { return o.Latency.P99 }},
	} {
		p := plot.New()
		p.Title.Text = v.Test + ": " + c.title + " by interval"
		p.X.Label.Text = "seconds into the measured phase"
		p.Y.Label.Text = c.unit
		if c.log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		} else {
			p.Y.Min = 0
		}
		p.Legend.Top = true
		drawn := false
		lo, hi := math.Inf(1), 0.0
		for i, name := range v.Ops {
			var pts plotter.XYs
			for _, row := range v.Rows {
				if y := c.value(row.Ops[i]); y != nil && (!c.log || *y > 0) {
					pts = append(pts, plotter.XY{X: row.At, Y: *y})
					lo, hi = math.Min(lo, *y), math.Max(hi, *y)
				}
			}
			if len(pts) == 0 {
				continue
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			l.Color = plotutil.Color(i)
			p.Add(l)
			p.Legend.Add(name, l)
			drawn = true
		}
		if !drawn {
			continue
		}
		if c.log {
			logRange(&p.Y, lo, hi)
		}
		svg, err := renderSVG(p)
		if err != nil {
			return nil, err
		}
		charts = append(charts, Chart{Name: c.name, Title: p.Title.Text, SVG: svg})
	}
	return charts, nil
}
