package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
)

// sleepTask succeeds after d; its operation cycles through nOps types.
func sleepTask(d time.Duration, nOps int) NewTask {
	return func(int) (Task, error) {
		var n int
		return TaskFunc(func(ctx context.Context) (int, error) {
			n++
			select {
			case <-time.After(d):
				return n % nOps, nil
			case <-ctx.Done():
				return n % nOps, ctx.Err()
			}
		}), nil
	}
}

func TestOpenLoopKeepsTheSchedule(t *testing.T) {
	cfg := Config{Ops: []string{"read", "update"}, Workers: 16, Pacer: NewConstant(1000),
		Warmup: 200 * time.Millisecond, Duration: 2 * time.Second}
	r, err := Run(context.Background(), cfg, sleepTask(200*time.Microsecond, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Completed(); got != 2000 {
		t.Errorf("measured ops: got %d want 2000 (%s)", got, r)
	}
	if r.Intended != 2000 || r.Dropped != 0 {
		t.Errorf("intended/dropped: got %d/%d want 2000/0", r.Intended, r.Dropped)
	}
	// The phase ends when the last operation, due at 1.999s, completes;
	// a shared machine may wake that worker late.
	if got := r.End.Sub(r.Start); got < 1999*time.Millisecond || got > 2300*time.Millisecond {
		t.Errorf("measured phase: got %v want 2s, give or take scheduling delay", got)
	}
	if r.Partial || r.ClientBound {
		t.Errorf("partial %v clientBound %v %v: want neither", r.Partial, r.ClientBound, r.Reasons)
	}
}

func TestClosedLoopStopsAtCount(t *testing.T) {
	cfg := Config{Ops: []string{"a", "b"}, Workers: 4, Count: 500, Warmup: 50 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Completed(); got != 500 {
		t.Fatalf("completed: got %d want 500", got)
	}
	if r.Ops[0].Service != r.Ops[0].Latency {
		t.Errorf("closed loop: service histogram is not the latency histogram")
	}
}

func TestIntervalsMergeToTotals(t *testing.T) {
	cfg := Config{Ops: []string{"a", "b"}, Workers: 8, Pacer: NewConstant(2000),
		Duration: 1500 * time.Millisecond, Interval: 250 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(300*time.Microsecond, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) < 6 {
		t.Fatalf("intervals: got %d want at least 6", len(r.Intervals))
	}
	for i, name := range cfg.Ops {
		merged, count := hist.New(), int64(0)
		for _, iv := range r.Intervals {
			h, err := hist.FromDist(iv.Ops[i].Latency)
			if err != nil {
				t.Fatal(err)
			}
			if err := hist.Merge(merged, h); err != nil {
				t.Fatal(err)
			}
			count += iv.Ops[i].Count
		}
		if count != r.Ops[i].Count || !merged.Equals(r.Ops[i].Latency) {
			t.Errorf("%s: intervals merge to %d ops, totals hold %d; histograms equal: %v",
				name, count, r.Ops[i].Count, merged.Equals(r.Ops[i].Latency))
		}
	}
}

// TestCoordinatedOmission freezes every operation for 500ms in the middle
// of a 500/s run: latency from the intended start must show the freeze,
// service time must not.
func TestCoordinatedOmission(t *testing.T) {
	var frozen sync.RWMutex
	go func() {
		time.Sleep(700 * time.Millisecond)
		frozen.Lock()
		time.Sleep(500 * time.Millisecond)
		frozen.Unlock()
	}()
	newTask := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) {
			frozen.RLock()
			time.Sleep(100 * time.Microsecond)
			frozen.RUnlock()
			return 0, nil
		}), nil
	}
	cfg := Config{Ops: []string{"op"}, Workers: 8, Pacer: NewConstant(500), Duration: 3 * time.Second}
	r, err := Run(context.Background(), cfg, newTask)
	if err != nil {
		t.Fatal(err)
	}
	lat, svc := r.Ops[0].Latency.ValueAtPercentile(99), r.Ops[0].Service.ValueAtPercentile(99)
	if lat < 300_000 {
		t.Errorf("latency p99: got %dµs, want at least 300ms", lat)
	}
	if svc > lat/4 {
		t.Errorf("service p99: got %dµs, want far below latency p99 %dµs", svc, lat)
	}
	if r.Late == 0 {
		t.Errorf("late: got 0, want the operations held up by the freeze")
	}
	if got := r.Completed(); got != 1500 {
		t.Errorf("completed: got %d want 1500: the schedule must not skip the frozen slots", got)
	}
}

func TestErrorsAreClassifiedAndKeptOutOfLatency(t *testing.T) {
	boom := errors.New("boom")
	var n atomic.Int64
	newTask := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) {
			if n.Add(1)%4 == 0 {
				return 0, boom
			}
			return 0, nil
		}), nil
	}
	classify := func(err error) Class {
		if errors.Is(err, boom) {
			return Timeout
		}
		return Other
	}
	cfg := Config{Ops: []string{"op"}, Workers: 1, Count: 400, Classify: classify}
	r, err := Run(context.Background(), cfg, newTask)
	if err != nil {
		t.Fatal(err)
	}
	op := r.Ops[0]
	if op.Errors[Timeout] != 100 || op.Errors.Total() != 100 {
		t.Errorf("errors: got %v want 100 timeouts", op.Errors)
	}
	if op.Count != 300 || op.Latency.TotalCount() != 300 {
		t.Errorf("successes: got count %d, histogram %d, want 300 both", op.Count, op.Latency.TotalCount())
	}
}

