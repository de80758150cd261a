package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// A GatedTask builds each operation's first request before the operation's
// time and hands it through its worker's Gate, which sends it at the
// slot's instant less the run's write lead (newWriteLead): in open loop
// the request path at that instant is only the write. Under
// PacingDispatch one dispatcher writes every gated worker's request,
// sending every operation then due on one wake-up; under every other
// open-loop pacing each worker's gate is its own: Hand claims the
// worker's next slot, waits for its time as the pacing waits, and writes
// the request there, on the worker's goroutine.
//
// The engine calls Do before the operation's slot is claimed. Do builds
// the request, hands it (Gate.Hand) and waits for its reply; every later
// request of the operation (a retry, a getMore) it sends itself. UseGate
// is called once, before the run, in open loop only; a task that returns
// false (one that measures parts of its operations, whose send times it
// takes itself) is run as a plain Task.
type GatedTask interface {
	Task
	UseGate(*Gate) bool
}

// ErrNotSent is what a gated operation whose request its gate never sent
// (the run stopped first) returns: nothing reached the server.
var ErrNotSent = errors.New("request not sent: the run stopped before its time")

// errNotHanded is the failure of a gated operation that returned without
// a failure of its own and without handing its request: the engine cannot
// say when it was sent.
var errNotHanded = errors.New("a gated task completed an operation without handing its request to its gate")

// Gate states, from the worker's arming of an operation to its outcome.
const (
	gateArmed  int32 = iota + 1 // Do may hand its first request
	gateHanded                  // handed, waiting for the dispatcher
	gateSent                    // written at slot, sent
	gateUnsent                  // never sent: the run stopped first
)

// Gate is one worker's hand-off to the dispatcher, or to the worker's own
// wait for its slot: the operation's slot and send time, set just before
// the request is written, published by state.
type Gate struct {
	d *dispatcher // nil: the worker's own gate (own)
	// own is the worker's own wait for its slots, when d is nil.
	own   *ownGate
	w     int // the worker's index
	state atomic.Int32
	// Set by Hand, used by whoever writes the request.
	write     func() error
	interrupt func()
	// Set before write, read by the worker once state is gateSent: the
	// slot, when the write was due (the slot's time less the write lead)
	// and when it began.
	slot      slot
	due, sent time.Time
	// measuring is the writer's (the dispatcher or the worker): the
	// worker's first measured operation has been sent.
	measuring bool
}

// Armed reports whether the operation in progress may still hand its
// request: true until Hand is called.
func (g *Gate) Armed() bool { return g.state.Load() == gateArmed }

// Hand gives the operation's request to be sent at its slot's instant:
// write sends it and is called once, at that instant (the send time is
// taken just before it); interrupt ends the task's wait for the reply at
// once and is called instead of write when a handed request is never
// sent (a failed write ends that wait itself). With a dispatcher, Hand
// returns at once and write is called on the dispatcher's goroutine; with
// the worker's own gate, Hand waits for the worker's next slot and calls
// write itself before it returns. False: the request will never be sent
// (the run is stopping), and the task returns ErrNotSent without waiting.
func (g *Gate) Hand(write func() error, interrupt func()) bool {
	if !g.state.CompareAndSwap(gateArmed, gateHanded) {
		return false
	}
	g.write, g.interrupt = write, interrupt
	if g.d == nil {
		return g.own.hand(g)
	}
	return g.d.hand(g)
}

// ownGate is a gated worker's own wait for its slots (every open-loop
// pacing but PacingDispatch): its waiter, and the run's stop.
type ownGate struct {
	e    *engine
	wt   *waiter
	stop <-chan struct{}
}

// hand claims the worker's next slot, waits for its time and writes g's
// request there; a slot dropped past the drop bound is counted and the
// request takes the next one. False when the schedule is over or the run
// stops first: the request is never sent.
func (o *ownGate) hand(g *Gate) bool {
	w := o.e.workers[g.w]
	for {
		early := o.e.wlead.early()
		s, ok := o.wt.claimAndWait(o.e.sched, o.stop, func(s slot) {
			if s.dropped > 0 {
				w.drop(s.dropped, s.dropLag)
			}
		}, early)
		if !ok {
			g.state.Store(gateUnsent)
			return false
		}
		if o.e.send(g, s, s.at.Add(-early)) {
			return true
		}
	}
}

// dispatcher sends the handed requests of the gated workers at their
// slots' instants. It claims the next slot when a worker's request is
// ready, waits on its one waiter until the slot is due, and then sends
// every ready request whose slot is due by then, claiming slot after slot,
// before it waits again. A claimed slot with no request ready at its time
// is handed back to the schedule, so slots wait unclaimed while every
// worker is in flight, as they do for workers that claim their own.
type dispatcher struct {
	e  *engine
	wt *waiter
	// stop closes on a stop (Ctrl-C).
	stop     chan struct{}
	kick     chan struct{} // a request was handed to a dispatcher waiting for one
	haltOnce sync.Once
	// sleeps counts the waits for a slot not yet due: the dispatcher's
	// timer wake-ups.
	sleeps int64

	mu      sync.Mutex
	ready   []*Gate // handed, in order
	waiting bool    // the dispatcher waits for a request (kick wakes it)
	closed  bool
}

func newDispatcher(e *engine, wt *waiter) *dispatcher {
	return &dispatcher{e: e, wt: wt, stop: make(chan struct{}), kick: make(chan struct{}, 1)}
}

