//go:build !linux

package engine

import "time"

// sleepUntil sleeps until at on a Go timer: where there is no
// clock_nanosleep, the precise pacings are as precise as the runtime's
// timers.
func sleepUntil(at time.Time) { time.Sleep(time.Until(at)) }

// timerFD is a Go timer where there is no timerfd.
type timerFD struct{}

func newTimerFD() (*timerFD, error) { return &timerFD{}, nil }

func (*timerFD) sleepUntil(at time.Time) { time.Sleep(time.Until(at)) }

func (*timerFD) close() error { return nil }
