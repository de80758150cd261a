package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
)

// coordinator closes intervals, reports phase boundaries and assembles the
// result. It runs on the goroutine that called Run.
type coordinator struct {
	e         *engine
	agg       *intervalAgg
	tally     *Tally
	lag       *hist.H // send lag over the phase
	rlag      *hist.H // receive lag over the phase (ReplyTimed tasks)
	intervals []Interval
	// forgot counts the intervals dropped from intervals
	// (Config.ForgetIntervals); pace is what the health verdict reads of
	// every interval.
	forgot   int
	pace     pace
	started  bool // the measured phase has begun
	lastTick time.Time
	cpuStart time.Duration
	cpuLast  time.Duration
	partial  bool
	reason   string
	stopAt   time.Time // when a stop was requested
	// events runs the OnPhase and OnInterval callbacks, in order, on a
	// goroutine of their own, so a slow callback (a serverStatus round
	// trip, a terminal redraw) never delays draining the workers.
	events     chan func()
	eventsDone chan struct{}
	drained    sync.Once
}

func newCoordinator(e *engine) *coordinator {
	c := &coordinator{e: e, agg: newIntervalAgg(len(e.cfg.Ops), e.closed), lag: hist.New(), rlag: hist.New(),
		events: make(chan func(), 64), eventsDone: make(chan struct{})}
	go func() {
		for f := range c.events {
			f()
		}
		close(c.eventsDone)
	}()
	c.tally = e.cfg.Tally
	if c.tally == nil {
		c.tally = NewTally()
	}
	c.tally.begin(e.cfg.Ops, e.cfg.planned(), e.closed)
	return c
}

// loop waits out the warm-up, then closes an interval every tick until the
// workers finish. A cancelled ctx calls stop once and marks the run
// partial; the loop still waits for the workers.
func (c *coordinator) loop(ctx context.Context, finished <-chan struct{}, stop func(time.Time)) error {
	done := ctx.Done()
	timer := time.NewTimer(time.Until(c.e.warmEnd))
	defer timer.Stop()
	next := c.e.warmEnd
	var hold <-chan time.Time // closes a phase the workers finished early
	for {
		select {
		case <-timer.C:
			if err := c.tick(next); err != nil {
				return err
			}
			next = next.Add(c.e.cfg.Interval)
			timer.Reset(time.Until(next))
		case <-finished:
			until := c.holdUntil()
			if !c.stopAt.IsZero() || !time.Now().Before(until) {
				return nil
			}
			finished, hold = nil, time.After(time.Until(until))
		case <-hold:
			return nil
		case <-done:
			done = nil
			c.partial, c.reason, c.stopAt = true, "interrupted", time.Now()
			stop(c.stopAt)
			if hold != nil {
				return nil
			}
		}
	}
}

// holdUntil is when an open-loop phase bounded by its duration ends when
// its workers finish before it because no slot remains (a rate below one
// operation in what is left of the phase): the phase still lasts its
// duration, so its rates and client CPU are over the time asked for, not
// over the few milliseconds its last operation took. Zero otherwise.
func (c *coordinator) holdUntil() time.Time {
	cfg := c.e.cfg
	if cfg.Pacer == nil || cfg.Duration <= 0 || cfg.Count > 0 {
		return time.Time{}
	}
	return c.e.warmEnd.Add(cfg.Duration)
}

// tick begins the measured phase at its first call, and closes the
// interval ending at t at every later one.
func (c *coordinator) tick(t time.Time) error {
	if !c.started {
		c.begin(t)
		return nil
	}
	if err := c.rotate(t); err != nil {
		return err
	}
	c.report(len(c.intervals) - 1)
	return nil
}

func (c *coordinator) begin(t time.Time) {
	c.started = true
	c.lastTick = t
	c.cpuStart = processCPU()
	c.cpuLast = c.cpuStart
	c.e.peak.Store(c.e.inflight.Load())
	if at := c.e.cfg.AtPhase; at != nil {
		at(MeasureStart, t)
	}
	if on := c.e.cfg.OnPhase; on != nil {
		c.events <- func() { on(MeasureStart, t) }
	}
}

