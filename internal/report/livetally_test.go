package report

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// TestLiveTally: errors and late operations add up across intervals;
// throughput and p99 are the last interval's.
func TestLiveTally(t *testing.T) {
	dist := func(ms ...int) result.Dist {
		h := hist.New()
		for _, v := range ms {
			hist.Record(h, time.Duration(v)*time.Millisecond)
		}
		d, err := hist.Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var errs engine.ErrorCounts
	errs[engine.Timeout] = 2
	ivs := []*engine.Interval{
		{Start: t0, Length: time.Second, Late: 1, Ops: []engine.IntervalOp{{Count: 4, Errors: errs, Latency: dist(1, 1, 1, 8)}}},
		{Start: t0.Add(time.Second), Length: time.Second, Late: 2, Ops: []engine.IntervalOp{
			{Count: 1, Latency: dist(2)}, {Count: 1, Errors: errs, Latency: dist(3)}}},
		{Start: t0.Add(2 * time.Second), Length: time.Second},
	}
	tally := LiveTally{Total: time.Minute}
	want := []string{
		"0:01/1:00  4.00 ops/s  p99 8.00 ms  errors 2  late 1",
		"0:02/1:00  2.00 ops/s  p99 3.00 ms  errors 4  late 3",
		"0:03/1:00  0 ops/s  p99 — ms  errors 4  late 3",
	}
	for i, iv := range ivs {
		if got := tally.Add(iv); got != want[i] {
			t.Errorf("interval %d: got %q, want %q", i, got, want[i])
		}
	}
	if got := LiveSetup("preload", 500, 1000); got != "preload 500/1000 (50%)" {
		t.Errorf("LiveSetup: got %q", got)
	}
}
