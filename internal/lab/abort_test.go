package lab

import (
	"fmt"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// TestAbortWatchReadsTheTally: the abort judge judges the run's tally, so
// an interval re-sent with a joined tail replaces the one before (never
// counted twice) and the parts of a read-modify-write are not operations
// of their own.
func TestAbortWatchReadsTheTally(t *testing.T) {
	ts, err := threshold.ParseAll([]string{"rate >= 1/s"})
	if err != nil {
		t.Fatal(err)
	}
	tally := engine.NewTally()
	w := newAbortWatch(&spec.Scenario{Rate: 100, Duration: spec.Duration(time.Minute)}, ts, func() {}, tally)
	var got []string
	w.judged = func(f threshold.Figures) {
		var completed int64
		for _, op := range f.Ops {
			n, _ := op.Whole()
			completed += n
		}
		got = append(got, fmt.Sprintf("nOps %d, %.2f ops/s, %s %d", completed, f.AchievedRate, f.Ops[0].Name, f.Ops[0].Count))
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := hist.New()
	hist.Record(h, time.Millisecond)
	lat, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	iv := func(i int, length time.Duration, rmw int64) *engine.Interval {
		return &engine.Interval{Index: i, Start: t0.Add(time.Duration(i) * time.Second), Length: length, Ops: []engine.IntervalOp{
			{Name: "READ", Count: 2 * rmw, Parts: rmw, Latency: lat, Service: lat},
			{Name: "UPDATE", Count: rmw, Parts: rmw, Latency: lat, Service: lat},
			{Name: "READ-MODIFY-WRITE", Count: rmw, Latency: lat, Service: lat},
		}}
	}
	for _, x := range []*engine.Interval{iv(0, time.Second, 50), iv(1, time.Second, 50), iv(1, 1100*time.Millisecond, 60)} {
		if err := tally.Add(x); err != nil {
			t.Fatal(err)
		}
		w.interval(x)
	}
	want := []string{
		"nOps 100, 100.00 ops/s, READ 100",
		"nOps 200, 100.00 ops/s, READ 200",
		"nOps 220, 104.76 ops/s, READ 220",
	}
	if len(got) != len(want) {
		t.Fatalf("judged %d documents, want %d: %v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("judgement %d: got %q, want %q", i, got[i], want[i])
		}
	}
}
