package progress

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// fed is a live tally whose run's tally is fed each interval first, as
// the engine does.
type fed struct {
	t *testing.T
	LiveTally
}

func feed(t *testing.T, l LiveTally) *fed {
	l.Run = engine.NewTally()
	return &fed{t, l}
}

func (f *fed) Add(iv *engine.Interval) string {
	if err := f.Run.Add(iv); err != nil {
		f.t.Fatal(err)
	}
	return f.LiveTally.Add(iv)
}

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
		{Index: 0, Start: t0, Length: time.Second, Late: 1, Ops: []engine.IntervalOp{{Count: 4, Errors: errs, Latency: dist(1, 1, 1, 8)}}},
		{Index: 1, Start: t0.Add(time.Second), Length: time.Second, Late: 2, Ops: []engine.IntervalOp{
			{Count: 1, Latency: dist(2)}, {Count: 1, Errors: errs, Latency: dist(3)}}},
		{Index: 2, Start: t0.Add(2 * time.Second), Length: time.Second},
	}
	tally := feed(t, LiveTally{Total: time.Minute})
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

// TestLiveTallyLines: a log's status line holds the intervals since the
// line before (their throughput and p99), and a last interval handed
// again with a short tail joined to it replaces the one before: the live
// line ends on the joined interval's rate, never on an empty tail's
// "0 ops/s p99 —", and no error is counted twice.
func TestLiveTallyLines(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lat := func(ms int64, n int) result.Dist {
		h := hist.New()
		for range n {
			hist.Record(h, time.Duration(ms)*time.Millisecond)
		}
		d, _ := hist.Summarize(h)
		return d
	}
	var one engine.ErrorCounts
	one[engine.Timeout] = 1
	iv := func(i int, length time.Duration, n int64, ms int64, late int64) *engine.Interval {
		return &engine.Interval{Index: i, Start: t0.Add(time.Duration(i) * time.Second), Length: length, Late: late,
			Ops: []engine.IntervalOp{{Count: n, Errors: one, Latency: lat(ms, int(n))}}}
	}
	tally := feed(t, LiveTally{Total: 3 * time.Second})
	tally.Add(iv(0, time.Second, 100, 2, 1))
	if got := tally.Since(); got != time.Second {
		t.Errorf("Since after one interval: got %v, want 1s", got)
	}
	tally.Add(iv(1, time.Second, 300, 9, 0))
	line, ok := tally.Line()
	if want := "0:02/0:03  200.0 ops/s  p99 9.01 ms  errors 2  late 1"; !ok || line != want {
		t.Errorf("line over two intervals: got %q, want %q", line, want)
	}
	if _, ok := tally.Line(); ok || tally.Since() != 0 {
		t.Errorf("a second line with no interval since: got one")
	}
	tally.Add(iv(2, time.Second, 100, 3, 0))
	// The engine joins a 20 ms tail to interval 2 and hands it again.
	got := tally.Add(iv(2, 1020*time.Millisecond, 102, 3, 0))
	if want := "0:03/0:03  100.0 ops/s  p99 3.00 ms  errors 3  late 1"; got != want {
		t.Errorf("joined last interval: got %q, want %q", got, want)
	}
	line, ok = tally.Line()
	if want := "0:03/0:03  100.0 ops/s  p99 3.00 ms  errors 3  late 1"; !ok || line != want {
		t.Errorf("last line: got %q, want %q", line, want)
	}
	// A joined interval whose first part is in a line already is not
	// shown again.
	tally.Add(iv(3, time.Second, 100, 3, 0))
	tally.Line()
	tally.Add(iv(3, 1010*time.Millisecond, 101, 3, 0))
	if line, ok := tally.Line(); ok {
		t.Errorf("a line repeating an interval already shown: %q", line)
	}
}

// TestLiveTallyLeavesPartsOut: the parts of a read-modify-write (YCSB's
// measurerwparts) are not operations of their own, in the throughput or
// the errors.
func TestLiveTallyLeavesPartsOut(t *testing.T) {
	d := func(n int) result.Dist {
		h := hist.New()
		for range n {
			hist.Record(h, 2*time.Millisecond)
		}
		s, _ := hist.Summarize(h)
		return s
	}
	var one engine.ErrorCounts
	one[engine.Timeout] = 1
	iv := &engine.Interval{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Length: time.Second, Ops: []engine.IntervalOp{
		{Name: "READ", Count: 10, Parts: 5, Latency: d(10)},
		{Name: "UPDATE", Count: 4, Parts: 4, Errors: one, PartErrors: 1, Latency: d(4)},
		{Name: "READ-MODIFY-WRITE", Count: 4, Errors: one, Latency: d(4)},
	}}
	tally := feed(t, LiveTally{Total: time.Minute})
	if got, want := tally.Add(iv), "0:01/1:00  9.00 ops/s  p99 2.00 ms  errors 1  late 0"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
