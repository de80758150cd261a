package engine

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Pacing is how an open-loop worker waits for its slot's time.
type Pacing string

// The ways of waiting.
const (
	// PacingTimer: every worker claims a slot and sleeps on a Go timer.
	// Go's runtime waits for timers in epoll_wait, whose timeout is in
	// milliseconds, so a worker of an otherwise idle process wakes up to
	// about a millisecond late.
	PacingTimer Pacing = "timer"
	// PacingSleep: a worker claims a slot and waits for it on its own
	// timerfd armed once with the absolute deadline and read through Go's
	// netpoller, so the worker parks holding no thread and epoll wakes
	// when the kernel's high-resolution timer fires; it then sends at
	// once. One wake-up per slot, whatever the wait.
	PacingSleep Pacing = "timerfd"
	// PacingNanosleep: one worker at a time claims the next slot and
	// sleeps the last stretch in clock_nanosleep to an absolute deadline
	// with no timer slack (the others queue behind it, so the claim order
	// is the send order); the sleeping thread holds its P until the
	// runtime takes it back, which costs CPU in thread hand-offs.
	PacingNanosleep Pacing = "nanosleep"
	// PacingSpin (the default) is PacingSleep waking early and spinning
	// to the deadline, which takes the wake-up's own latency (tens of
	// microseconds on a virtual machine) out of the send lag. How early
	// is learnt from the run's own wake-ups (wakeLead: the 80th
	// percentile of how late they came, so four in five are early and
	// spin only the difference), bounded by the rate (spinFor), so the
	// spin costs at most a few percent of a core.
	PacingSpin Pacing = "spin"
	// PacingDispatch is PacingSpin, but a gated task's (GatedTask)
	// requests, built before their slots, are written by one dispatcher,
	// waiting as PacingSpin does, every request due on each of its
	// wake-ups; under the other pacings each gated worker writes its own
	// at its slot.
	PacingDispatch Pacing = "dispatch"
)

var pacings = map[Pacing]bool{PacingTimer: true, PacingSleep: true, PacingNanosleep: true, PacingSpin: true, PacingDispatch: true}

