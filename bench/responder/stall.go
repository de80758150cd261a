package main

import (
	"fmt"
	"time"
)

// Stalls is the responder's stall schedule, in time since its origin (the
// arrival of the first hot-path request): stall k runs from First+k·Every
// for Length. Zero Length means no stalls.
type Stalls struct {
	Length time.Duration
	Every  time.Duration
	First  time.Duration
}

// Validate rejects a schedule the model cannot serve: a stall as long as
// its period would never end.
func (s Stalls) Validate() error {
	if s.Length == 0 {
		return nil
	}
	switch {
	case s.Length < 0:
		return fmt.Errorf("stall %v: must be positive", s.Length)
	case s.Every <= s.Length:
		return fmt.Errorf("stall %v every %v: the period must be longer than the stall", s.Length, s.Every)
	case s.First < 0:
		return fmt.Errorf("first stall at %v: must not be negative", s.First)
	}
	return nil
}

// In reports whether t falls inside a stall, and that stall's end.
func (s Stalls) In(t time.Duration) (bool, time.Duration) {
	if s.Length == 0 || t < s.First {
		return false, 0
	}
	k := (t - s.First) / s.Every
	start := s.First + k*s.Every
	if t < start+s.Length {
		return true, start + s.Length
	}
	return false, 0
}

// next returns the start of the first stall that begins after t.
func (s Stalls) next(t time.Duration) time.Duration {
	if t < s.First {
		return s.First
	}
	k := (t-s.First)/s.Every + 1
	return s.First + k*s.Every
}

// Reply returns when the reply to a request that arrived at t is due: the
// server is frozen during a stall and otherwise needs d of running time
// after arrival. A request arriving in a stall is answered d after the
// stall ends (so the k-th request due in a stall of S at rate R waits
// S − k/R + d); one whose d straddles a stall's start finishes the rest of
// d after it. No reply is due inside a stall.
func (s Stalls) Reply(t, d time.Duration) time.Duration {
	if s.Length == 0 {
		return t + d
	}
	remain := d
	for {
		if in, end := s.In(t); in {
			t = end
		}
		a := s.next(t)
		if t+remain < a {
			return t + remain
		}
		remain -= a - t
		t = a + s.Length
	}
}
