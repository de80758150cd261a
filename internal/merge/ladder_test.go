package merge

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// ladderInterval is a one-second interval of n operations of latency
// i+1 ms (so every interval's histogram differs).
func ladderInterval(t *testing.T, start time.Time, i int, n int64) result.Interval {
	t.Helper()
	h := hist.New()
	for range n {
		if err := h.RecordValue(int64(i%97+1) * 1000); err != nil {
			t.Fatal(err)
		}
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return result.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1,
		Ops: []result.OpStats{{Name: "read", Count: n, Latency: d, Service: d, Rate: float64(n)}}}
}

// TestLadderKeepsAtMostMaxAndMergesExactly: 2,400 one-second intervals
// into a ladder of 50 keep at most 50 intervals of 60 s (1, 2, 10, 20,
// 60: the first length at which 2,400 s fit), their counts summing to the
// run's and their histograms merging to the run's whole histogram; an
// interval handed again under the same index replaces the one before; a
// run within the bound keeps its intervals as they are.
func TestLadderKeepsAtMostMaxAndMergesExactly(t *testing.T) {
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	l := NewLadder(time.Second, 50)
	whole := hist.New()
	var want int64
	for i := range 2400 {
		iv := ladderInterval(t, start, i, 10)
		if i == 2399 {
			// The closing tail joins the last interval: handed again.
			if err := l.Add(i, ladderInterval(t, start, i, 3)); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Add(i, iv); err != nil {
			t.Fatal(err)
		}
		if err := hist.AddDist(whole, iv.Ops[0].Latency); err != nil {
			t.Fatal(err)
		}
		want += 10
	}
	ivs, err := l.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	if len(ivs) > 50 || l.Every() != time.Minute || l.Full() != 2400 {
		t.Fatalf("%d intervals of %v from %d, want at most 50 of 1m0s from 2400", len(ivs), l.Every(), l.Full())
	}
	merged := hist.New()
	var got int64
	for _, iv := range ivs {
		got += iv.Ops[0].Count
		if err := hist.AddDist(merged, iv.Ops[0].Latency); err != nil {
			t.Fatal(err)
		}
	}
	if got != want || merged.TotalCount() != whole.TotalCount() || !merged.Equals(whole) {
		t.Errorf("kept %d operations (histograms %d), want %d, bucket for bucket the run's", got, merged.TotalCount(), want)
	}
	short := NewLadder(time.Second, 100)
	for i := range 50 {
		if err := short.Add(i, ladderInterval(t, start, i, 1)); err != nil {
			t.Fatal(err)
		}
	}
	if ivs, _ := short.Intervals(); len(ivs) != 50 || short.Every() != time.Second {
		t.Errorf("a 50-interval run keeps %d intervals of %v, want its 50 of 1s", len(ivs), short.Every())
	}
}