// rotate drains every worker into one interval ending at end, summarises
// it, and adds it to the phase totals.
func (c *coordinator) rotate(end time.Time) error {
	c.agg.reset()
	for _, w := range c.e.workers {
		w.drainInto(c.agg)
	}
	drained := time.Now()
	cpu := processCPU()
	iv := Interval{
		Index: c.forgot + len(c.intervals), Start: c.lastTick, Length: end.Sub(c.lastTick),
		Sent: c.agg.sent, Drained: drained, Late: c.agg.late, Dropped: c.agg.dropped, MaxLag: c.agg.maxLag,
		PeakInFlight: c.e.peak.Swap(c.e.inflight.Load()), CPU: cpu - c.cpuLast,
	}
	c.cpuLast, c.lastTick = cpu, end
	if err := hist.Merge(c.lag, c.agg.lag); err != nil {
		return err
	}
	if err := hist.Merge(c.rlag, c.agg.rlag); err != nil {
		return err
	}
	if n := c.agg.rlag.TotalCount(); n > 0 {
		iv.ReceiveTimed, iv.MaxReceiveLag = n, time.Duration(c.agg.rlag.Max())*time.Microsecond
	}
	if !c.e.closed {
		var err error
		if iv.Lag, err = hist.Summarize(c.agg.lag); err != nil {
			return err
		}
	}
	for i := range c.agg.ops {
		op, err := c.closeOp(i)
		if err != nil {
			return err
		}
		iv.Ops = append(iv.Ops, op)
	}
	if c.e.cfg.ForgetIntervals && len(c.intervals) > 1 {
		// Only the last closed interval is kept: the closing tail may join it.
		c.forgot += len(c.intervals) - 1
		c.intervals = append(make([]Interval, 0, 2), c.intervals[len(c.intervals)-1])
	}
	c.intervals = append(c.intervals, iv)
	c.pace.add(&iv, c.e.cfg)
	return nil
}

// report adds closed interval i to the tally, then hands it to
// OnInterval, on the callbacks' goroutine: a reader of the tally in
// OnInterval sees it up to and including that interval.
func (c *coordinator) report(i int) {
	shown := c.intervals[i] // a copy: the last interval may still absorb a tail
	shown.Ops = slices.Clone(shown.Ops)
	on := c.e.cfg.OnInterval
	c.events <- func() {
		if c.tally.Add(&shown) == nil && on != nil {
			on(&shown)
		}
	}
}

// drain waits until every callback queued has returned; no callback is
// queued after it.
func (c *coordinator) drain() {
	c.drained.Do(func() {
		close(c.events)
		<-c.eventsDone
	})
}

// closeOp summarises operation type i of the interval.
func (c *coordinator) closeOp(i int) (IntervalOp, error) {
	a := &c.agg.ops[i]
	op := IntervalOp{Name: c.e.cfg.Ops[i], Count: a.count, Errors: a.errs, Parts: a.parts, PartErrors: a.partErrs}
	var err error
	if op.Latency, err = hist.Summarize(a.lat); err != nil {
		return op, err
	}
	op.Service = op.Latency
	if !c.e.closed {
		op.Service, err = hist.Summarize(a.svc)
	}
	return op, err
}

// end is when the measured phase ended: the later of its stop and its
// last completion. The stop is the one asked for (Ctrl-C), else the end
// its duration scheduled, else now: neither the idle grace period that
// follows a stop nor a finish noticed late (a busy machine's scheduler)
// dilutes the phase's rates.
func (c *coordinator) end(now time.Time) time.Time {
	end := c.stopAt
	if end.IsZero() {
		end = now
		if d := c.e.cfg.Duration; d > 0 && c.e.warmEnd.Add(d).Before(now) {
			end = c.e.warmEnd.Add(d)
		}
	}
	if last := c.e.lastDone.Load(); last > 0 {
		if t := c.e.start.Add(time.Duration(last)); t.After(end) {
			end = t
		}
	}
	if end.Before(c.lastTick) {
		end = c.lastTick
	}
	return end
}

// closeLast closes the phase's final interval. A tail shorter than half
// an interval joins the previous interval, so no interval's rate is
// extrapolated from a few milliseconds; OnInterval is then handed the
// joined interval again, under the previous one's Index, which it
// replaces.
func (c *coordinator) closeLast(end time.Time) error {
	n := len(c.intervals)
	if n == 0 || end.Sub(c.lastTick) >= c.e.cfg.Interval/2 {
		if err := c.rotate(end); err != nil {
			return err
		}
		c.report(len(c.intervals) - 1)
		return nil
	}
	prev := c.intervals[n-1]
	c.intervals = c.intervals[:n-1]
	if err := c.rotate(end); err != nil {
		return err
	}
	tail := c.intervals[n-1].MaxLag
	if err := c.intervals[n-1].absorb(&prev); err != nil {
		return err
	}
	c.pace.lags.joinLast(prev.MaxLag, tail, c.intervals[n-1].MaxLag)
	c.report(n - 1)
	return nil
}

