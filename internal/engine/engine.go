package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// engine is one run in progress.
type engine struct {
	cfg     Config
	closed  bool
	start   time.Time
	warmEnd time.Time
	sched   claimer
	turn    sync.Mutex // PacingNanosleep's one sleeper
	workers []*workerRec
	waiters []*waiter // open loop: each worker's, woken at a stop
	// gates are the open loop's gated workers' (nil for the others), and
	// disp sends their requests under PacingDispatch; nil when no worker
	// is gated. wlead is how early a gated request's write begins
	// (newWriteLead).
	gates    []*Gate
	disp     *dispatcher
	wlead    *lead
	inflight atomic.Int64
	peak     atomic.Int64 // most operations in flight in the current interval
	stopping atomic.Bool
	// skipped counts measured operations whose task returned ErrSkipped.
	skipped atomic.Int64
	// abandoned counts measured operations cancelled in flight by a stop;
	// unsent those due before the stop but never sent (set at the stop).
	abandoned atomic.Int64
	unsent    int64
	// lastDone is the latest completion, as an offset from start.
	lastDone atomic.Int64
}

// Run drives the configured operations until the measured phase ends, ctx
// is cancelled, or a task fails to build. A cancelled run returns a result
// marked partial with everything measured up to the stop.
func Run(ctx context.Context, cfg Config, newTask NewTask) (*Result, error) {
	res, _, err := runEngine(ctx, cfg, newTask)
	return res, err
}

// runEngine is Run, returning the engine too (for tests).
func runEngine(ctx context.Context, cfg Config, newTask NewTask) (*Result, *engine, error) {
	if err := cfg.validate(); err != nil {
		return nil, nil, fmt.Errorf("load config: %w", err)
	}
	e := &engine{cfg: cfg.withDefaults(), closed: cfg.Pacer == nil}
	tasks, err := e.buildTasks(newTask)
	if err != nil {
		return nil, e, err
	}
	e.start = time.Now()
	if !e.cfg.StartAt.IsZero() {
		if err := waitForStart(ctx, e.cfg.StartAt); err != nil {
			return nil, e, fmt.Errorf("waiting for the group's start: %w", err)
		}
		e.start = e.cfg.StartAt
	}
	e.warmEnd = e.start.Add(e.cfg.Warmup)
	e.sched = e.newSchedule()
	res, err := e.run(ctx, tasks)
	return res, e, err
}

// waitForStart returns at t, or with ctx's error when it is cancelled first.
func waitForStart(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *engine) buildTasks(newTask NewTask) ([]Task, error) {
	tasks := make([]Task, e.cfg.Workers)
	e.workers = make([]*workerRec, e.cfg.Workers)
	for i := range tasks {
		t, err := newTask(i)
		if err != nil {
			return nil, fmt.Errorf("worker %d: %w", i, err)
		}
		tasks[i] = t
		e.workers[i] = newWorkerRec(len(e.cfg.Ops))
		if pt, ok := t.(PartsTask); ok {
			e.workers[i].parts = &Parts{e: e, w: e.workers[i], task: pt}
			pt.UseParts(e.workers[i].parts)
		}
	}
	if !e.closed {
		var lead *wakeLead
		if spin := spinFor(meanRate(e.cfg.Pacer)); spin > 0 {
			lead = newWakeLead(spin)
		}
		e.waiters = make([]*waiter, e.cfg.Workers)
		for i := range e.waiters {
			wt, err := newWaiter(e.cfg.Pacing, &e.turn)
			if err != nil {
				wt, _ = newWaiter(PacingTimer, nil) // no timerfd: a Go timer cannot fail
			}
			wt.lead = lead
			e.waiters[i] = wt
		}
		e.gate(tasks, lead)
	}
	return tasks, nil
}

// gate gives every GatedTask its worker's gate: under PacingDispatch the
// run's dispatcher, made when one takes it; else the worker's own wait
// for its slots (ownGate, its stop set when the worker starts).
func (e *engine) gate(tasks []Task, lead *wakeLead) {
	var d *dispatcher
	if e.cfg.Pacing == PacingDispatch {
		wt, err := newWaiter(e.cfg.Pacing, &sync.Mutex{})
		if err != nil {
			wt, _ = newWaiter(PacingTimer, nil) // no timerfd: a Go timer cannot fail
		}
		wt.lead = lead
		d = newDispatcher(e, wt)
	}
	e.gates = make([]*Gate, len(tasks))
	e.wlead = newWriteLead()
	for i, t := range tasks {
		gt, ok := t.(GatedTask)
		if !ok {
			continue
		}
		g := &Gate{d: d, w: i}
		if d == nil {
			g.own = &ownGate{e: e, wt: e.waiters[i]}
		}
		if gt.UseGate(g) {
			e.gates[i] = g
			if d != nil {
				e.disp = d
			}
		}
	}
	if d != nil && e.disp == nil {
		_ = d.wt.close() // unused; nothing to lose
	}
}

