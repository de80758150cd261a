package lab

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/live"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// liveMetrics publishes a command's runs while they go (--metrics-addr);
// a nil *liveMetrics publishes nothing.
type liveMetrics struct {
	pub *live.Publisher
	srv *live.Server
}

// startMetrics serves the live figures on addr; nil when addr is empty.
func startMetrics(_ context.Context, addr string, say func(string, ...any)) (*liveMetrics, error) {
	if addr == "" {
		return nil, nil
	}
	pub := live.New()
	srv, err := live.Listen(addr, pub)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	if w := live.ExposedWarning("--metrics-addr", addr, "the run's live figures"); w != "" {
		say("%s\n", w)
	}
	say("live metrics: http://%s/metrics (intervals: /live)\n", srv.Addr())
	return &liveMetrics{pub: pub, srv: srv}, nil
}

// stop stops serving, once the scraper (if any) has read the final
// figures.
func (m *liveMetrics) stop(ctx context.Context, say func(string, ...any)) {
	if err := m.srv.Close(ctx); err != nil {
		say("warning: stopping the live metrics: %v\n", err)
	}
}

// begin publishes a run of sc about to start, whose tally is tally: it
// returns the run's id ("" without --metrics-addr: the runner names the
// run), what to call with each closed interval (nil without), and what to
// call when it has ended.
func (m *liveMetrics) begin(sc *spec.Scenario, v result.Variant, tally *engine.Tally) (string, func(*engine.Interval), func()) {
	if m == nil {
		return "", nil, func() {}
	}
	id := runner.NewRunID(time.Now())
	m.pub.Begin(live.Run{ID: id, Test: sc.Name, Label: sc.Label, Workload: sc.Workload, Step: stepText(sc, v), Target: targetOf(sc), Tally: tally})
	return id, m.pub.Interval, m.pub.End
}

// telemetry is what to call with each sampling interval's server and
// host figures; nil without --metrics-addr.
func (m *liveMetrics) telemetry() func(server, host map[string]float64) {
	if m == nil {
		return nil
	}
	return m.pub.Telemetry
}

// figures calls live with a sampling interval's server and host figures
// and hands them to the run's stream; either may be nil.
func figures(live func(server, host map[string]float64), st *stream) func(telemetry.Figures) {
	return func(f telemetry.Figures) {
		if live != nil {
			live(f.Server, f.Host)
		}
		st.reading(f)
	}
}

// both calls f then g, either of which may be nil.
func both(f, g func(*engine.Interval)) func(*engine.Interval) {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(iv *engine.Interval) { f(iv); g(iv) }
}

// stepText is a study's step in words: the variant's values in name
// order, then the rate, e.g. "sweepStep=3 rate=2000/s"; "" for a run
// outside a study.
func stepText(sc *spec.Scenario, v result.Variant) string {
	f := v.Fields()
	delete(f, "instance")
	if len(f) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(f)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, f[k]))
	}
	if sc.Rate > 0 {
		parts = append(parts, "rate="+sc.Rate.String())
	}
	return strings.Join(parts, " ")
}

// targetOf is the schedule's rate over a span of the measured phase:
// the stages' (which start with the warm-up) or the constant rate; nil in
// closed loop.
func targetOf(sc *spec.Scenario) func(from, to time.Duration) float64 {
	if len(sc.Stages) > 0 {
		st, warm := sc.Stages, time.Duration(sc.Warmup)
		return func(from, to time.Duration) float64 {
			if to <= from {
				return 0
			}
			return (spec.DueBy(st, warm+to) - spec.DueBy(st, warm+from)) / (to - from).Seconds()
		}
	}
	if sc.Rate > 0 {
		r := float64(sc.Rate)
		return func(_, _ time.Duration) float64 { return r }
	}
	return nil
}