// absorb adds an earlier interval's recordings to iv, which then spans
// both.
func (iv *Interval) absorb(prev *Interval) error {
	iv.Start, iv.Length = prev.Start, iv.Length+prev.Length
	iv.Sent += prev.Sent
	iv.Late += prev.Late
	iv.Dropped += prev.Dropped
	iv.MaxLag = max(iv.MaxLag, prev.MaxLag)
	iv.ReceiveTimed += prev.ReceiveTimed
	iv.MaxReceiveLag = max(iv.MaxReceiveLag, prev.MaxReceiveLag)
	iv.PeakInFlight = max(iv.PeakInFlight, prev.PeakInFlight)
	iv.CPU += prev.CPU
	var err error
	if iv.Lag, err = hist.MergeDists(iv.Lag, prev.Lag); err != nil {
		return err
	}
	for i := range iv.Ops {
		if err := iv.Ops[i].absorb(&prev.Ops[i]); err != nil {
			return err
		}
	}
	return nil
}

func (op *IntervalOp) absorb(prev *IntervalOp) error {
	op.Count += prev.Count
	op.Errors.add(&prev.Errors)
	op.Parts += prev.Parts
	op.PartErrors += prev.PartErrors
	var err error
	if op.Latency, err = hist.MergeDists(op.Latency, prev.Latency); err != nil {
		return err
	}
	op.Service, err = hist.MergeDists(op.Service, prev.Service)
	return err
}

// finish closes the last, possibly short, interval and builds the result
// from the tally. Every callback has run when it returns.
func (c *coordinator) finish() (*Result, error) {
	defer c.drain()
	end := c.end(time.Now())
	res := &Result{
		Mode: c.e.cfg.Mode(), Workers: c.e.cfg.Workers, Planned: c.e.cfg.planned(),
		Cores: runtime.GOMAXPROCS(0), Partial: c.partial, Reason: c.reason,
	}
	if c.e.cfg.Pacer != nil {
		res.Pacer, res.Pacing = c.e.cfg.Pacer.String(), c.e.cfg.Pacing
	}
	if !c.started && end.Before(c.e.warmEnd) {
		res.Start, res.End = end, end
		res.Partial, res.Reason = true, "stopped before the measured phase began"
		return res, c.closeTally(res)
	}
	if !c.started {
		// The workers finished before the coordinator saw the warm-up
		// end: the phase began at the warm-up's end all the same.
		c.begin(c.e.warmEnd)
	}
	if err := c.closeLast(end); err != nil {
		return nil, err
	}
	if at := c.e.cfg.AtPhase; at != nil {
		at(MeasureEnd, end)
	}
	if on := c.e.cfg.OnPhase; on != nil {
		c.events <- func() { on(MeasureEnd, end) }
	}
	if err := c.closeTally(res); err != nil {
		return nil, err
	}
	if c.e.cfg.ForgetIntervals && len(c.intervals) > 1 {
		c.intervals = c.intervals[len(c.intervals)-1:]
	}
	res.Start, res.End, res.Intervals = c.e.warmEnd, end, c.intervals
	res.pace = &c.pace
	res.Abandoned = c.e.abandoned.Load()
	res.Skipped = c.e.skipped.Load()
	res.CPU = c.cpuLast - c.cpuStart
	if !c.e.closed {
		res.Lag = c.lag
	}
	if c.rlag.TotalCount() > 0 {
		res.ReceiveLag = c.rlag
	}
	res.Abandoned += c.e.unsent + c.e.sched.abandoned()
	res.WarmupSkipped = c.e.sched.skipped()
	res.tally()
	v := judge(res, c.e.cfg)
	res.ClientBound, res.ServerBound, res.Reasons, res.NotJudged = v.ClientBound, v.ServerBound, v.Reasons, v.NotJudged
	res.Precision = judgePrecision(res)
	return res, nil
}

// closeTally waits for every callback, closes the tally, and takes the
// result's operation totals and interval counts from it.
func (c *coordinator) closeTally(res *Result) error {
	c.drain()
	if err := c.tally.Err(); err != nil {
		return err
	}
	c.tally.close(res.Partial)
	v := c.tally.View()
	res.Ops, res.Late, res.Dropped, res.MaxLag = v.Ops, v.Late, v.Dropped, v.MaxLag
	return nil
}

func (r *Result) tally() {
	r.Failed = failed(r.Ops)
	r.Intended = r.Completed() + r.Skipped + r.Abandoned
	if r.Mode == "open" {
		r.Intended += r.Dropped
	}
}

// Completed is the number of measured operations that finished, with or
// without an error; parts of operations (Parts) are not operations of
// their own here.
func (r *Result) Completed() int64 { return completed(r.Ops) }

// String is a one-line account of the run, for logs and tests.
func (r *Result) String() string {
	return fmt.Sprintf("%s loop, %d workers, %d ops in %v, %d late, %d dropped",
		r.Mode, r.Workers, r.Completed(), r.End.Sub(r.Start).Round(time.Millisecond), r.Late, r.Dropped)
}