func TestCancelGivesPartialResult(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(600*time.Millisecond, cancel)
	cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(500), Duration: time.Minute}
	r, err := Run(ctx, cfg, sleepTask(time.Millisecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Partial || r.Reason != "interrupted" {
		t.Errorf("partial: got %v %q want true \"interrupted\"", r.Partial, r.Reason)
	}
	if got := r.Completed(); got < 200 || got > 400 {
		t.Errorf("completed: got %d, want about 300", got)
	}
	if r.Ops[0].Errors.Total() != 0 {
		t.Errorf("errors: got %v, want none from our own stop", r.Ops[0].Errors)
	}
}

func TestOverloadDropsAndIsServerBound(t *testing.T) {
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(1000), Duration: 1500 * time.Millisecond,
		DropAfter: 100 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(20*time.Millisecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	if r.Dropped == 0 || r.ClientBound || !r.ServerBound {
		t.Fatalf("dropped %d clientBound %v serverBound %v %v: want drops and a server-bound verdict (both workers busy)",
			r.Dropped, r.ClientBound, r.ServerBound, r.Reasons)
	}
	if r.Intended != 1500 {
		t.Errorf("intended: got %d want 1500 (completed plus dropped)", r.Intended)
	}
}

func TestOverloadWithRepliesWaitingIsClientBound(t *testing.T) {
	// The same overload, but each reply arrived 100µs after the send and
	// waited the rest of the 20ms for the worker: the client, not the
	// server, kept the workers in flight.
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(1000), Duration: 1500 * time.Millisecond,
		DropAfter: 100 * time.Millisecond}
	r, err := Run(context.Background(), cfg, func(int) (Task, error) {
		return &replyTask{d: 20 * time.Millisecond, early: 100 * time.Microsecond}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	reasons := strings.Join(r.Reasons, "; ")
	if r.Dropped == 0 || !r.ClientBound || r.ServerBound || !strings.Contains(reasons, "replies waited") ||
		!strings.Contains(reasons, "every worker was in flight") || strings.Contains(reasons, "workers were free") {
		t.Fatalf("dropped %d clientBound %v serverBound %v %q: want drops and a client-bound verdict, replies waiting with every worker in flight",
			r.Dropped, r.ClientBound, r.ServerBound, r.Reasons)
	}
}

func TestConfigRejectsUnboundedRun(t *testing.T) {
	_, err := Run(context.Background(), Config{Ops: []string{"op"}, Workers: 1}, sleepTask(0, 1))
	if err == nil {
		t.Fatal("got nil error for a run with neither duration nor count")
	}
}

func TestConstantPacerDoesNotDrift(t *testing.T) {
	p := NewConstant(3)
	if last, want := p.At(3_000_000), 1_000_000*time.Second; last != want {
		t.Fatalf("offset of op 3,000,000 at 3/s: got %v want %v", last, want)
	}
}

func TestShortTailJoinsThePreviousInterval(t *testing.T) {
	var handed []Interval // OnInterval's, the last per Index kept
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(400), Duration: 1050 * time.Millisecond,
		Interval: 250 * time.Millisecond, OnInterval: func(iv *Interval) {
			if n := len(handed); n > 0 && handed[n-1].Index == iv.Index {
				handed = handed[:n-1]
			}
			handed = append(handed, *iv)
		}}
	r, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	// The live line sees what is stored: the joined last interval
	// replaces the one handed before it, never a tail of a few
	// milliseconds with no operations.
	if len(handed) != len(r.Intervals) {
		t.Fatalf("OnInterval: %d intervals once replaced, want the %d stored", len(handed), len(r.Intervals))
	}
	for i, iv := range handed {
		if iv.Index != i || iv.Length != r.Intervals[i].Length || iv.Ops[0].Count != r.Intervals[i].Ops[0].Count {
			t.Errorf("OnInterval %d: index %d, %v, %d ops; stored %v, %d ops", i, iv.Index, iv.Length, iv.Ops[0].Count,
				r.Intervals[i].Length, r.Intervals[i].Ops[0].Count)
		}
	}
	var n int64
	var total time.Duration
	for i, iv := range r.Intervals {
		if iv.Length < 125*time.Millisecond || iv.Length > 375*time.Millisecond {
			t.Errorf("interval %d lasts %v, want 250ms, or up to half as much again for the last", i, iv.Length)
		}
		if i > 0 && !iv.Start.Equal(r.Intervals[i-1].Start.Add(r.Intervals[i-1].Length)) {
			t.Errorf("interval %d starts at %v, not where interval %d ends", i, iv.Start, i-1)
		}
		total += iv.Length
		h, err := hist.FromDist(iv.Ops[0].Latency)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != iv.Ops[0].Count {
			t.Errorf("interval %d: histogram holds %d, count says %d", i, h.TotalCount(), iv.Ops[0].Count)
		}
		n += iv.Ops[0].Count
	}
	if phase := r.End.Sub(r.Start); total != phase {
		t.Errorf("intervals add up to %v, the phase lasted %v", total, phase)
	}
	if n != r.Ops[0].Count || n != 420 {
		t.Errorf("intervals hold %d ops, totals %d, want 420", n, r.Ops[0].Count)
	}
}

// TestForgottenIntervalsAreAllHanded: a run that forgets its intervals
// (a run of any length) keeps only the last one, hands every interval to
// OnInterval (the joined tail replacing the one before, as when they are
// kept), and judges its pace on all of them: the same phase, totals and
// verdict as a run that keeps them.
func TestForgottenIntervalsAreAllHanded(t *testing.T) {
	var handed []Interval
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(400), Duration: 1050 * time.Millisecond,
		Interval: 100 * time.Millisecond, ForgetIntervals: true, OnInterval: func(iv *Interval) {
			if n := len(handed); n > 0 && handed[n-1].Index == iv.Index {
				handed = handed[:n-1]
			}
			handed = append(handed, *iv)
		}}
	r, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Intervals) != 1 || len(handed) < 9 || r.Intervals[0].Index != len(handed)-1 {
		t.Fatalf("kept %d intervals (want the last, index %d), handed %d", len(r.Intervals), len(handed)-1, len(handed))
	}
	var n int64
	var total time.Duration
	for i, iv := range handed {
		if iv.Index != i {
			t.Errorf("handed interval %d has index %d", i, iv.Index)
		}
		n += iv.Ops[0].Count
		total += iv.Length
	}
	if n != r.Ops[0].Count || n != 420 || total != r.End.Sub(r.Start) {
		t.Errorf("handed intervals hold %d ops over %v; totals %d over %v, want 420 over the phase", n, total, r.Ops[0].Count, r.End.Sub(r.Start))
	}
	if got := r.pace.lags.count(); got != len(handed) {
		t.Errorf("pace read %d intervals' lags, want all %d", got, len(handed))
	}
}

