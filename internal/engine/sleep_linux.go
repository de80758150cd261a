package engine

import (
	"fmt"
	"os"
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

// timerFD waits on a timerfd through Go's netpoller: the goroutine parks
// and holds no thread, and epoll wakes as the fd fires, at the
// kernel's high-resolution timer's precision, not epoll_wait's
// millisecond timeout.
type timerFD struct {
	f  *os.File
	fd int
}

func newTimerFD() (*timerFD, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("timerfd: %w", err)
	}
	return &timerFD{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}, nil
}

// sleepUntil parks until at; a failed timerfd falls back to a Go timer.
func (t *timerFD) sleepUntil(at time.Time) {
	base, mono := monoBase()
	ns := mono + int64(at.Sub(base))
	if mono < 0 || ns <= 0 {
		time.Sleep(time.Until(at))
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(ns)}
	if err := unix.TimerfdSettime(t.fd, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
		time.Sleep(time.Until(at))
		return
	}
	var buf [8]byte
	if _, err := t.f.Read(buf[:]); err != nil {
		time.Sleep(time.Until(at))
	}
}

func (t *timerFD) close() error { return t.f.Close() }
