package engine

import (
	"fmt"
	"math"
	"time"
)

// Poisson paces operations as a Poisson process of the given mean rate:
// independent, exponentially distributed gaps, the first operation at 0.
// It is seeded and pure: operation n's start depends only on the seed and
// n, whatever was asked before, and costs O(log n) to compute, so the
// schedule can jump over any number of due operations.
//
// The construction is top-down. The arrivals fall in blocks of 64; a
// block's length is the sum of its 64 gaps. The length of 2^k consecutive
// blocks is Gamma(64·2^k)-distributed, and, given it, the share of the
// first half is Beta(64·2^(k−1), 64·2^(k−1)): splitting halves from the top
// with randomness drawn from each node's own seeded stream gives the
// exact joint law of the gaps, and reaches any block in blockLevels steps.
// Within a block, 64 exponential gaps scaled to the block's length give
// the arrivals.
type Poisson struct {
	Rate float64
	Seed uint64
	// the last block computed: its index and its arrivals' offsets, in
	// seconds
	block int64
	valid bool
	offs  [blockSize]float64
}

const (
	blockShift  = 6
	blockSize   = 1 << blockShift
	blockLevels = 40 // a super-block holds 2^40 blocks, 2^46 arrivals
)

var _ Pacer = (*Poisson)(nil)

// NewPoisson returns a Poisson pacer of mean rate operations per second.
func NewPoisson(rate float64, seed uint64) *Poisson { return &Poisson{Rate: rate, Seed: seed} }

// At returns the intended start of operation n.
func (p *Poisson) At(n int64) time.Duration {
	if b := n >> blockShift; !p.valid || b != p.block {
		p.fill(b)
	}
	return offset(p.offs[n&(blockSize-1)] / p.Rate)
}

func (p *Poisson) String() string { return fmt.Sprintf("poisson %g/s seed %d", p.Rate, p.Seed) }

// Streams of randomness, one per node of the construction.
const (
	streamSuper = iota + 1
	streamSplit
	streamBlock
)

// fill computes the arrivals of block b, in units of mean gaps.
func (p *Poisson) fill(b int64) {
	super := b >> blockLevels
	within := b & (1<<blockLevels - 1)
	superArrivals := float64(int64(blockSize) << blockLevels)
	var start float64
	for k := range super {
		start += newStream(p.Seed, streamSuper, 0, k).gamma(superArrivals)
	}
	size := newStream(p.Seed, streamSuper, 0, super).gamma(superArrivals)
	for level := blockLevels - 1; level >= 0; level-- {
		half := int64(1) << level // blocks in each half of this node
		node := (super << (blockLevels - level)) | within>>(level+1)
		a := float64(half * blockSize)
		s := newStream(p.Seed, streamSplit, level, node)
		x, y := s.gamma(a), s.gamma(a)
		left := size * x / (x + y)
		if within&half != 0 {
			start += left
			size -= left
		} else {
			size = left
		}
	}
	s := newStream(p.Seed, streamBlock, 0, b)
	var gaps [blockSize]float64
	var total float64
	for i := range gaps {
		gaps[i] = s.exp()
		total += gaps[i]
	}
	var sum float64
	for i := range gaps {
		p.offs[i] = start + size*sum/total
		sum += gaps[i]
	}
	p.block, p.valid = b, true
}

// stream is a small seeded generator (splitmix64) for one node.
type stream struct{ x uint64 }

func newStream(seed uint64, kind, level int, index int64) *stream {
	s := &stream{x: seed}
	s.x = s.next() ^ uint64(kind)<<56 ^ uint64(level)<<48 ^ uint64(index)
	s.next()
	return s
}

func (s *stream) next() uint64 {
	s.x += 0x9e3779b97f4a7c15
	z := s.x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform is in (0, 1).
func (s *stream) uniform() float64 { return (float64(s.next()>>11) + 0.5) / (1 << 53) }

func (s *stream) exp() float64 { return -math.Log(s.uniform()) }

func (s *stream) normal() float64 {
	return math.Sqrt(-2*math.Log(s.uniform())) * math.Cos(2*math.Pi*s.uniform())
}

// gamma draws from Gamma(a, 1), a >= 1: Marsaglia and Tsang's method, whose
// proposal d·(1+c·x)³ (Wilson–Hilferty) is taken as is for shapes so large
// that the rejection step can no longer tell it from the exact law.
func (s *stream) gamma(a float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := s.normal()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		if a >= 1<<16 {
			return d * v
		}
		if u := s.uniform(); math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