func (d *dispatcher) hand(g *Gate) bool {
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			g.state.Store(gateUnsent)
			return false
		}
		if !d.waiting {
			d.ready = append(d.ready, g)
			d.mu.Unlock()
			return true
		}
		// The dispatcher waits for a request and holds no slot, so the
		// next slot is this request's: due already (every worker was in
		// flight at its time), it is sent here, with no wake-up of the
		// dispatcher; else the dispatcher is woken to wait for it. Slots
		// are claimed and handed back under mu; the write is not (a
		// thread descheduled in its write would hold back every other
		// request).
		s, ok := d.e.sched.claim(time.Now())
		if s.dropped > 0 {
			d.e.workers[0].drop(s.dropped, s.dropLag)
		}
		if !ok {
			d.mu.Unlock()
			g.state.Store(gateUnsent)
			return false
		}
		due := s.at.Add(-d.e.wlead.early())
		if due.After(time.Now()) {
			d.e.sched.unclaim(s)
			d.ready = append(d.ready, g)
			d.waiting = false
			d.mu.Unlock()
			select {
			case d.kick <- struct{}{}:
			default:
			}
			return true
		}
		d.mu.Unlock()
		if d.e.send(g, s, due) {
			return true
		}
		// Dropped past the drop bound: the request takes the next slot.
	}
}

// pop takes the first ready request; nil when there is none, and the
// dispatcher, holding no slot, is then marked waiting for one (Hand then
// takes the next slot itself) until pop takes one again.
func (d *dispatcher) pop() *Gate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.ready) == 0 {
		d.waiting = true
		return nil
	}
	d.waiting = false
	g := d.ready[0]
	copy(d.ready, d.ready[1:])
	d.ready[len(d.ready)-1] = nil
	d.ready = d.ready[:len(d.ready)-1]
	return g
}

// popOrRelease is pop for the due slot s: with no request ready, s goes
// back to the schedule, unclaimed (every worker is in flight: the next
// one free takes it, Hand), as the dispatcher is marked waiting.
func (d *dispatcher) popOrRelease(s slot) *Gate {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.ready) == 0 {
		d.e.sched.unclaim(s)
		d.waiting = true
		return nil
	}
	g := d.ready[0]
	copy(d.ready, d.ready[1:])
	d.ready[len(d.ready)-1] = nil
	d.ready = d.ready[:len(d.ready)-1]
	return g
}

// pushFront puts back a request the dispatcher took but did not send.
func (d *dispatcher) pushFront(g *Gate) {
	d.mu.Lock()
	d.ready = append(d.ready, nil)
	copy(d.ready[1:], d.ready)
	d.ready[0] = g
	d.mu.Unlock()
}

// withdraw takes back a handed request its task stopped waiting for.
func (d *dispatcher) withdraw(g *Gate) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, r := range d.ready {
		if r == g {
			d.ready = append(d.ready[:i], d.ready[i+1:]...)
			return
		}
	}
}

// close refuses every later request and ends the wait of every request
// handed and not sent: none of them is ever sent.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	ready := d.ready
	d.ready = nil
	d.mu.Unlock()
	for _, g := range ready {
		g.state.Store(gateUnsent)
		g.interrupt()
	}
}

// awaitReady waits until a request is ready; false on a stop.
func (d *dispatcher) awaitReady() (*Gate, bool) {
	for {
		if g := d.pop(); g != nil {
			return g, true
		}
		select {
		case <-d.kick:
		case <-d.stop:
			return nil, false
		}
	}
}

// run is the dispatcher's loop, until the schedule is over or a stop.
func (d *dispatcher) run() {
	defer d.close()
	drops := d.e.workers[0]
	for {
		g, ok := d.awaitReady()
		if !ok {
			return
		}
		d.pushFront(g)
		s, ok := d.e.sched.claim(time.Now())
		if s.dropped > 0 {
			drops.drop(s.dropped, s.dropLag)
		}
		if !ok {
			return
		}
		// Wait for the slot unless it is due, send it, claim the next:
		// every ready request whose slot is due goes out on one wake-up.
		for {
			due := s.at.Add(-d.e.wlead.early())
			if due.After(time.Now()) {
				d.sleeps++
				if !d.wt.until(due, d.stop) {
					return
				}
			}
			g := d.popOrRelease(s)
			if g == nil {
				break
			}
			if !d.e.send(g, s, due) {
				d.pushFront(g) // its slot was dropped: it takes the next
			}
			s, ok = d.e.sched.claim(time.Now())
			if s.dropped > 0 {
				drops.drop(s.dropped, s.dropLag)
			}
			if !ok {
				return
			}
		}
	}
}

// send writes g's request for slot s, now; false when s is later than the
// drop bound by then (dropped, counted, and g's request kept for the next
// slot). due is when its write was due: the slot's time less the write
// lead it was waited for with; the send lag runs from there.
func (e *engine) send(g *Gate, s slot, due time.Time) bool {
	w := e.workers[g.w]
	sent := time.Now()
	if s.measured {
		lag := max(sent.Sub(due), 0)
		if lag > e.cfg.DropAfter {
			w.drop(1, lag)
			return false
		}
		w.sent1(lag, lag > e.cfg.LateAfter)
		if !g.measuring {
			g.measuring = true
			if at := e.cfg.AtWorkerMeasured; at != nil {
				at(g.w)
			}
		}
	}
	e.enter()
	g.slot, g.due, g.sent = s, due, sent
	g.state.Store(gateSent)
	_ = g.write() // a failed write ends the task's wait itself; the task reports it
	return true
}

// halt stops the dispatcher: it sends nothing more.
func (d *dispatcher) halt() {
	d.haltOnce.Do(func() {
		close(d.stop)
		d.wt.wake()
	})
}
