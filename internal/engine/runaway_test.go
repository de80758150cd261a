package engine

import (
	"context"
	"testing"
	"time"
)

// countingPacer counts the calls of At of the pacer it wraps.
type countingPacer struct {
	Pacer
	calls int
}

func (c *countingPacer) At(n int64) time.Duration { c.calls++; return c.Pacer.At(n) }

// TestClaimCostsLogarithmicCalls: at 1e12/s, claims that skip a warm-up
// backlog, drop slots past the drop bound, or abandon the rest at the
// phase's end, and a stop counting what was due, each cost a few dozen
// calls of the pacer, not one per slot.
func TestClaimCostsLogarithmicCalls(t *testing.T) {
	start := time.Unix(1000, 0)
	const r = int64(1e12)
	tests := []struct {
		name                             string
		dropAfter, now                   time.Duration
		ok                               bool
		dropped, skipped, abandoned, due int64
	}{
		{"on time", 10 * time.Second, 0, true, 0, 0, 0, 1000},                                                 // stop at 1s: the 1000 slots due in its nanosecond
		{"warm-up backlog skipped", 10 * time.Second, 2 * time.Second, true, 0, r, 0, 2 * r},                  // stop at 3s
		{"late slots dropped at once", 500 * time.Millisecond, 2 * time.Second, true, r / 2, r, 0, 3 * r / 2}, // 1s..1.5s dropped
		{"past the end and its drain", 10 * time.Second, 32 * time.Second, false, 21 * r, r, 9 * r, 0},        // 1s..22s dropped, 22s..31s abandoned
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &countingPacer{Pacer: NewConstant(1e12)}
			cfg := Config{Pacer: p, Warmup: time.Second, Duration: 30 * time.Second, DropAfter: tc.dropAfter, Drain: time.Second}
			s := newOpenSchedule(&cfg, start)
			p.calls = 0
			sl, ok := s.claim(start.Add(tc.now))
			if ok != tc.ok || sl.dropped != tc.dropped || s.skipped() != tc.skipped || s.abandoned() != tc.abandoned {
				t.Errorf("claim: got ok %v dropped %d skipped %d abandoned %d; want %v %d %d %d",
					ok, sl.dropped, s.skipped(), s.abandoned(), tc.ok, tc.dropped, tc.skipped, tc.abandoned)
			}
			if p.calls > 300 {
				t.Errorf("one claim called At %d times, want O(log slots)", p.calls)
			}
			p.calls = 0
			if got := s.stop(start.Add(tc.now + time.Second)); absInt(got-tc.due) > 1000 { // 1000 slots share each nanosecond
				t.Errorf("stop: got %d due and unsent, want %d", got, tc.due)
			}
			if p.calls > 300 {
				t.Errorf("stop called At %d times, want O(log slots)", p.calls)
			}
		})
	}
}

func absInt(n int64) int64 { return max(n, -n) }

// fastTask succeeds at once.
func fastTask(int) (Task, error) {
	return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
}

// TestAbsurdRatesEndOnTime: at 1e12/s the engine ends at its duration
// plus the drain, and a stop ends it within a second.
func TestAbsurdRatesEndOnTime(t *testing.T) {
	for _, pacing := range []Pacing{PacingTimer, PacingSleep} {
		t.Run(string(pacing)+" duration", func(t *testing.T) {
			cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(1e12), Duration: 500 * time.Millisecond,
				Drain: 200 * time.Millisecond, Pacing: pacing}
			began := time.Now()
			r, err := Run(context.Background(), cfg, fastTask)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(began); took > 2*time.Second {
				t.Errorf("a 500ms run at 1e12/s took %v", took)
			}
			if r.Abandoned == 0 || r.Intended != r.Completed()+r.Dropped+r.Abandoned {
				t.Errorf("%s: abandoned %d, intended %d: want the backlog counted", r, r.Abandoned, r.Intended)
			}
		})
		t.Run(string(pacing)+" stop", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(1e12), Duration: time.Hour, Pacing: pacing}
			began := time.Now()
			r, err := Run(ctx, cfg, fastTask)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(began); took > 1300*time.Millisecond {
				t.Errorf("stopped at 300ms, returned after %v", took)
			}
			if !r.Partial || r.Abandoned < 1e9 {
				t.Errorf("partial %v abandoned %d: want a partial run with the due slots counted", r.Partial, r.Abandoned)
			}
		})
	}
}

// TestWarmupBacklogDoesNotSpill: a 3× overload during the warm-up leaves
// a backlog; the measured phase starts sending its own slots at once.
func TestWarmupBacklogDoesNotSpill(t *testing.T) {
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(600), Warmup: time.Second,
		Duration: time.Second, Interval: 250 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(10*time.Millisecond, 1)) // 2 workers: ~200/s
	if err != nil {
		t.Fatal(err)
	}
	if r.WarmupSkipped < 200 {
		t.Errorf("warm-up slots skipped: got %d, want the ~400 the overload left", r.WarmupSkipped)
	}
	if len(r.Intervals) == 0 || r.Intervals[0].Sent < 20 {
		t.Fatalf("first interval: %+v, want the measured slots sent from the start", r.Intervals)
	}
	if !r.ServerBound || r.ClientBound {
		t.Errorf("server-bound %v client-bound %v %v: both workers were busy, want server-bound", r.ServerBound, r.ClientBound, r.Reasons)
	}
}

// TestPacingsKeepTheScheduleAndAccountForEverySlot runs each pacing at a
// moderate rate; the precise ones must not lose, repeat or reorder slots.
func TestPacingsKeepTheScheduleAndAccountForEverySlot(t *testing.T) {
	for _, pacing := range []Pacing{PacingTimer, PacingSleep, PacingNanosleep, PacingSpin, PacingDispatch} {
		t.Run(string(pacing), func(t *testing.T) {
			cfg := Config{Ops: []string{"op"}, Workers: 8, Pacer: NewConstant(2000), Duration: time.Second,
				Warmup: 100 * time.Millisecond, Pacing: pacing}
			r, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 1))
			if err != nil {
				t.Fatal(err)
			}
			if r.Intended != 2000 || r.Completed() != 2000 {
				t.Errorf("%s: intended %d completed %d, want 2000", r, r.Intended, r.Completed())
			}
			if r.Lag.TotalCount() != 2000 {
				t.Errorf("send lag recorded for %d operations, want 2000", r.Lag.TotalCount())
			}
			t.Logf("%s: send lag p50 %dµs p99 %dµs p99.9 %dµs, CPU %v", pacing, r.Lag.ValueAtPercentile(50),
				r.Lag.ValueAtPercentile(99), r.Lag.ValueAtPercentile(99.9), r.CPU)
		})
	}
}

func TestConfigRejectsUnknownPacing(t *testing.T) {
	_, err := Run(context.Background(), Config{Ops: []string{"op"}, Workers: 1, Count: 1, Pacing: "fast"}, fastTask)
	if err == nil {
		t.Fatal(`pacing "fast": got nil error`)
	}
}
