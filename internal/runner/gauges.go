package runner

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// A gauge is one series of a seriesSource: its name and units in the
// document, the key of its value in a reading, and whether the value is
// a counter, stored as its rate per second over each interval, or a
// gauge, stored as read at the interval's end.
type gauge struct {
	name, units, key string
	rate             bool
}

// A gaugeReader reads a seriesSource's figures once, by key.
type gaugeReader interface {
	read(ctx context.Context) (map[string]float64, error)
	close(ctx context.Context)
}

// gaugeSampler reads a seriesSource every sampling interval on its own
// goroutine, and at the measured phase's boundaries (mark), holding at
// most about keep readings once the run's intervals grow (bound), as the
// host and server samplers do.
type gaugeSampler struct {
	src    seriesSource
	rd     gaugeReader
	parent context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	readings []telemetry.Sample // a reading's figures in Status.Doc, nil when it failed
	keep     int
	origin   time.Time
	grain    time.Duration
}

// startGauges starts a sampler of each of the run's series sources that
// has something to read; one that cannot open has a note, and its
// series are missing.
func (r *run) startGauges(ctx context.Context, every time.Duration) {
	for _, s := range chosen(r.opts.Target.Telemetry) {
		src, ok := s.(seriesSource)
		if !ok {
			continue
		}
		rd, err := src.open(ctx, r)
		if err != nil {
			r.warnings = append(r.warnings, src.Name()+" series are missing: "+err.Error())
			continue
		}
		if rd == nil {
			continue
		}
		g := &gaugeSampler{src: src, rd: rd, parent: ctx, done: make(chan struct{})}
		var gctx context.Context
		gctx, g.cancel = context.WithCancel(ctx)
		g.take(gctx, time.Now(), every)
		go g.run(gctx, every)
		r.gauges = append(r.gauges, g)
	}
}

func (g *gaugeSampler) run(ctx context.Context, every time.Duration) {
	defer close(g.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case t := <-tick.C:
			g.take(ctx, t, every)
		}
	}
}

// take reads once, within timeout, and keeps the reading stamped at.
func (g *gaugeSampler) take(ctx context.Context, at time.Time, timeout time.Duration) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	vals, err := g.rd.read(rctx)
	cancel()
	if ctx.Err() != nil {
		return // a reading cut short by the stop is not a missing one
	}
	smp := telemetry.Sample{Time: at, Err: err}
	if err == nil {
		doc := make(map[string]any, len(vals))
		for k, v := range vals {
			doc[k] = v
		}
		smp.Status = telemetry.Status{Time: at, Doc: doc}
	}
	g.mu.Lock()
	g.readings = append(g.readings, smp)
	if g.keep > 0 && len(g.readings) > g.keep && g.grain > 0 {
		g.readings = telemetry.Thin(g.readings, g.origin, g.grain)
	}
	g.mu.Unlock()
}

// mark reads at a boundary of the measured phase (the engine's
// goroutine), so that a phase shorter than the sampling interval has a
// point; after Ctrl-C the reading gets bounded.Grace.
func (g *gaugeSampler) mark(at time.Time) {
	ctx, cancel := bounded.Step(g.parent, 5*time.Second)
	defer cancel()
	g.take(ctx, at, 5*time.Second)
}

// bound holds at most about keep readings, thinned to one per grain from
// origin past it.
func (g *gaugeSampler) bound(keep int, origin time.Time, grain time.Duration) {
	g.mu.Lock()
	g.keep, g.origin, g.grain = keep, origin, grain
	if len(g.readings) > keep {
		g.readings = telemetry.Thin(g.readings, origin, grain)
	}
	g.mu.Unlock()
}

// stop ends the sampling and closes the reader.
func (g *gaugeSampler) stop() {
	g.cancel()
	<-g.done
	ctx, cancel := bounded.Step(g.parent, 5*time.Second)
	defer cancel()
	g.rd.close(ctx)
}

// stopGauges stops every series source's sampler.
func (r *run) stopGauges() {
	for _, g := range r.gauges {
		g.stop()
	}
}

// gaugeSeries are the series sources' series over [start, end], one
// point per interval between consecutive readings, stamped with the
// interval's start (the readings thinned to every when the run's
// intervals grew); a point whose reading failed has no value.
func (r *run) gaugeSeries(start, end time.Time, every time.Duration) []result.Series {
	var out []result.Series
	for _, g := range r.gauges {
		g.mu.Lock()
		rs := g.readings
		g.mu.Unlock()
		if every > time.Duration(r.opts.Scenario.Interval) {
			rs = telemetry.Thin(rs, r.ladder.Start(), every)
		}
		var in []telemetry.Sample
		for _, s := range slices.SortedStableFunc(slices.Values(rs), func(a, b telemetry.Sample) int { return a.Time.Compare(b.Time) }) {
			if !s.Time.Before(start) && !s.Time.After(end) {
				in = append(in, s)
			}
		}
		for _, ga := range g.src.gauges() {
			s := result.Series{Name: ga.name, Units: ga.units, Source: g.src.mark(), GranularitySec: every.Seconds(), DataPoints: []result.DataPoint{}}
			for i := 1; i < len(in); i++ {
				p := result.DataPoint{Timestamp: in[i-1].Time}
				if v, ok := ga.value(in[i-1], in[i]); ok {
					p.Value = result.F(v)
				}
				s.DataPoints = append(s.DataPoints, p)
			}
			out = append(out, s)
		}
	}
	return out
}

// value is the gauge's value over the interval from a to b.
func (ga gauge) value(a, b telemetry.Sample) (float64, bool) {
	vb, ok := b.Status.Doc[ga.key].(float64)
	if !ok || !ga.rate {
		return vb, ok
	}
	va, ok := a.Status.Doc[ga.key].(float64)
	secs := b.Time.Sub(a.Time).Seconds()
	if !ok || secs <= 0 || vb < va {
		return 0, false // a counter that went back: the server restarted
	}
	return (vb - va) / secs, true
}