func pacingNames() string {
	var names []string
	for p := range pacings {
		names = append(names, string(p))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// ParsePacing checks a pacing's name.
func ParsePacing(s string) (Pacing, bool) {
	p := Pacing(s)
	return p, pacings[p]
}

const (
	// coarseWait: under PacingNanosleep, a wait longer than this sleeps
	// on a Go timer (which watches for a stop) until coarseWait before
	// the deadline.
	coarseWait = 2 * time.Millisecond
)

// spinFor bounds how early PacingSpin wakes to spin for a schedule of
// mean rate (operations per second): 100 µs up to 1,000/s (at most 10%
// of a core were every wake-up on time), 60 µs up to 25,000/s, and none
// above, where slots are mostly due already when a worker is free.
// Measured in bench/RESULTS.md.
func spinFor(rate float64) time.Duration {
	switch {
	case rate <= 1000:
		return 100 * time.Microsecond
	case rate <= 25000:
		return 60 * time.Microsecond
	}
	return 0
}

// lead is a learnt estimate of a quantile q of a delay, by the
// stochastic quantile rule: up q × step after a delay longer than the
// estimate, down (1 − q) × step after one within it, so it settles where
// a share q of the delays are within it; it stays within [0, max].
// Updates race without harm: a lost one slows the learning by one step.
type lead struct {
	lead     atomic.Int64 // nanoseconds
	max      int64
	up, down int64
}

// wakeLead is how early PacingSpin's waiters arm their timer: an
// estimate of the 80th percentile of how late a timer's wake-up comes
// (from its deadline to the worker running again), learnt from every
// wake-up of the run's waiters (one estimate, shared): up 1.6 µs after
// a wake-up later than the lead, down 0.4 µs after one within it. It
// starts at 20 µs.
type wakeLead = lead

const (
	leadStart = 20 * time.Microsecond
	leadUp    = 1600 * time.Nanosecond // q × step, q = 0.8, step 2 µs
	leadDown  = 400 * time.Nanosecond  // (1 − q) × step
)

func newWakeLead(max time.Duration) *wakeLead {
	l := &lead{max: int64(max), up: int64(leadUp), down: int64(leadDown)}
	l.lead.Store(min(int64(leadStart), l.max))
	return l
}

// A gated operation's request is written early by the run's write lead:
// an estimate of the 25th percentile of its write path, from the clock
// read just before the write to the send its task reports (SendTimed:
// the kernel's transmit stamp of the request, on Linux over plain TCP;
// without one, over TLS or for a write too large to stamp, the clock
// read just before the write system call, a path of a microsecond or
// less), learnt from every gated operation that succeeded, starting at
// none and at most maxWriteLead. So about three requests in four leave
// the host at or after their slot's instant, and the write path's 25th
// percentile is no longer counted in their latency; a request that left
// before its instant is timed from its send (engine.complete). The
// bound keeps it to a client's path: a network device's queue is the
// system's, never compensated beyond it.
const (
	maxWriteLead  = 20 * time.Microsecond
	writeLeadUp   = 250 * time.Nanosecond // q × step, q = 0.25, step 1 µs
	writeLeadDown = 750 * time.Nanosecond // (1 − q) × step
)

func newWriteLead() *lead {
	return &lead{max: int64(maxWriteLead), up: int64(writeLeadUp), down: int64(writeLeadDown)}
}

// early is the current lead; none for a nil lead.
func (l *lead) early() time.Duration {
	if l == nil {
		return 0
	}
	return time.Duration(l.lead.Load())
}

// learn learns from one delay: a wake-up late past its timer's deadline,
// a write's path.
func (l *lead) learn(d time.Duration) {
	v := l.lead.Load()
	if int64(d) > v {
		v = min(v+l.up, l.max)
	} else {
		v = max(v-l.down, 0)
	}
	l.lead.Store(v)
}

// meanRate is a pacer's mean rate over its first thousand operations.
func meanRate(p Pacer) float64 {
	const n = 1000
	at := p.At(n)
	if at <= 0 || at == maxOffset {
		return 0
	}
	return n / at.Seconds()
}

// waiter waits for slots' times in one of the Pacing ways. Each worker
// has its own.
type waiter struct {
	pacing Pacing
	turn   *sync.Mutex // PacingNanosleep: the one worker sleeping, shared
	timer  *time.Timer
	tfd    *timerFD  // PacingSleep, PacingSpin
	lead   *wakeLead // PacingSpin: how early it wakes to spin; nil: not at all
}

func newWaiter(p Pacing, turn *sync.Mutex) (*waiter, error) {
	if p == PacingDispatch {
		p = PacingSpin // the dispatcher's, and an ungated worker's
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	w := &waiter{pacing: p, turn: turn, timer: timer}
	if p == PacingSleep || p == PacingSpin {
		var err error
		if w.tfd, err = newTimerFD(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

func (wt *waiter) close() error {
	if wt.tfd == nil {
		return nil
	}
	return wt.tfd.close()
}

// claimAndWait claims the next slot of sched and waits until its time
// less early. It returns false when the schedule is over or stop closes
// first. drops is called with every claim's drops.
func (wt *waiter) claimAndWait(sched claimer, stop <-chan struct{}, drops func(slot), early time.Duration) (slot, bool) {
	if wt.pacing == PacingNanosleep {
		// One thread at a time blocks in clock_nanosleep, holding its P.
		wt.turn.Lock()
		defer wt.turn.Unlock()
	}
	s, ok := sched.claim(time.Now())
	drops(s)
	if !ok {
		return s, false
	}
	return s, wt.until(s.at.Add(-early), stop)
}

// until waits until at; false when stop closes first.
func (wt *waiter) until(at time.Time, stop <-chan struct{}) bool {
	if wt.pacing == PacingTimer {
		return waitUntil(wt.timer, at, stop)
	}
	due := at
	d := time.Until(due)
	if d <= 0 {
		return true // due already: no clock call
	}
	if wt.tfd == nil {
		// PacingNanosleep: a Go timer (which watches for a stop) until
		// coarseWait before the deadline, then the thread sleeps.
		if d > coarseWait && !waitUntil(wt.timer, due.Add(-coarseWait), stop) {
			return false
		}
		if stopped(stop) {
			return false
		}
		sleepUntil(due)
		return true
	}
	// The timerfd is armed once for the whole wait, however long: one
	// wake-up per wait. A stop fires it early (wake), and a stop that
	// comes before it is armed is seen by the check after arming.
	spin := wt.pacing == PacingSpin && wt.lead != nil
	learn := false // the timer is armed in the future: its wake-up's lateness is the kernel's
	if spin {
		early := wt.lead.early()
		at = at.Add(-early)
		learn = d > early
	}
	armed := wt.tfd.arm(at)
	if stopped(stop) {
		return false
	}
	if armed {
		wt.tfd.wait()
	} else {
		time.Sleep(time.Until(at)) // the timerfd refused: a Go timer
	}
	if stopped(stop) {
		return false
	}
	if spin {
		now := time.Now()
		if armed && learn {
			wt.lead.learn(max(now.Sub(at), 0))
		}
		for now.Before(due) { // a deliberate spin, at most the lead past a timely wake-up
			now = time.Now()
		}
	}
	return true
}

// wake ends the waiter's current wait at once (a stop).
func (wt *waiter) wake() {
	if wt.tfd != nil {
		wt.tfd.fire()
	}
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// waitUntil sleeps on timer until at, or returns false when stop closes
// first.
func waitUntil(timer *time.Timer, at time.Time, stop <-chan struct{}) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-stop:
		timer.Stop()
		return false
	}
}
