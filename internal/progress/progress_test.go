package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/texttable"
)

// interval is a one-second interval i of n operations at ms each.
func progressInterval(t *testing.T, i int, n int64, ms int64) *engine.Interval {
	t.Helper()
	h := hist.New()
	for range n {
		hist.Record(h, time.Duration(ms)*time.Millisecond)
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &engine.Interval{Index: i, Start: t0.Add(time.Duration(i) * time.Second), Length: time.Second,
		Ops: []engine.IntervalOp{{Name: "read", Count: n, Latency: d}}}
}

// show hands iv to p as the engine does: added to the run's tally first.
func show(t *testing.T, p *Progress, iv *engine.Interval) {
	t.Helper()
	if err := p.tally.Run.Add(iv); err != nil {
		t.Fatal(err)
	}
	p.Interval(iv)
}

// TestLiveRedraw: on a terminal, every redraw goes back to the line's
// start and covers what is left of a longer line before it, counted in
// columns ("—" is three bytes, one column), and no line is wider than
// the terminal.
func TestLiveRedraw(t *testing.T) {
	var out bytes.Buffer
	total := time.Minute
	p := NewProgress(&out, Display{Live: true}, total, "", engine.NewTally())
	p.cols = func() int { return 40 }
	p.Setup("load", 50000, 50000)
	p.Start(0, total)
	show(t, p, progressInterval(t, 0, 12000, 2))
	show(t, p, progressInterval(t, 1, 0, 0)) // nothing completed: p99 —
	p.Done()
	text := out.String()
	if !strings.HasSuffix(text, "\n") {
		t.Errorf("the live line is not ended:\n%q", text)
	}
	draws := strings.Split(strings.TrimSuffix(strings.TrimPrefix(text, "\r"), "\n"), "\r")
	if len(draws) != 4 {
		t.Fatalf("got %d draws, want 4 (setup, start, two intervals): %q", len(draws), text)
	}
	widest := 0
	for i, d := range draws {
		w := texttable.Width(d)
		if w > 39 {
			t.Errorf("draw %d is %d columns wide, the terminal 40: %q", i, w, d)
		}
		if w < widest {
			t.Errorf("draw %d is %d columns, narrower than the %d drawn before: stale text stays: %q", i, w, widest, d)
		}
		widest = max(widest, w)
	}
	if !strings.HasPrefix(draws[1], "measuring 1:00") || strings.Contains(draws[1], "load") {
		t.Errorf("the engine's start does not replace the setup's line: %q", draws[1])
	}
	if last := strings.TrimRight(draws[3], " "); !strings.Contains(last, "p99 —") {
		t.Errorf("last draw: %q", last)
	}
}

// TestStatusLines: not on a terminal, a status line once the intervals
// since the last line span the status interval, and the rest when the
// run ends; none with a status interval of 0.
func TestStatusLines(t *testing.T) {
	for _, c := range []struct {
		every time.Duration
		want  int
	}{{time.Second, 5}, {2 * time.Second, 3}, {10 * time.Second, 1}, {0, 0}} {
		var out bytes.Buffer
		p := NewProgress(&out, Display{Every: c.every}, 5*time.Second, "", engine.NewTally())
		p.Start(0, 5*time.Second)
		for i := range 5 {
			show(t, p, progressInterval(t, i, 100, 1))
		}
		p.Done()
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if strings.Contains(l, " ops/s ") {
				lines = append(lines, l)
			}
		}
		if len(lines) != c.want || strings.Contains(out.String(), "\r") {
			t.Errorf("every %v: got %d status lines, want %d:\n%s", c.every, len(lines), c.want, out.String())
		}
		if c.every > 0 && !strings.HasPrefix(out.String(), "measuring 0:05\n") {
			t.Errorf("every %v: the log does not say the measured phase began:\n%s", c.every, out.String())
		}
	}
}

// TestStepClock: before any run ended, the time left is the planned
// phases of the runs left, a lower bound; after, the mean time per run
// so far times the runs left; unknown without a total.
func TestStepClock(t *testing.T) {
	var c StepClock
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := c.Next(1, 4, "1,000/s", 35*time.Second, t0)
	if s.Left != 140*time.Second || !s.AtLeast {
		t.Errorf("first step: got %+v, want at least 2:20 left", s)
	}
	s = c.Next(3, 4, "4,000/s", 35*time.Second, t0.Add(100*time.Second))
	if s.Elapsed != 100*time.Second || s.Left != 100*time.Second || s.AtLeast {
		t.Errorf("third step: got %+v, want 1:40 so far and about 1:40 left (50s a run, two left)", s)
	}
	s = c.Next(5, 0, "", 35*time.Second, t0.Add(200*time.Second))
	if s.Left != 0 {
		t.Errorf("no total: got %+v, want no estimate", s)
	}
}

// Reading progress shows on a terminal only, for large files, and is
// cleared.
func TestReadProgress(t *testing.T) {
	var b strings.Builder
	p := &ReadProgress{W: &b, Live: true, What: "reading FTDC"}
	p.Update(1<<20, 10<<20) // small: nothing
	p.Done()
	if b.Len() != 0 {
		t.Errorf("small files: %q", b.String())
	}
	p.Update(16<<20, 64<<20)
	p.Update(17<<20, 64<<20) // within 200 ms of the last: not shown
	p.Done()
	if want := "\rreading FTDC:  25% (16 of 64 MB)\r\033[K"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	q := &ReadProgress{W: &b, What: "reading FTDC"}
	q.Update(16<<20, 64<<20)
	q.Done()
	if b.Len() != 0 {
		t.Errorf("not a terminal: %q", b.String())
	}
}