func (e *engine) newSchedule() claimer {
	if e.closed {
		s := &closedSchedule{warmEnd: e.warmEnd, count: e.cfg.Count}
		if e.cfg.Duration > 0 {
			s.end = e.warmEnd.Add(e.cfg.Duration)
		}
		return s
	}
	return newOpenSchedule(&e.cfg, e.start)
}

func (e *engine) run(ctx context.Context, tasks []Task) (*Result, error) {
	opCtx, cancelOps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelOps()
	interrupted := context.AfterFunc(ctx, func() { time.AfterFunc(e.cfg.InterruptGrace, cancelOps) })
	defer interrupted()
	var wg sync.WaitGroup
	dispDone := make(chan struct{})
	if e.disp != nil {
		go func() { defer close(dispDone); e.disp.run() }()
	} else {
		close(dispDone)
	}
	for i, t := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work(opCtx, ctx.Done(), i, t)
		}()
	}
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		if e.disp != nil {
			e.disp.halt() // every worker left: the schedule is over
		}
		<-dispDone
		close(finished)
	}()
	c := newCoordinator(e)
	err := c.loop(ctx, finished, func(now time.Time) {
		e.stopping.Store(true)
		e.unsent = e.sched.stop(now)
		for _, wt := range e.waiters {
			wt.wake()
		}
		if e.disp != nil {
			e.disp.halt()
		}
		time.AfterFunc(e.cfg.Grace, cancelOps)
	})
	<-finished
	for _, wt := range e.waiters {
		_ = wt.close() // a timerfd; nothing to lose
	}
	if e.disp != nil {
		_ = e.disp.wt.close()
	}
	res, ferr := c.finish()
	return res, errors.Join(err, ferr)
}

// work is one worker's loop: claim a slot, wait for its time, send it,
// record it.
func (e *engine) work(ctx context.Context, stop <-chan struct{}, i int, t Task) {
	w := e.workers[i]
	var wt *waiter
	if !e.closed {
		wt = e.waiters[i]
	}
	drops := func(s slot) {
		if s.dropped > 0 {
			w.drop(s.dropped, s.dropLag)
		}
	}
	if e.gates != nil && e.gates[i] != nil {
		e.workGated(ctx, stop, i, t, e.gates[i])
		return
	}
	measuring := false
	for {
		var s slot
		var ok bool
		if e.closed {
			s, ok = e.sched.claim(time.Now())
		} else {
			s, ok = wt.claimAndWait(e.sched, stop, drops, 0)
		}
		if !ok {
			return
		}
		if s.measured && !measuring {
			measuring = true
			if at := e.cfg.AtWorkerMeasured; at != nil {
				at(i)
			}
		}
		e.do(ctx, w, t, s)
	}
}

// workGated is a gated worker's loop: arm the gate, let the task build
// its next operation's request and hand it to the gate (the dispatcher,
// or the worker's own wait), which claims its slot and sends it at the
// slot's time; record it.
func (e *engine) workGated(ctx context.Context, stop <-chan struct{}, i int, t Task, g *Gate) {
	w := e.workers[i]
	if g.own != nil {
		g.own.stop = stop
	}
	for {
		g.state.Store(gateArmed)
		beginSend(t)
		op, err := t.Do(ctx)
		switch g.state.Load() {
		case gateSent:
			e.complete(w, t, g.slot, g.sent, op, err)
			if err == nil {
				e.learnWrite(t, g.sent)
			}
		case gateArmed:
			// The task failed before its request was ready (a
			// connection it could not open) or never handed it: the
			// failure takes the next slot at its time, as it would had
			// the task waited for it.
			if err == nil {
				err = errNotHanded
			}
			s, ok := e.waiters[i].claimAndWait(e.sched, stop, func(s slot) {
				if s.dropped > 0 {
					w.drop(s.dropped, s.dropLag)
				}
			}, 0)
			if !ok {
				return
			}
			if s.measured {
				e.completedAt(time.Now())
				w.failure(op, e.cfg.Classify(err), false)
			}
		case gateHanded: // the task gave up waiting (its context ended)
			if g.d != nil {
				g.d.withdraw(g)
			}
			return
		default: // never sent: the run is over
			return
		}
	}
}

