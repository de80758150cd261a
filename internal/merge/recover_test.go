package merge

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// complete is longRun stored whole: its operation types' histograms
// those of the whole run.
func complete(t *testing.T) *result.Doc {
	t.Helper()
	d, whole := longRun(t, 30)
	for _, name := range []string{"read", "update"} {
		s, err := hist.Summarize(whole[name])
		if err != nil {
			t.Fatal(err)
		}
		d.Ops = append(d.Ops, result.OpStats{Name: name, Count: whole[name].TotalCount(), Latency: s, Service: s})
	}
	return d
}

func TestCheckFindsTheStoredHistograms(t *testing.T) {
	d := complete(t)
	if err := Check(d, d.Intervals); err != nil {
		t.Fatalf("a complete run against its own intervals: %v", err)
	}
	// One interval fewer: both operation types' histograms differ, each named.
	err := Check(d, d.Intervals[1:])
	if err == nil || !strings.Contains(err.Error(), "read latency: the intervals' histograms") || !strings.Contains(err.Error(), "update service time") {
		t.Errorf("an interval missing: %v, want each operation type's histograms named as different", err)
	}
	d.Ops = append(d.Ops, result.OpStats{Name: "insert"})
	if err := Check(d, d.Intervals); err == nil || !strings.Contains(err.Error(), "insert: not in the stored intervals") {
		t.Errorf("an operation type the intervals lack: %v", err)
	}
	if err := Check(d, nil); err == nil || !strings.Contains(err.Error(), "nothing to check") {
		t.Errorf("no intervals: %v", err)
	}
}

func TestRecover(t *testing.T) {
	now := t0.Add(time.Hour)
	d := complete(t)
	if r, err := Recover(d, d.Intervals, now); r != nil || err != nil {
		t.Errorf("a complete run: got %v, %v; want nothing to store and no error", r, err)
	}
	d.Live = &result.Live{State: result.StateRunning, Heartbeat: now.Add(-time.Minute)}
	if _, err := Recover(d, d.Intervals, now); err == nil || !strings.Contains(err.Error(), "is running: its client wrote 1m0s ago") {
		t.Errorf("a running run: %v, want it refused", err)
	}
	d.Live.Heartbeat = now.Add(-result.LostAfter - time.Second)
	r, err := Recover(d, d.Intervals[:20], now)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Live != nil || !strings.Contains(r.PartialReason, "rebuilt from the 20 intervals it stored") {
		t.Errorf("a lost run: partial %v, live %v, reason %q", r.Partial, r.Live, r.PartialReason)
	}
	if d.Partial || d.Live == nil {
		t.Error("Recover changed the stored run it was handed")
	}
	// A run imported from a file holds its registration's heartbeat: it
	// stopped writing when its last interval ended.
	d.Live.Heartbeat = d.Intervals[0].Start
	r, err = Recover(d, d.Intervals[:4], now)
	last := d.Intervals[3].Start.Add(time.Duration(d.Intervals[3].Seconds * float64(time.Second)))
	if err != nil || !strings.Contains(r.PartialReason, "stopped writing at "+last.UTC().Format(time.RFC3339)) {
		t.Errorf("a lost run registered before its 4 intervals: %v, reason %q, want it to stop writing at %s", err, r.PartialReason, last)
	}
	if got := r.Op("read").Count; got >= d.Op("read").Count || got == 0 {
		t.Errorf("a lost run's read count: %d, want the 20 intervals' (fewer than the whole run's %d)", got, d.Op("read").Count)
	}
}
