package engine

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// A GatedTask builds each operation's first request before the operation's
// time and hands it to the run's dispatcher through its worker's Gate,
// which sends it at the slot's instant: in open loop the request path at
// that instant is only the write, and one wake-up of the dispatcher sends
// every operation then due, where a worker waiting for its own slot pays a
// timer wake-up of its own per operation.
//
// Tasks are gated when the run's pacing is PacingDispatch. The engine
// calls Do before the operation's slot is claimed. Do builds
// the request, hands it (Gate.Hand) and waits for its reply; every later
// request of the operation (a retry, a getMore) it sends itself. UseGate
// is called once, before the run, in open loop only; a task that returns
// false (one that measures parts of its operations, whose send times it
// takes itself) is run as a plain Task.
type GatedTask interface {
	Task
	UseGate(*Gate) bool
}

// ErrNotSent is what a gated operation whose request the dispatcher never
// sent (the run stopped first) returns: nothing reached the server.
var ErrNotSent = errors.New("request not sent: the run stopped before its time")

// errNotHanded is the failure of a gated operation that returned without
// a failure of its own and without handing its request: the engine cannot
// say when it was sent.
var errNotHanded = errors.New("a gated task completed an operation without handing its request to the dispatcher")

// Gate states, from the worker's arming of an operation to its outcome.
const (
	gateArmed  int32 = iota + 1 // Do may hand its first request
	gateHanded                  // handed, waiting for the dispatcher
	gateSent                    // written at slot, sent
	gateUnsent                  // never sent: the run stopped first
)

// Gate is one worker's hand-off to the dispatcher: the operation's slot
// and send time, set by the dispatcher just before it writes the request,
// published by state.
type Gate struct {
	d     *dispatcher
	w     int // the worker's index
	state atomic.Int32
	// Set by Hand, used by the dispatcher.
	write     func() error
	interrupt func()
	// Set by the dispatcher before write, read by the worker once state
	// is gateSent.
	slot slot
	sent time.Time
	// measuring is the dispatcher's: the worker's first measured
	// operation has been sent.
	measuring bool
}

// Armed reports whether the operation in progress may still hand its
// request: true until Hand is called.
func (g *Gate) Armed() bool { return g.state.Load() == gateArmed }

// Hand gives the dispatcher the operation's request: write sends it and is
// called once, on the dispatcher's goroutine, at the slot's instant (the
// send time is taken just before it); interrupt ends the task's wait for
// the reply at once and is called instead of write when the request is
// never sent (a failed write ends that wait itself). Hand returns at
// once, false when the request will never be sent (the run is stopping):
// the task then returns ErrNotSent without waiting.
func (g *Gate) Hand(write func() error, interrupt func()) bool {
	if !g.state.CompareAndSwap(gateArmed, gateHanded) {
		return false
	}
	g.write, g.interrupt = write, interrupt
	return g.d.hand(g)
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
		if s.at.After(time.Now()) {
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
		if d.send(g, s) {
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
			if s.at.After(time.Now()) {
				d.sleeps++
				if !d.wt.until(s.at, d.stop) {
					return
				}
			}
			g := d.popOrRelease(s)
			if g == nil {
				break
			}
			if !d.send(g, s) {
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
// slot).
func (d *dispatcher) send(g *Gate, s slot) bool {
	e := d.e
	w := e.workers[g.w]
	sent := time.Now()
	if s.measured {
		lag := sent.Sub(s.at)
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
	g.slot, g.sent = s, sent
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