func (e *engine) do(ctx context.Context, w *workerRec, t Task, s slot) {
	sent := time.Now()
	if !e.closed && s.measured {
		lag := sent.Sub(s.at)
		if lag > e.cfg.DropAfter {
			w.drop(1, lag)
			return
		}
		w.sent1(lag, lag > e.cfg.LateAfter)
	}
	e.enter()
	w.parts.begin(s)
	beginSend(t)
	var op int
	var err error
	if st, ok := t.(SlotTask); ok && !e.closed {
		op, err = st.DoSlot(ctx, s.n)
	} else {
		op, err = t.Do(ctx)
	}
	e.complete(w, t, s, sent, op, err)
}

// complete records an operation of slot s sent at sent, whose task
// returned op and err just now.
func (e *engine) complete(w *workerRec, t Task, s slot, sent time.Time, op int, err error) {
	done := time.Now()
	e.inflight.Add(-1)
	if !s.measured {
		return
	}
	if err != nil && e.stopping.Load() && errors.Is(err, context.Canceled) {
		e.abandoned.Add(1) // cancelled by our own stop, not a server failure
		return
	}
	e.completedAt(done)
	if err != nil && errors.Is(err, ErrSkipped) {
		e.skipped.Add(1) // its slot served, nothing sent
		return
	}
	if err != nil {
		w.failure(op, e.cfg.Classify(err), false)
		return
	}
	end, rlag := e.replyEnd(t, sent, done)
	from := sentAt(t, sent, end)
	if e.closed || from.Before(s.at) {
		// Closed loop: the operation starts at its send, latency is
		// service time. Open loop: a request that left the host before
		// its slot's instant (a gated write begun early by the write
		// lead) is timed from its send, so its latency is never shorter
		// than its service time, nor shortened by its earliness.
		s.at = from
	}
	w.success(op, end.Sub(s.at), end.Sub(from), false, rlag)
	if e.cfg.Trace != nil {
		e.trace(t, op, s, sent, from, end, done)
	}
}

// replyEnd is when an operation sent at sent and returned at done ended:
// its reply's arrival when the task knows it, it falls between the two
// and the run does not end operations at their return (AtReturn); else
// done. rlag is done minus that arrival, the receive lag; -1 when the
// arrival is not used.
func (e *engine) replyEnd(t Task, sent, done time.Time) (end time.Time, rlag time.Duration) {
	if rt, ok := t.(ReplyTimed); ok && !e.cfg.AtReturn {
		if at, ok := rt.ReplyArrived(); ok && at.After(sent) && !at.After(done) {
			return at, done.Sub(at)
		}
	}
	return done, -1
}

// learnWrite learns the write lead from a gated operation whose write
// began at wrote: the path to the send its task reports (SendTimed).
func (e *engine) learnWrite(t Task, wrote time.Time) {
	if st, ok := t.(SendTimed); ok {
		if at, ok := st.Sent(); ok && !at.Before(wrote) {
			e.wlead.learn(at.Sub(wrote))
		}
	}
}

// beginSend tells a SendTimed task that its next operation begins.
func beginSend(t Task) {
	if st, ok := t.(SendTimed); ok {
		st.BeginSend()
	}
}

// sentAt is when an operation the engine called at called, ending at
// end, was written: the task's own time when it knows a later one
// (SendTimed), else called.
func sentAt(t Task, called, end time.Time) time.Time {
	if st, ok := t.(SendTimed); ok {
		if at, ok := st.Sent(); ok && at.After(called) && !at.After(end) {
			return at
		}
	}
	return called
}

// completedAt keeps the latest completion time.
func (e *engine) completedAt(t time.Time) {
	off := int64(t.Sub(e.start))
	for {
		last := e.lastDone.Load()
		if off <= last || e.lastDone.CompareAndSwap(last, off) {
			return
		}
	}
}

// enter counts an operation in flight and keeps the interval's peak.
func (e *engine) enter() {
	n := e.inflight.Add(1)
	for {
		p := e.peak.Load()
		if n <= p || e.peak.CompareAndSwap(p, n) {
			return
		}
	}
}
