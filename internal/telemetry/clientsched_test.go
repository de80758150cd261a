package telemetry

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// testProcessCPU is this process's CPU time (user and system), as getrusage
// counts it.
func testProcessCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Between two readings around a busy loop, this process's threads ran for
// about the CPU time getrusage counts over the same loop; a thread that
// ended is not counted negative. The loop runs until it has used 40 ms of
// CPU, however long a busy host makes that take, so the figures compared
// are both CPU time.
func TestSchedBetween(t *testing.T) {
	before := ReadSched()
	if before == nil {
		t.Fatal("no /proc/self/task/*/schedstat on this Linux host")
	}
	cpu0 := testProcessCPU(t)
	x := 0
	for deadline := time.Now().Add(30 * time.Second); testProcessCPU(t)-cpu0 < 40*time.Millisecond && time.Now().Before(deadline); {
		x++
	}
	runtime.KeepAlive(x)
	used := testProcessCPU(t) - cpu0
	after := ReadSched()
	ran, _, ok := SchedBetween(before, after)
	if !ok || ran < used/2 {
		t.Errorf("ran %v (ok %v) over a busy loop that used %v of CPU by getrusage, want at least half of it", ran, ok, used)
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
