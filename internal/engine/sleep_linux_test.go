package engine

import (
	"testing"
	"time"
)

// TestSleepUntilNeverWakesEarly: the precise sleep converts Go clock
// deadlines to CLOCK_MONOTONIC through monoBase's pairing; a pairing off
// by more than its own width would wake every sleep early (or late) by
// that much. On any machine, however busy, a sleep returns at or after
// its deadline as the Go clock reads it, within the pairing's width.
func TestSleepUntilNeverWakesEarly(t *testing.T) {
	base, mono := monoBase()
	if mono < 0 {
		t.Fatalf("no CLOCK_MONOTONIC pairing (base %v)", base)
	}
	for i := range 200 {
		at := time.Now().Add(50 * time.Microsecond)
		sleepUntil(at)
		if early := time.Until(at); early > time.Microsecond {
			t.Fatalf("sleep %d woke %v before its deadline", i, early)
		}
	}
	tfd, err := newTimerFD()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tfd.close() }()
	for i := range 200 {
		at := time.Now().Add(50 * time.Microsecond)
		if !tfd.arm(at) {
			t.Fatal("timerfd refused an absolute deadline")
		}
		tfd.wait()
		if early := time.Until(at); early > time.Microsecond {
			t.Fatalf("timerfd wait %d woke %v before its deadline", i, early)
		}
	}
}
