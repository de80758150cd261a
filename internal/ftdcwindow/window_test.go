package ftdcwindow

import (
	"math"
	"strings"
	"testing"
	"time"
)

var fwT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// A window of 1 s then 10 s samples with a gap: it runs from its first
// sample to its last, states both periods and the gap, lists the
// longest checkpoints with their start times, and its charts break at
// the gap.
func TestFTDCWindowPeriodsGapsCheckpoints(t *testing.T) {
	w := &Window{Path: "d"}
	at := fwT0
	add := func(step time.Duration, server map[string]float64) {
		next := at.Add(step)
		w.Add(at, next, server, nil)
		w.Sample(next)
		at = next
	}
	w.Sample(at)
	for i := range 100 {
		s := map[string]float64{"insertPerSec": 1000, "checkpointRunning": 0}
		if i >= 20 && i < 29 {
			s["checkpointRunning"] = 1
		}
		if i == 29 {
			s["checkpointMs"] = 8076
		}
		if i == 60 {
			s["checkpointMs"] = 2235
		}
		add(time.Second, s)
	}
	gapFrom := at
	at = at.Add(7 * time.Minute)
	w.Gap(gapFrom, at)
	w.Sample(at)
	for i := range 50 {
		s := map[string]float64{"insertPerSec": 1000}
		if i == 10 {
			s["checkpointMs"] = 8128
		}
		add(10*time.Second, s)
	}
	sum := w.Summary(nil)
	if !sum.From.Equal(fwT0) || !sum.To.Equal(at) || sum.Samples != 152 || sum.Intervals != 150 || sum.Gaps != 1 {
		t.Fatalf("summary %+v", sum)
	}
	if len(sum.Periods) != 2 || sum.Periods[0] != (Period{1, 100}) || sum.Periods[1] != (Period{10, 50}) {
		t.Errorf("periods %+v: want 1 s (100) and 10 s (50)", sum.Periods)
	}
	if len(sum.Checkpoints) != 3 || sum.Checkpoints[0].Ms != 8128 || sum.Checkpoints[1].Ms != 8076 ||
		!sum.Checkpoints[1].Start.Equal(fwT0.Add(30*time.Second-8076*time.Millisecond)) {
		t.Errorf("longest checkpoints %+v: want 8,128, 8,076 (from 12:00:21.924), 2,235 ms", sum.Checkpoints)
	}
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sampling period: 1.00 s (100 intervals), 10.0 s (50 intervals); 1 gap, no interval (longest: 2026-03-01 12:01:40 UTC for 7m0s)",
		"longest checkpoints: 8128 ms from 2026-03-01 12:10:21 UTC; 8076 ms from 2026-03-01 12:00:21 UTC; 2235 ms from",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "host CPU user") && !strings.Contains(l, "not in these files") {
			t.Errorf("a figure without values: %q, want it said not in these files", l)
		}
	}
	charts := w.Charts([]string{"inserts"})
	if len(charts) != 1 || len(charts[0].X) != 151 {
		t.Fatalf("charts %+v: want one chart of 150 points and a break", charts)
	}
	breaks := 0
	for _, y := range charts[0].Lines[0].Y {
		if y == nil {
			breaks++
		}
	}
	if breaks != 1 || len(charts[0].Shade) != 1 || charts[0].Shade[0] != [2]float64{20, 29} {
		t.Errorf("%d breaks, shade %v: want one break and the checkpoint's seconds 20 to 29", breaks, charts[0].Shade)
	}
}

// A window longer than ftdcExact intervals keeps bounded memory: its
// percentiles to three significant figures (said), its minimum and
// maximum exact, its charts at most 2 × maxChartPoints points.
func TestFTDCWindowBounded(t *testing.T) {
	w := &Window{}
	n := ftdcExact + 5000
	at := fwT0
	w.Sample(at)
	for i := range n {
		next := at.Add(time.Second)
		w.Add(at, next, map[string]float64{"insertPerSec": 1000 + float64(i%1000)/7}, nil)
		w.Sample(next)
		at = next
	}
	f := w.Summary([]string{"inserts"}).Figures[0]
	if f.Values != n || !f.Rounded || *f.Min != 1000 || math.Abs(*f.Max-(1000+999.0/7)) > 1e-9 || *f.Median != 1070 {
		t.Fatalf("figure %+v (min %v median %v max %v)", f, *f.Min, *f.Median, *f.Max)
	}
	if w.stats["inserts"].exact != nil || len(w.stats["inserts"].counts) > 1000 {
		t.Errorf("the values are still kept one by one")
	}
	if c := w.Charts(nil); len(c) == 0 || len(c[0].X) > 2*maxChartPoints {
		t.Errorf("charts of %d points", len(c[0].X))
	}
}

// What stands out comes first, with its times and scored against the
// window's own normal: a burst of operations, the longest checkpoint,
// tickets exhausted, eviction by application threads; an idle window
// says nothing stands out, and why.
func TestFTDCWindowStandsOut(t *testing.T) {
	w := &Window{}
	at := fwT0
	w.Sample(at)
	for i := range 120 {
		s := map[string]float64{"insertPerSec": 1000, "ticketsOut": 10, "ticketsTotal": 128, "appEvictionPagesPerSec": 0}
		switch i {
		case 40:
			s["insertPerSec"] = 9000
		case 70:
			s["checkpointMs"] = 8076
		case 90, 91:
			s["ticketsOut"] = 128
			s["appEvictionPagesPerSec"] = 300
		}
		if i%60 == 10 && i != 70 {
			s["checkpointMs"] = 200
		}
		next := at.Add(time.Second)
		w.Add(at, next, s, nil)
		w.Sample(next)
		at = next
	}
	sum := w.Summary(nil)
	got := map[string]Finding{}
	for _, f := range sum.StandsOut {
		got[f.What] = f
	}
	for what, when := range map[string]time.Time{
		"the busiest interval":            fwT0.Add(41 * time.Second),
		"the longest checkpoint":          fwT0.Add(71*time.Second - 8076*time.Millisecond),
		"tickets exhausted":               fwT0.Add(91 * time.Second),
		"eviction by application threads": fwT0.Add(91 * time.Second),
	} {
		if f, ok := got[what]; !ok || !f.At.Equal(when) {
			t.Errorf("%s: %+v, want it at %v (all: %+v)", what, f, when, sum.StandsOut)
		}
	}
	if f := got["the busiest interval"]; !strings.Contains(f.Evidence, "9000 ops/s at 2026-03-01 12:00:41 UTC, 9.00× the window's median of 1000") {
		t.Errorf("evidence %q", f.Evidence)
	}
	var b strings.Builder
	if err := sum.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(b.String(), "what stands out:"), strings.Index(b.String(), "figure "); i < 0 || j < i {
		t.Errorf("what stands out is not before the table:\n%s", b.String())
	}

	idle := &Window{}
	idle.Sample(fwT0)
	idle.Add(fwT0, fwT0.Add(time.Second), map[string]float64{"insertPerSec": 0}, nil)
	idle.Sample(fwT0.Add(time.Second))
	if s := idle.Summary(nil); len(s.StandsOut) != 0 || !strings.HasPrefix(s.standsOutLines()[0], "nothing: ") {
		t.Errorf("an idle window: %+v", s.StandsOut)
	}
}
