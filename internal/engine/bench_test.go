package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkClosedLoopNoop measures the engine's own cost per operation:
// claiming, timing, recording into HDR histograms and interval rotation,
// around a task that does nothing.
func BenchmarkClosedLoopNoop(b *testing.B) {
	noop := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
	}
	cfg := Config{Ops: []string{"op"}, Workers: 1, Count: int64(b.N), Interval: 100 * time.Millisecond}
	b.ReportAllocs()
	b.ResetTimer()
	r, err := Run(context.Background(), cfg, noop)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(r.CPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkOpenLoopNoop measures the open-loop schedule's cost per
// operation at a rate high enough that workers rarely sleep.
func BenchmarkOpenLoopNoop(b *testing.B) {
	noop := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
	}
	cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(2e6), Count: int64(b.N)}
	b.ReportAllocs()
	b.ResetTimer()
	r, err := Run(context.Background(), cfg, noop)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(r.CPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkOpenLoopPaced measures the engine's cost per operation when it
// paces: 64 workers, 2,000 operations a second, a task that does nothing.
// Each iteration is one second of schedule; run with -benchtime 3x or so.
func BenchmarkOpenLoopPaced(b *testing.B) {
	for _, p := range []Pacing{PacingSleep, PacingSpin, PacingTimer} {
		b.Run(string(p), func(b *testing.B) {
			noop := func(int) (Task, error) {
				return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
			}
			const rate = 2000
			cfg := Config{Ops: []string{"op"}, Workers: 64, Pacer: NewConstant(rate), Pacing: p, Count: int64(b.N) * rate}
			b.ReportAllocs()
			b.ResetTimer()
			r, err := Run(context.Background(), cfg, noop)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.CPU.Nanoseconds())/float64(cfg.Count), "cpu-ns/op")
			if q := r.Lag.ValueAtPercentile(99); q >= 0 {
				b.ReportMetric(float64(q), "lag-p99-µs")
			}
			b.ReportMetric(float64(r.Lag.ValueAtPercentile(50)), "lag-p50-µs")
		})
	}
}
