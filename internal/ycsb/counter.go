package ycsb

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Counter is YCSB's CounterGenerator: start, start+1, … shared by all
// workers and safe for concurrent use. The load phase takes its keys from
// a Counter at insertstart.
type Counter struct{ n atomic.Int64 }

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.n.Store(start)
	return c
}

// Next returns the next value.
func (c *Counter) Next() int64 { return c.n.Add(1) - 1 }

// Last returns the value Next returned last (start-1 before the first).
func (c *Counter) Last() int64 { return c.n.Load() - 1 }

// ackWindow is YCSB's WINDOW_SIZE: at most this many keys may be handed
// out and not yet acknowledged.
const ackWindow = 1 << 20

// ErrAckWindowFull reports more than 2^20 unacknowledged insert keys.
var ErrAckWindowFull = errors.New("ycsb: too many unacknowledged insertion keys")

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator, the run
// phase's insert key sequence: Next hands out keys, and Last is the
// highest key below which every key has been acknowledged, so readers
// never choose a key whose insert has not completed. It is safe for
// concurrent use.
type AcknowledgedCounter struct {
	Counter
	limit  atomic.Int64
	window [ackWindow / 64]atomic.Uint64
	mu     sync.Mutex
}

// NewAcknowledgedCounter returns a counter whose first value is start and
// whose Last is start-1 until start is acknowledged.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	c := &AcknowledgedCounter{}
	c.n.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Last returns the highest contiguously acknowledged value.
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v, a value from Next, as done (inserted or failed)
// and moves Last over any contiguous run it completes.
func (c *AcknowledgedCounter) Acknowledge(v int64) error {
	w, bit := slot(v)
	if c.window[w].Or(bit)&bit != 0 {
		return ErrAckWindowFull
	}
	// YCSB moves the limit only when it wins tryLock; a value set while
	// another goroutine holds the lock could then wait for the next
	// acknowledgement. Re-checking after unlock moves it at once.
	for c.mu.TryLock() {
		c.advance()
		c.mu.Unlock()
		if !c.isSet(c.limit.Load() + 1) {
			return nil
		}
	}
	return nil
}

// advance moves the limit over set slots, clearing them; the caller
// holds mu.
func (c *AcknowledgedCounter) advance() {
	lim := c.limit.Load()
	for range ackWindow {
		if !c.isSet(lim + 1) {
			break
		}
		w, bit := slot(lim + 1)
		c.window[w].And(^bit)
		lim++
	}
	c.limit.Store(lim)
}

func (c *AcknowledgedCounter) isSet(v int64) bool {
	w, bit := slot(v)
	return c.window[w].Load()&bit != 0
}

func slot(v int64) (word int, bit uint64) {
	s := v & (ackWindow - 1)
	return int(s >> 6), 1 << (s & 63)
}
