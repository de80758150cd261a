package engine

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// slot is one operation's place in the run.
type slot struct {
	at       time.Time // intended start (open loop) or actual start (closed loop)
	measured bool
	// n is the slot's number in the pacer's schedule (open loop).
	n int64
	// dropped counts the measured slots the claim dropped before this one
	// (later than the drop bound); dropLag is the lag of the oldest of them.
	dropped int64
	dropLag time.Duration
}

// A claimer hands out the next operation to a free worker, or says the run
// is over. stop ends the run and returns how many measured operations
// were due by then but never handed out; abandoned is how many measured
// operations the schedule gave up on when the phase's time ran out.
// skipped is how many warm-up slots were never sent. unclaim hands back
// the slot last claimed, unsent, so the next claim hands it out again
// (or counts it, as any unclaimed slot, at a stop); false when another
// claim came in between.
type claimer interface {
	claim(now time.Time) (slot, bool)
	unclaim(s slot) bool
	stop(now time.Time) int64
	abandoned() int64
	skipped() int64
}

// openSchedule hands out pacer slots in order. Any free worker takes the
// next slot, so a stalled worker never holds the schedule back. Every
// claim costs O(log k) calls of the pacer for the k slots it skips or
// drops, never one step per slot, so no rate can make a claim run away.
type openSchedule struct {
	mu        sync.Mutex
	pacer     Pacer
	start     time.Time
	warmup    time.Duration
	end       time.Duration // 0: no time bound
	drain     time.Duration // how long past end the backlog is still sent
	dropAfter time.Duration
	next      int64 // the next slot to hand out
	first     int64 // the first measured slot
	last      int64 // one past the last slot of the run
	done      bool
	unsent    int64 // measured slots left when the phase's time ran out
	warmSkip  int64 // warm-up slots dropped or left when the phase began
}

func newOpenSchedule(cfg *Config, start time.Time) *openSchedule {
	s := &openSchedule{pacer: cfg.Pacer, start: start, warmup: cfg.Warmup, drain: cfg.Drain, dropAfter: cfg.DropAfter}
	s.first = firstAtOrAfter(s.pacer, 0, cfg.Warmup)
	s.last = math.MaxInt64
	if cfg.Duration > 0 {
		s.end = cfg.Warmup + cfg.Duration
		s.last = firstAtOrAfter(s.pacer, s.first, s.end)
	}
	if sp, ok := s.pacer.(*sharePacer); ok && cfg.Count > 0 {
		s.last = min(s.last, sp.shareEnd(cfg.Warmup, cfg.Count))
	} else if cfg.Count > 0 && s.first <= math.MaxInt64-cfg.Count {
		s.last = min(s.last, s.first+cfg.Count)
	}
	return s
}

// firstAtOrAfter is the first slot n >= from due at or after t: an
// exponential probe, then a bisection, so O(log(n − from)) calls of At.
func firstAtOrAfter(p Pacer, from int64, t time.Duration) int64 {
	if from == math.MaxInt64 || p.At(from) >= t {
		return from
	}
	lo, step := from, int64(1) // At(lo) < t
	hi := from + step
	for p.At(hi) < t {
		lo = hi
		if step > (math.MaxInt64-from)/2 {
			if p.At(math.MaxInt64) < t {
				return math.MaxInt64
			}
			hi = math.MaxInt64
			break
		}
		step *= 2
		hi = from + step
	}
	for hi-lo > 1 { // At(lo) < t <= At(hi)
		mid := lo + (hi-lo)/2
		if p.At(mid) < t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func (s *openSchedule) claim(now time.Time) (slot, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sl slot
	if s.done {
		return sl, false
	}
	t := now.Sub(s.start)
	if t >= s.warmup && s.next < s.first {
		// The measured phase has begun: the warm-up's backlog is not sent.
		s.warmSkip += s.first - s.next
		s.next = s.first
	}
	if s.next < s.last && t-s.dropAfter > s.pacer.At(s.next) {
		// Every slot later than the drop bound is dropped at once.
		d := min(firstAtOrAfter(s.pacer, s.next, t-s.dropAfter), s.last)
		if from := max(s.next, s.first); d > from {
			sl.dropped, sl.dropLag = d-from, t-s.pacer.At(from)
		}
		s.warmSkip += max(0, min(d, s.first)-s.next)
		s.next = d
	}
	if s.next >= s.last {
		s.done = true
		return sl, false
	}
	if s.end > 0 && t >= s.end+s.drain {
		// The phase's time and its drain have run out: what is left of
		// the backlog is counted, not sent.
		s.unsent += s.last - max(s.next, s.first)
		s.next, s.done = s.last, true
		return sl, false
	}
	sl.at, sl.measured, sl.n = s.start.Add(s.pacer.At(s.next)), s.next >= s.first, s.next
	s.next++
	return sl, true
}

func (s *openSchedule) unclaim(sl slot) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done || sl.n != s.next-1 {
		return false
	}
	s.next = sl.n
	return true
}

// stop ends the schedule. Measured slots already due that no worker
// claimed (all of them busy, e.g. in a server stall) are counted, never
// skipped.
func (s *openSchedule) stop(now time.Time) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return 0
	}
	s.done = true
	from := max(s.next, s.first)
	if from >= s.last {
		return 0
	}
	due := min(firstAtOrAfter(s.pacer, from, now.Sub(s.start)+1), s.last)
	return due - from
}

func (s *openSchedule) abandoned() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unsent
}

func (s *openSchedule) skipped() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.warmSkip
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

func (s *closedSchedule) unclaim(slot) bool { return false }
func (s *closedSchedule) abandoned() int64  { return 0 }
func (s *closedSchedule) skipped() int64    { return 0 }
