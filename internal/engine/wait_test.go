package engine

import (
	"testing"
	"time"
)

// TestEarlyMarginFollowsWakeUps: the spin's margin starts at its bound,
// falls while wake-ups come sooner than it, never below zero, and
// climbs back, never past its bound, when they come later.
func TestEarlyMarginFollowsWakeUps(t *testing.T) {
	wt := &waiter{pacing: PacingSpin, spin: 20 * time.Microsecond, margin: -1}
	if got := wt.early(); got != wt.spin {
		t.Fatalf("first margin: got %v want the bound %v", got, wt.spin)
	}
	for range 10_000 {
		wt.woke(2 * time.Microsecond)
	}
	// The margin climbs 99 steps past a late wake-up and falls one step
	// at a time: it stays between the delay and the delay plus 99 steps.
	if got := wt.early(); got < 2*time.Microsecond || got > 2*time.Microsecond+99*earlyStep {
		t.Errorf("after prompt wake-ups of 2µs: margin %v, want from 2µs to %v", got, 2*time.Microsecond+99*earlyStep)
	}
	for range 10_000 {
		wt.woke(0)
	}
	if got := wt.early(); got != 0 {
		t.Errorf("after wake-ups on time: margin %v, want 0", got)
	}
	for range 10_000 {
		wt.woke(time.Millisecond)
	}
	if got := wt.early(); got != wt.spin {
		t.Errorf("after late wake-ups: margin %v, want the bound %v", got, wt.spin)
	}
}
