package engine

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// monoBase pairs a reading of the Go clock with CLOCK_MONOTONIC, the
// clock it reads, so deadlines convert without a clock call per sleep.
var monoBase = sync.OnceValues(func() (time.Time, int64) {
	var ts unix.Timespec
	before := time.Now()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return before, -1
	}
	after := time.Now()
	return before.Add(after.Sub(before) / 2), ts.Nano()
})

// sleepUntil blocks the calling thread until at on CLOCK_MONOTONIC with
// an absolute deadline (an interrupted sleep resumes to the same
// deadline) and no timer slack, so it wakes within microseconds instead
// of the 50µs slack a thread has by default. It is for short waits: the
// thread holds its P while it sleeps.
func sleepUntil(at time.Time) {
	base, mono := monoBase()
	if mono < 0 {
		time.Sleep(time.Until(at))
		return
	}
	// The slack is a property of the thread, and a goroutine may run on
	// any thread: set it every time (a raw syscall, well under a µs).
	_, _, _ = unix.RawSyscall(unix.SYS_PRCTL, unix.PR_SET_TIMERSLACK, 1, 0)
	ts := unix.NsecToTimespec(mono + int64(at.Sub(base)))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}
