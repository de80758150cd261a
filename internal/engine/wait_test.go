package engine

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The spin's lead settles at the 80th percentile of the wake-ups'
// lateness, within its bound, and at nothing when wake-ups are on time.
func TestWakeLeadLearnsThe80thPercentile(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	late := func() time.Duration { return time.Duration(r.Int64N(int64(100 * time.Microsecond))) } // uniform 0–100 µs
	l := newWakeLead(time.Millisecond)
	if got := l.early(); got != leadStart {
		t.Fatalf("lead at the start %v: want %v", got, leadStart)
	}
	// Over the second half, one wake-up in five is later than the lead
	// it met, and the lead averages about 80 µs.
	var beyond, n int
	var sum time.Duration
	for i := range 20000 {
		x := late()
		if i >= 10000 {
			n++
			sum += l.early()
			if x > l.early() {
				beyond++
			}
		}
		l.learn(x)
	}
	if share := float64(beyond) / float64(n); share < 0.17 || share > 0.23 {
		t.Errorf("%.3f of the wake-ups later than the lead: want about 0.2", share)
	}
	if mean := sum / time.Duration(n); mean < 75*time.Microsecond || mean > 85*time.Microsecond {
		t.Errorf("mean lead %v over wake-ups uniform over 0–100 µs: want about 80 µs", mean)
	}
	capped := newWakeLead(60 * time.Microsecond)
	for range 20000 {
		capped.learn(late())
		if got := capped.early(); got > 60*time.Microsecond {
			t.Fatalf("lead %v with a 60 µs bound: want at most the bound", got)
		}
	}
	if got := capped.early(); got < 55*time.Microsecond {
		t.Errorf("lead %v with a 60 µs bound below the 80th percentile: want about the bound", got)
	}
	onTime := newWakeLead(time.Millisecond)
	for range 1000 {
		onTime.learn(0)
	}
	if got := onTime.early(); got != 0 {
		t.Errorf("lead %v after wake-ups on time: want 0", got)
	}
	if got := newWakeLead(10 * time.Microsecond).early(); got != 10*time.Microsecond {
		t.Errorf("lead %v at the start with a 10 µs bound: want the bound", got)
	}
}
