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