// TestRunFasterThanTheFirstTick: operations that all finish before the
// coordinator's first tick are still measured.
func TestRunFasterThanTheFirstTick(t *testing.T) {
	for range 20 {
		cfg := Config{Ops: []string{"op"}, Workers: 1, Count: 50}
		r, err := Run(context.Background(), cfg, sleepTask(0, 1))
		if err != nil {
			t.Fatal(err)
		}
		if r.Partial || r.Completed() != 50 {
			t.Fatalf("got %s, partial %v %q; want 50 ops measured", r, r.Partial, r.Reason)
		}
	}
}

// TestSlowRateLastsItsDuration: at a rate below one operation per phase
// (the second slot falls after the end), the workers finish after the
// first operation, and the measured phase still lasts its duration, so its
// rates and client CPU are over the time asked for; the verdict is not
// client-bound.
func TestSlowRateLastsItsDuration(t *testing.T) {
	cfg := Config{Ops: []string{"read"}, Workers: 4, Pacer: NewConstant(0.001), Duration: 600 * time.Millisecond,
		Interval: 200 * time.Millisecond}
	r, err := Run(context.Background(), cfg, sleepTask(100*time.Microsecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.End.Sub(r.Start); got < cfg.Duration {
		t.Errorf("measured phase: got %v, want its %v duration", got, cfg.Duration)
	}
	if r.Completed() != 1 || r.Partial {
		t.Errorf("got %d operations, partial %v; want the one the schedule held, complete", r.Completed(), r.Partial)
	}
	if r.ClientBound {
		t.Errorf("client-bound %v: want no verdict against the client for an idle run", r.Reasons)
	}
}

// A stop ends waits for slots far ahead at once, in every pacing: at one
// operation every 20 s, each of 4 workers holds a slot up to a minute
// away when the run is cancelled.
func TestStopEndsLongWaits(t *testing.T) {
	for _, p := range []Pacing{PacingSleep, PacingSpin, PacingNanosleep, PacingTimer} {
		t.Run(string(p), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(0.05), Pacing: p, Duration: time.Hour}
			done := make(chan *Result, 1)
			go func() {
				r, err := Run(ctx, cfg, sleepTask(0, 1))
				if err != nil {
					t.Error(err)
				}
				done <- r
			}()
			select {
			case r := <-done:
				if r != nil && (!r.Partial || r.Completed() != 1) {
					t.Errorf("got partial %v, %d completed; want a partial run of the one slot due at the start", r.Partial, r.Completed())
				}
			case <-time.After(15 * time.Second): // the next slot is 20 s away
				t.Fatal("the run did not end at the stop: a worker kept waiting for its slot")
			}
		})
	}
}

