package engine

import (
	"slices"
	"strings"
	"sync"
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
	// PacingSleep: one worker at a time claims the next slot and waits for
	// it, the last stretch (under coarseWait) on the OS's nanosecond clock
	// with no timer slack (clock_nanosleep to an absolute deadline on
	// Linux), then sends on the thread that woke. The other free workers
	// queue behind it, so the claim order is the send order and only one
	// thread sleeps at a time.
	PacingSleep Pacing = "sleep"
	// PacingSpin is PacingSleep waking spinFor early and spinning to the
	// deadline: a few microseconds more precise for spinFor of CPU per
	// operation.
	PacingSpin Pacing = "spin"
)

var pacings = map[Pacing]bool{PacingTimer: true, PacingSleep: true, PacingSpin: true}

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
	// coarseWait: a wait longer than this sleeps on a Go timer (which
	// watches for a stop) until coarseWait before the deadline.
	coarseWait = 2 * time.Millisecond
	// spinFor is how early PacingSpin wakes to spin.
	spinFor = 20 * time.Microsecond
)

// waiter waits for slots' times in one of the Pacing ways.
type waiter struct {
	pacing Pacing
	turn   sync.Mutex // PacingSleep, PacingSpin: the one worker waiting
}

// claimAndWait claims the next slot of sched and waits until its time. It
// returns false when the schedule is over or stop closes first. drops is
// called with every claim's drops.
func (wt *waiter) claimAndWait(sched claimer, timer *time.Timer, stop <-chan struct{}, drops func(slot)) (slot, bool) {
	if wt.pacing == PacingTimer {
		s, ok := sched.claim(time.Now())
		drops(s)
		return s, ok && waitUntil(timer, s.at, stop)
	}
	wt.turn.Lock()
	defer wt.turn.Unlock()
	s, ok := sched.claim(time.Now())
	drops(s)
	if !ok {
		return s, false
	}
	if d := time.Until(s.at); d > coarseWait && !waitUntil(timer, s.at.Add(-coarseWait), stop) {
		return s, false
	}
	select {
	case <-stop:
		return s, false
	default:
	}
	if wt.pacing == PacingSpin {
		sleepUntil(s.at.Add(-spinFor))
		for time.Now().Before(s.at) { //nolint:revive // a deliberate, bounded spin
		}
		return s, true
	}
	sleepUntil(s.at)
	return s, true
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
