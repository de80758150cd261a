package engine

import (
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Share is one client's part of a run group's load: client Index (from 0)
// of Clients. The group's clients together do exactly what one client
// would: in open loop client I takes the schedule's slots I, I+N, I+2N, …
// (so the union of the clients' schedules is the one schedule, whatever
// the pacer), in closed loop a contiguous part of the workers, and of an
// operation count a contiguous part. The zero Share (or one of one
// client) is the whole run.
type Share struct {
	Clients, Index int
}

// Grouped reports whether the share is a part of a group of more than one
// client.
func (s Share) Grouped() bool { return s.Clients > 1 }

// Check reports a share whose index is outside its group.
func (s Share) Check() error {
	if s.Clients < 0 || s.Clients > 0 && (s.Index < 0 || s.Index >= s.Clients) {
		return fmt.Errorf("client %d of %d: want a client index from 0 to clients-1", s.Index, s.Clients)
	}
	return nil
}

// First is where this client's contiguous part of n things begins:
// floor(n·I/N).
func (s Share) First(n int64) int64 {
	if !s.Grouped() {
		return 0
	}
	return mulDiv(n, int64(s.Index), int64(s.Clients))
}

// Part is how many of n things are this client's: floor(n·(I+1)/N) −
// floor(n·I/N). The parts of all clients add up to n exactly.
func (s Share) Part(n int64) int64 {
	if !s.Grouped() {
		return n
	}
	return mulDiv(n, int64(s.Index)+1, int64(s.Clients)) - s.First(n)
}

// mulDiv is floor(n·k/d) for n, k >= 0 and d > 0, without overflow.
func mulDiv(n, k, d int64) int64 {
	hi, lo := bits.Mul64(uint64(n), uint64(k))
	q, _ := bits.Div64(hi, lo, uint64(d)) // hi < d: k <= d
	return int64(q)
}

// sharePacer is one client's slots of a group's schedule: its slot m is
// the group's slot m·N + I.
type sharePacer struct {
	inner    Pacer
	clients  int64
	index    int64
	maxIndex int64 // the largest m whose group slot does not overflow
}

var _ Pacer = (*sharePacer)(nil)

func newSharePacer(p Pacer, s Share) *sharePacer {
	n, i := int64(s.Clients), int64(s.Index)
	return &sharePacer{inner: p, clients: n, index: i, maxIndex: (math.MaxInt64 - i) / n}
}

// At is the intended start of the group's slot m·N + I.
func (p *sharePacer) At(m int64) time.Duration {
	if m > p.maxIndex {
		return maxOffset
	}
	return p.inner.At(m*p.clients + p.index)
}

// String names the group's pacer and this client's slots.
func (p *sharePacer) String() string {
	return fmt.Sprintf("%s%s%dn+%d)", p.inner.String(), ShareSuffix, p.clients, p.index)
}

// ShareSuffix begins the part of a client's pacer name that says which of
// the group's slots it took: "constant 3000/s (slots 3n+1)". What comes
// before it names the group's pacer.
const ShareSuffix = " (slots "

// shareEnd is one past the last slot of a client's schedule when the
// group's measured phase is bounded to count operations: the group's
// measured slots are [F, F+count), F the first slot due at or after the
// warm-up's end, and the client's slot m is the group's m·N + I.
func (p *sharePacer) shareEnd(warmup time.Duration, count int64) int64 {
	first := firstAtOrAfter(p.inner, 0, warmup)
	if first > math.MaxInt64-count {
		return math.MaxInt64
	}
	end := first + count // the group's slots end here
	if end <= p.index {
		return 0
	}
	return (end - p.index + p.clients - 1) / p.clients
}
