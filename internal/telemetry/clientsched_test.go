package telemetry

import (
	"runtime"
	"testing"
	"time"
)

// Between two readings around a busy loop, this process ran for at least
// part of the loop; a thread that ended is not counted negative.
func TestSchedBetween(t *testing.T) {
	before := ReadSched()
	if before == nil {
		t.Fatal("no /proc/self/task/*/schedstat on this Linux host")
	}
	end := time.Now().Add(50 * time.Millisecond)
	x := 0
	for time.Now().Before(end) {
		x++
	}
	runtime.KeepAlive(x)
	after := ReadSched()
	ran, _, ok := SchedBetween(before, after)
	if !ok || ran < 10*time.Millisecond {
		t.Errorf("ran %v (ok %v) over a 50 ms busy loop, want at least 10 ms", ran, ok)
	}
	b := Sched{1: {RunningNanoseconds: 100, WaitingNanoseconds: 50}, 2: {RunningNanoseconds: 10}}
	a := Sched{1: {RunningNanoseconds: 300, WaitingNanoseconds: 80}, 3: {RunningNanoseconds: 5, WaitingNanoseconds: 1}}
	if ran, waited, ok := SchedBetween(b, a); !ok || ran != 205 || waited != 31 {
		t.Errorf("ran %v waited %v, want 205ns and 31ns", ran, waited)
	}
	if _, _, ok := SchedBetween(nil, a); ok {
		t.Error("a missing reading must say so")
	}
}
