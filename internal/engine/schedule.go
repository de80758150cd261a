package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// slot is one operation's place in the run.
type slot struct {
	at       time.Time // intended start (open loop) or actual start (closed loop)
	measured bool
}

// A claimer hands out the next operation to a free worker, or says the run
// is over. stop ends the run and returns how many measured operations
// were due by then but never handed out.
type claimer interface {
	claim(now time.Time) (slot, bool)
	stop(now time.Time) int64
}

// openSchedule hands out pacer slots in order. Any free worker takes the
// next slot, so a stalled worker never holds the schedule back.
type openSchedule struct {
	mu       sync.Mutex
	pacer    Pacer
	start    time.Time
	warmup   time.Duration
	end      time.Duration // 0: no time bound
	count    int64         // 0: no count bound
	measured int64
	done     bool
}

func (s *openSchedule) claim(time.Time) (slot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return slot{}, false
	}
	off := s.pacer.Next()
	if s.end > 0 && off >= s.end {
		s.done = true
		return slot{}, false
	}
	measured := off >= s.warmup
	if measured {
		s.measured++
		if s.count > 0 && s.measured >= s.count {
			s.done = true // this slot is the last one
		}
	}
	return slot{at: s.start.Add(off), measured: measured}, true
}

// stop ends the schedule. Slots already due that no worker claimed (all
// of them busy, e.g. in a server stall) are counted, never skipped.
func (s *openSchedule) stop(now time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due int64
	for !s.done {
		off := s.pacer.Next()
		if off > now.Sub(s.start) || (s.end > 0 && off >= s.end) {
			break
		}
		if off >= s.warmup {
			due++
			s.measured++
			if s.count > 0 && s.measured >= s.count {
				break
			}
		}
	}
	s.done = true
	return due
}

// closedSchedule lets every worker go again as soon as it is free, until
// the measured phase's time or count runs out.
type closedSchedule struct {
	warmEnd time.Time
	end     time.Time // zero: no time bound
	count   int64
	claimed atomic.Int64
	done    atomic.Bool
}

func (s *closedSchedule) claim(now time.Time) (slot, bool) {
	if s.done.Load() {
		return slot{}, false
	}
	if !s.end.IsZero() && !now.Before(s.end) {
		s.done.Store(true)
		return slot{}, false
	}
	measured := !now.Before(s.warmEnd)
	if measured && s.count > 0 && s.claimed.Add(1) > s.count {
		s.done.Store(true)
		return slot{}, false
	}
	return slot{at: now, measured: measured}, true
}

func (s *closedSchedule) stop(time.Time) int64 {
	s.done.Store(true)
	return 0
}
