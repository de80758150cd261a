package engine

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"
)

// intendedIn counts the slots a pacer of rate per second makes due in
// [from, to), offsets from the start of the run: slot n is due at n/rate.
func intendedIn(rate float64, from, to time.Duration) int64 {
	first := math.Ceil(from.Seconds() * rate)
	end := math.Ceil(to.Seconds() * rate)
	return int64(end - first)
}

// checkSentPerInterval compares what the engine sent in each interval with
// what its schedule made due there. A slot leaves the interval it is due
// in only by its send lag, which the engine reports as the MaxLag of the
// interval it is sent in (slots sent in interval k but due earlier number
// at most rate × MaxLag(k), slots due in k but sent later at most rate ×
// the MaxLag of a later interval), or by a boundary drained late, which
// the engine reports as Drained. Beyond that slack, however loaded the
// machine or stalled the server, sent must match the schedule.
func checkSentPerInterval(t *testing.T, r *Result, rate float64, warmup, duration time.Duration) {
	t.Helper()
	var sent int64
	later := make([]time.Duration, len(r.Intervals)+1) // later[k]: max lag of intervals k..
	for k := len(r.Intervals) - 1; k >= 0; k-- {
		later[k] = max(later[k+1], r.Intervals[k].MaxLag)
	}
	for k, iv := range r.Intervals {
		from := warmup + iv.Start.Sub(r.Start)
		to := from + iv.Length
		if k == len(r.Intervals)-1 {
			to = warmup + duration // the closing interval ends at the last completion
		}
		want := intendedIn(rate, from, to)
		lag := later[k]
		if k > 0 {
			lag += max(0, r.Intervals[k-1].Drained.Sub(iv.Start))
		}
		if k < len(r.Intervals)-1 {
			lag += max(0, iv.Drained.Sub(iv.Start.Add(iv.Length)))
		}
		slack := int64(math.Ceil(lag.Seconds()*rate)) + 1
		if d := iv.Sent + iv.Dropped - want; d > slack || -d > slack {
			t.Errorf("interval %d (%v from %v): sent %d + dropped %d, the schedule made %d due; lag and late drains of %v allow ±%d",
				k, iv.Length, from, iv.Sent, iv.Dropped, want, lag, slack)
		}
		sent += iv.Sent
	}
	if sent+r.Dropped+r.Abandoned != r.Intended {
		t.Errorf("sent %d + dropped %d + abandoned %d != intended %d: a slot went unaccounted",
			sent, r.Dropped, r.Abandoned, r.Intended)
	}
}

// logAchieved reports what the task (the server, in a real run) achieved
// per interval. It is the machine's and the server's doing, not the
// engine's, so tests log it and do not fail on it.
func logAchieved(t *testing.T, r *Result) {
	t.Helper()
	for k, iv := range r.Intervals {
		t.Logf("interval %d: %v long, drained %v after its end, sent %d, completed %d (%.0f/s), late %d, dropped %d, max lag %v",
			k, iv.Length, iv.Drained.Sub(iv.Start.Add(iv.Length)), iv.Sent, iv.Completed(), float64(iv.Completed())/iv.Length.Seconds(), iv.Late, iv.Dropped, iv.MaxLag)
	}
}

// TestOpenLoopSendsEachIntervalsSchedule: every interval sends the slots
// the schedule made due in it, give or take the send lag the engine
// reports, and the phase plans exactly rate × duration operations.
func TestOpenLoopSendsEachIntervalsSchedule(t *testing.T) {
	const rate = 1000.0
	warmup := 200 * time.Millisecond
	cfg := Config{Ops: []string{"op"}, Workers: 16, Pacer: NewConstant(rate),
		Warmup: warmup, Duration: 3 * time.Second, Interval: 500 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(200*time.Microsecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	logAchieved(t, r)
	if r.Intended != 3000 {
		t.Errorf("intended: got %d, want 3000 (1000/s for 3s)", r.Intended)
	}
	checkSentPerInterval(t, r, rate, warmup, cfg.Duration)
}

// TestOpenLoopKeepsTheScheduleThroughAStall: every operation blocks for
// 400ms in the middle of the run, as behind a stalled server, holding all
// 8 workers. The engine still plans every slot, sends each one as soon as
// a worker is free, counts it late, and reports the stall as send lag.
func TestOpenLoopKeepsTheScheduleThroughAStall(t *testing.T) {
	const rate = 500.0
	var stall sync.RWMutex
	time.AfterFunc(700*time.Millisecond, func() {
		stall.Lock()
		time.Sleep(400 * time.Millisecond)
		stall.Unlock()
	})
	newTask := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) {
			stall.RLock()
			time.Sleep(100 * time.Microsecond)
			stall.RUnlock()
			return 0, nil
		}), nil
	}
	warmup := 100 * time.Millisecond
	cfg := Config{Ops: []string{"op"}, Workers: 8, Pacer: NewConstant(rate),
		Warmup: warmup, Duration: 2 * time.Second, Interval: 250 * time.Millisecond}
	r, err := Run(context.Background(), cfg, newTask)
	if err != nil {
		t.Fatal(err)
	}
	logAchieved(t, r)
	if r.Intended != 1000 || r.Completed() != 1000 {
		t.Errorf("intended %d, completed %d: want 1000 and 1000, no slot skipped for the stall", r.Intended, r.Completed())
	}
	checkSentPerInterval(t, r, rate, warmup, cfg.Duration)
	if r.MaxLag < 250*time.Millisecond || r.Late < 100 {
		t.Errorf("max lag %v, late %d: a 400ms stall must show as send lag (≥250ms) and ~200 late slots", r.MaxLag, r.Late)
	}
}
