package engine

import (
	"fmt"
	"time"
)

// A Pacer lays out the open-loop schedule: each call to Next returns the
// intended start of the next operation, as an offset from the start of the
// run. Offsets never decrease. The engine calls Next from one goroutine at
// a time.
type Pacer interface {
	Next() time.Duration
	String() string
}

// Constant paces operations at a fixed rate per second. The n-th operation
// is due at n/rate seconds, computed from n rather than accumulated, so the
// schedule does not drift.
type Constant struct {
	Rate float64
	n    int64
}

var _ Pacer = (*Constant)(nil)

// NewConstant returns a pacer of rate operations per second.
func NewConstant(rate float64) *Constant { return &Constant{Rate: rate} }

// Next returns the intended start of the next operation.
func (c *Constant) Next() time.Duration {
	d := time.Duration(float64(c.n) * float64(time.Second) / c.Rate)
	c.n++
	return d
}

func (c *Constant) String() string { return fmt.Sprintf("constant %g/s", c.Rate) }
