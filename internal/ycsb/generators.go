package ycsb

import (
	"math/rand/v2"
	"sync/atomic"
)

// A Generator draws the next number from a worker's random source.
type Generator interface {
	Next(r *rand.Rand) int64
}

// Clone returns g for another worker: a copy when g keeps per-worker
// state, g itself when it is immutable or shared by design.
func Clone(g Generator) Generator {
	if c, ok := g.(interface{ Clone() Generator }); ok {
		return c.Clone()
	}
	return g
}

// Uniform is YCSB's UniformLongGenerator: every value in [Lo, Hi] equally
// likely.
type Uniform struct{ Lo, Hi int64 }

// Next returns a value in [Lo, Hi].
func (u Uniform) Next(r *rand.Rand) int64 { return u.Lo + r.Int64N(u.Hi-u.Lo+1) }

// Constant is YCSB's ConstantIntegerGenerator.
type Constant struct{ N int64 }

// Next returns N.
func (c Constant) Next(*rand.Rand) int64 { return c.N }

// Sequential is YCSB's SequentialGenerator: lo, lo+1, …, hi, lo, … shared
// by all workers and safe for concurrent use.
type Sequential struct {
	start, interval int64
	n               atomic.Int64
}

// NewSequential returns a sequence over [lo, hi].
func NewSequential(lo, hi int64) *Sequential {
	return &Sequential{start: lo, interval: hi - lo + 1}
}

// Next returns the next value of the sequence.
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.start + (s.n.Add(1)-1)%s.interval
}

// Last returns the value the sequence returned last, or lo-1 before the
// first. (YCSB's lastValue returns its raw counter plus one, which no
// caller uses.)
func (s *Sequential) Last() int64 {
	n := s.n.Load()
	if n == 0 {
		return s.start - 1
	}
	return s.start + (n-1)%s.interval
}

// Hotspot is YCSB's HotspotIntegerGenerator: a fraction hotOpn of draws
// fall uniformly in the hot set, the first hotSet fraction of [lo, hi];
// the rest fall uniformly in the cold set after it. It is immutable.
type Hotspot struct {
	lo, hot, cold int64
	hotOpn        float64
}

// NewHotspot returns a hotspot over [lo, hi]. Fractions outside [0, 1]
// become 0 and reversed bounds are swapped, as in YCSB.
func NewHotspot(lo, hi int64, hotSet, hotOpn float64) Hotspot {
	if hotSet < 0 || hotSet > 1 {
		hotSet = 0
	}
	if hotOpn < 0 || hotOpn > 1 {
		hotOpn = 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	interval := hi - lo + 1
	hot := int64(float64(interval) * hotSet)
	return Hotspot{lo: lo, hot: hot, cold: interval - hot, hotOpn: hotOpn}
}

// Next returns a value in [lo, hi].
func (h Hotspot) Next(r *rand.Rand) int64 {
	if (r.Float64() < h.hotOpn && h.hot > 0) || h.cold == 0 {
		return h.lo + r.Int64N(h.hot)
	}
	return h.lo + h.hot + r.Int64N(h.cold)
}
