//go:build !linux

package engine

import (
	"errors"
	"time"
)

// sleepUntil sleeps until at on a Go timer: where there is no
// clock_nanosleep, the precise pacings are as precise as the runtime's
// timers.
func sleepUntil(at time.Time) { time.Sleep(time.Until(at)) }

// timerFD does not exist where there is no timerfd: a waiter that asks
// for one falls back to Go timers.
type timerFD struct{}

func newTimerFD() (*timerFD, error) { return nil, errors.New("timerfd: not on this system") }

func (*timerFD) arm(time.Time) bool { return false }

func (*timerFD) fire() {}

func (*timerFD) wait() {}

func (*timerFD) close() error { return nil }

// SleepUntil is the precise sleep the open-loop pacers use, for the noise
// canary to measure how late this host wakes a paced operation.
func SleepUntil(at time.Time) { sleepUntil(at) }