// replyTask sleeps d and says its reply arrived early after Do began
// (arrival), or, stale, before Do began.
type replyTask struct {
	d, early time.Duration
	stale    bool
	at       time.Time
}

func (r *replyTask) Do(ctx context.Context) (int, error) {
	began := time.Now()
	r.at = began.Add(r.early)
	if r.stale {
		r.at = began.Add(-time.Second)
	}
	select {
	case <-time.After(r.d):
		return 0, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func (r *replyTask) ReplyArrived() (time.Time, bool) { return r.at, true }

func TestOperationsEndAtTheirReplysArrival(t *testing.T) {
	const d, early = 50 * time.Millisecond, 100 * time.Microsecond
	for _, c := range []struct{ stale, atReturn bool }{{false, false}, {true, false}, {false, true}} {
		cfg := Config{Ops: []string{"read"}, Workers: 4, Count: 20, AtReturn: c.atReturn}
		r, err := Run(context.Background(), cfg, func(int) (Task, error) { return &replyTask{d: d, early: early, stale: c.stale}, nil })
		if err != nil {
			t.Fatal(err)
		}
		lat := time.Duration(r.Ops[0].Latency.Min()) * time.Microsecond
		if c.stale || c.atReturn {
			// An arrival before the send is not this operation's, and
			// AtReturn ignores arrivals: the operation ends when Do
			// returns, and no receive lag is kept.
			// The histogram keeps 3 significant digits: its minimum is the
			// lowest value of the minimum's bucket, up to 0.1% below it.
			if lat < d-d/1000 || r.ReceiveLag != nil || r.ClientBound {
				t.Errorf("%+v: latency min %v (want ≥ %v), receive lag %v (want nil), client-bound %v %q (want not)", c, lat, d, r.ReceiveLag, r.ClientBound, r.Reasons)
			}
			for _, iv := range r.Intervals {
				if ri := iv.Result(1); ri.MaxReceiveLag != nil {
					t.Errorf("%+v: interval %d's receive lag %v: want none known", c, iv.Index, *ri.MaxReceiveLag)
				}
			}
			continue
		}
		// Each interval's largest receive lag, to the histograms'
		// precision, as the interval's stored figure.
		var timed int64
		for _, iv := range r.Intervals {
			timed += iv.ReceiveTimed
			ri := iv.Result(1)
			if iv.ReceiveTimed > 0 && (ri.MaxReceiveLag == nil || *ri.MaxReceiveLag < float64(d-early-time.Millisecond)/1e6) {
				t.Errorf("interval %d: receive lag %v ms of %d operations: want about %v", iv.Index, ri.MaxReceiveLag, iv.ReceiveTimed, d-early)
			}
		}
		if timed != 20 {
			t.Errorf("intervals time %d replies' receive lag, want 20", timed)
		}
		lat = time.Duration(r.Ops[0].Latency.Max()) * time.Microsecond
		if lat >= d/2 {
			t.Errorf("latency max %v: want the operations to end at their reply's arrival, %v after Do began", lat, early)
		}
		if r.ReceiveLag == nil || r.ReceiveLag.TotalCount() != 20 {
			t.Fatalf("receive lag %v: want 20 operations", r.ReceiveLag)
		}
		if got := time.Duration(r.ReceiveLag.Min()) * time.Microsecond; got < d-early-time.Millisecond {
			t.Errorf("receive lag min %v: want about %v, the sleep after the arrival", got, d-early)
		}
		// Replies that wait longer on the client than on the server make
		// the run client-bound.
		if !r.ClientBound || r.ServerBound || len(r.Reasons) == 0 || !strings.Contains(strings.Join(r.Reasons, "; "), "replies waited") {
			t.Errorf("client-bound %v, server-bound %v, reasons %q: want client-bound, replies waiting on the client", r.ClientBound, r.ServerBound, r.Reasons)
		}
	}
}
