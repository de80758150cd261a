package engine

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// monoBase pairs a reading of the Go clock with CLOCK_MONOTONIC, the
// clock it reads, so deadlines convert without a clock call per sleep.
// The pairing is the tightest of several tries: a thread preempted
// between the readings would pair them tens of microseconds apart, and
// every deadline of the process would be off by half of that.
var monoBase = sync.OnceValues(func() (time.Time, int64) {
	var (
		best  time.Time
		mono  int64 = -1
		width time.Duration
	)
	for range 32 {
		var ts unix.Timespec
		before := time.Now()
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
			return before, -1
		}
		after := time.Now()
		if w := after.Sub(before); mono < 0 || w < width {
			best, mono, width = before.Add(w/2), ts.Nano(), w
		}
	}
	return best, mono
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

// timerFD waits on a timerfd through Go's netpoller: the goroutine parks
// and holds no thread, and epoll wakes as the fd fires, at the
// kernel's high-resolution timer's precision, not epoll_wait's
// millisecond timeout.
type timerFD struct {
	f  *os.File
	rc syscall.RawConn
	fd int
}

func newTimerFD() (*timerFD, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close() // unusable either way
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	return &timerFD{f: f, rc: rc, fd: fd}, nil
}

// arm sets the timer to fire at at; false when it cannot (the caller
// then waits some other way).
func (t *timerFD) arm(at time.Time) bool {
	base, mono := monoBase()
	ns := mono + int64(at.Sub(base))
	if mono < 0 || ns <= 0 {
		return false
	}
	return t.settime(unix.TFD_TIMER_ABSTIME, unix.NsecToTimespec(ns))
}

// settime arms the timer. It is a raw system call: timerfd_settime never
// blocks, and a raw call skips the runtime's system-call bookkeeping,
// which wakes the runtime's monitor thread (sysmon) when the process was
// idle: a context switch or more per operation at a few thousand
// operations a second.
func (t *timerFD) settime(flags int, v unix.Timespec) bool {
	spec := unix.ItimerSpec{Value: v}
	_, _, errno := unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(t.fd), uintptr(flags),
		uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	return errno == 0
}

// fire makes the timer expire now, ending a wait in progress.
func (t *timerFD) fire() {
	_ = t.settime(0, unix.Timespec{Nsec: 1}) // best effort: a stop also closes the schedule
}

// wait parks until the armed timer fires (a past deadline fires at once).
func (t *timerFD) wait() {
	var buf [8]byte
	// A raw read (see settime) until the timer has fired; the netpoller
	// parks the goroutine while the read would block. The first read
	// cannot be skipped: the poller's wait forgets a readiness that came
	// before it (prepareRead resets it), so a timer that fired in between
	// would never wake it. An error (a closed fd) ends the wait all the
	// same.
	_ = t.rc.Read(func(fd uintptr) bool {
		_, _, errno := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
		return errno != unix.EAGAIN
	})
}

func (t *timerFD) close() error { return t.f.Close() }

// SleepUntil is the precise sleep the open-loop pacers use, for the noise
// canary to measure how late this host wakes a paced operation.
func SleepUntil(at time.Time) { sleepUntil(at) }
