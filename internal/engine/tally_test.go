package engine

import (
	"context"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// dist records the latencies (ms) into a stored summary.
func dist(t *testing.T, ms ...int) result.Dist {
	t.Helper()
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

// TestTally adds intervals to a tally and reads it: a re-sent interval
// replaces the one of its Index, parts of operations are counted apart
// and left out of the completed and failed operations, histograms merge
// exactly.
func TestTally(t *testing.T) {
	start := time.Unix(1e9, 0)
	iv := func(i int, length time.Duration, late int64, ops ...IntervalOp) *Interval {
		return &Interval{Index: i, Start: start.Add(time.Duration(i) * time.Second), Length: length, Late: late, Ops: ops}
	}
	var timeouts ErrorCounts
	timeouts[Timeout] = 2
	read := func(n int64, ms ...int) IntervalOp {
		return IntervalOp{Name: "READ", Count: n, Latency: dist(t, ms...), Service: dist(t, ms...)}
	}
	// A read-modify-write of n operations whose read and update parts
	// are recorded under READ and UPDATE too.
	rmw := func(n int64, partErrs int64) []IntervalOp {
		ones := make([]int, n)
		for i := range ones {
			ones[i] = 1
		}
		return []IntervalOp{
			{Name: "READ", Count: n, Parts: n, Latency: dist(t, ones...), Service: dist(t, ones...)},
			{Name: "UPDATE", Count: n - partErrs, Parts: n - partErrs, Errors: ErrorCounts{Timeout: partErrs}, PartErrors: partErrs},
			{Name: "READ-MODIFY-WRITE", Count: n - partErrs, Errors: ErrorCounts{Timeout: partErrs}},
		}
	}
	type want struct {
		intervals            int
		elapsed              time.Duration
		late                 int64
		completed, failed    int64
		readCount, readParts int64
		readP50, readMax     float64 // ms
		rate                 float64
	}
	tests := []struct {
		name string
		ivs  []*Interval
		want want
	}{
		{"one interval", []*Interval{iv(0, time.Second, 1, read(3, 1, 2, 3))},
			want{1, time.Second, 1, 3, 0, 3, 0, 2, 3, 3}},
		{"intervals add", []*Interval{iv(0, time.Second, 1, read(3, 1, 2, 3)), iv(1, time.Second, 2, read(1, 100))},
			want{2, 2 * time.Second, 3, 4, 0, 4, 0, 2, 100, 2}},
		{"a re-sent interval replaces its first hand-over", []*Interval{
			iv(0, time.Second, 1, read(3, 1, 2, 3)), iv(1, time.Second, 2, read(1, 100)),
			iv(1, 1200*time.Millisecond, 5, read(2, 100, 200))},
			want{2, 2200 * time.Millisecond, 6, 5, 0, 5, 0, 3, 200, 5 / 2.2}},
		{"re-sent twice", []*Interval{
			iv(0, time.Second, 0, read(1, 1)), iv(0, time.Second, 0, read(2, 1, 1)), iv(0, time.Second, 0, read(4, 1, 1, 1, 1))},
			want{1, time.Second, 0, 4, 0, 4, 0, 1, 1, 4}},
		{"parts left out", []*Interval{iv(0, time.Second, 0, rmw(10, 0)...)},
			want{1, time.Second, 0, 10, 0, 10, 10, 1, 1, 10}},
		{"failed parts left out of the failed", []*Interval{iv(0, time.Second, 0, append(rmw(10, 2), read(5, 1, 1, 1, 1, 1))...)},
			want{1, time.Second, 0, 15, 2, 15, 10, 1, 1, 15}},
	}
	for _, tc := range tests {
		tally := NewTally()
		tally.begin([]string{"READ", "UPDATE", "READ-MODIFY-WRITE"}, 0, false)
		for _, iv := range tc.ivs {
			if err := tally.Add(iv); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		v := tally.View()
		r := v.Ops[0]
		got := want{v.Intervals, v.Elapsed, v.Late, v.Completed(), v.Failed(), r.Count, r.Parts,
			float64(r.Latency.ValueAtPercentile(50)) / 1000, float64(r.Latency.Max()) / 1000, v.AchievedRate()}
		// HDR's 3 digits: a recorded value reads back within 0.1%.
		close := func(a, b float64) bool { return a == b || (a-b)/b < 1e-3 && (b-a)/b < 1e-3 }
		if got.intervals != tc.want.intervals || got.elapsed != tc.want.elapsed || got.late != tc.want.late ||
			got.completed != tc.want.completed || got.failed != tc.want.failed || got.readCount != tc.want.readCount ||
			got.readParts != tc.want.readParts || !close(got.readP50, tc.want.readP50) || !close(got.readMax, tc.want.readMax) ||
			!close(got.rate, tc.want.rate) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

// TestTallyMergesExactly: the tally's histograms are the exact merge of
// the intervals', the one a re-sent interval replaced left out.
func TestTallyMergesExactly(t *testing.T) {
	a, b, c := dist(t, 1, 2, 3, 4), dist(t, 5, 50, 500), dist(t, 7, 70, 700, 7000)
	tally := NewTally()
	tally.begin([]string{"x"}, 0, false)
	for i, d := range []result.Dist{a, b, c} {
		idx := min(i, 1) // c is b's interval re-sent
		if err := tally.Add(&Interval{Index: idx, Length: time.Second, Ops: []IntervalOp{{Name: "x", Count: d.Count, Latency: d, Service: d}}}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := hist.MergeDists(a, c)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []*hist.H{tally.View().Ops[0].Latency, tally.View().Ops[0].Service} {
		got, err := hist.Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		if got.Hist != want.Hist || got.Count != 8 {
			t.Errorf("merged: got %d values %s, want %d values %s", got.Count, got.Hist, want.Count, want.Hist)
		}
	}
}

// TestTallyViewIsASnapshot: a view read before an interval is added does
// not change when it is.
func TestTallyViewIsASnapshot(t *testing.T) {
	tally := NewTally()
	tally.begin([]string{"x"}, 0, false)
	d := dist(t, 1)
	add := func(i int) {
		if err := tally.Add(&Interval{Index: i, Length: time.Second, Ops: []IntervalOp{{Name: "x", Count: 1, Latency: d, Service: d}}}); err != nil {
			t.Fatal(err)
		}
	}
	add(0)
	before := tally.View()
	add(1)
	if before.Ops[0].Count != 1 || before.Ops[0].Latency.TotalCount() != 1 || before.Intervals != 1 {
		t.Errorf("an earlier view changed: count %d, histogram %d, intervals %d; want 1, 1, 1",
			before.Ops[0].Count, before.Ops[0].Latency.TotalCount(), before.Intervals)
	}
	if after := tally.View(); after.Ops[0].Count != 2 || after.Ops[0].Latency.TotalCount() != 2 {
		t.Errorf("after: count %d, histogram %d; want 2, 2", after.Ops[0].Count, after.Ops[0].Latency.TotalCount())
	}
}

// TestRunFeedsItsTally: the engine adds each interval to the run's tally
// before OnInterval sees it, and the result is the tally's figures.
func TestRunFeedsItsTally(t *testing.T) {
	tally := NewTally()
	var seen []int
	cfg := Config{Ops: []string{"a", "b"}, Workers: 4, Pacer: NewConstant(400), Duration: 1050 * time.Millisecond, // a 50 ms tail joins the last interval
		Interval: 200 * time.Millisecond, Tally: tally, OnInterval: func(iv *Interval) {
			if last := tally.View().Last; last == nil || last.Index != iv.Index || last.Length != iv.Length {
				t.Errorf("interval %d: the tally's last interval is %+v", iv.Index, last)
			}
			seen = append(seen, iv.Index)
		}}
	res, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 2))
	if err != nil {
		t.Fatal(err)
	}
	v := tally.View()
	if !v.Done || v.Completed() != res.Completed() || v.AchievedRate() != res.AchievedRate() || v.Elapsed != res.End.Sub(res.Start) ||
		v.Intervals != len(res.Intervals) || v.Late != res.Late {
		t.Errorf("tally: done %v, %d completed, %g/s, %v, %d intervals, %d late; result: %d completed, %g/s, %v, %d intervals, %d late",
			v.Done, v.Completed(), v.AchievedRate(), v.Elapsed, v.Intervals, v.Late,
			res.Completed(), res.AchievedRate(), res.End.Sub(res.Start), len(res.Intervals), res.Late)
	}
	t.Logf("intervals handed over: %v; %s", seen, res)
}
