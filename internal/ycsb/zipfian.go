package ycsb

import (
	"math"
	"math/rand/v2"
)

// ZipfianConstant is YCSB's ZIPFIAN_CONSTANT, the skew θ of every zipfian
// distribution of the core workload.
const ZipfianConstant = 0.99

// The scrambled zipfian draws from a zipfian over ScrambledItemCount items
// (YCSB 0.17's ITEM_COUNT) whose zeta YCSB precomputes as ScrambledZetan.
const (
	ScrambledItemCount = 10_000_000_000
	ScrambledZetan     = 26.46902820178302
)

// Zeta returns ζ(n, θ) = Σ_{i=1..n} 1/i^θ, summed in YCSB's order.
func Zeta(n int64, theta float64) float64 {
	return zetaFrom(0, n, theta, 0)
}

// zetaFrom extends sum, the zeta of st items, to n items.
func zetaFrom(st, n int64, theta, sum float64) float64 {
	for i := st; i < n; i++ {
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum
}

// Zipfian is YCSB's ZipfianGenerator: the algorithm of Gray et al.,
// "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD 1994).
// It returns values in [min, max], min the most popular, min+1 the next,
// and so on. NextN draws over a grown item count, extending zeta
// incrementally as YCSB does. A Zipfian belongs to one worker.
type Zipfian struct {
	base, items  int64
	theta, alpha float64
	zetan, eta   float64
	zeta2theta   float64
	halfPowTheta float64
	countForZeta int64
	last         int64
}

// NewZipfian returns a zipfian over [min, max] with θ = ZipfianConstant.
// It computes zeta over max-min+1 items, which takes time for large
// ranges (about a second per 50 million items).
func NewZipfian(min, max int64) *Zipfian {
	return NewZipfianZeta(min, max, ZipfianConstant, Zeta(max-min+1, ZipfianConstant))
}

// NewZipfianZeta returns a zipfian over [min, max] with skew theta and the
// precomputed zeta zetan of its max-min+1 items.
func NewZipfianZeta(min, max int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{
		base:         min,
		items:        max - min + 1,
		theta:        theta,
		alpha:        1 / (1 - theta),
		zetan:        zetan,
		zeta2theta:   Zeta(2, theta),
		halfPowTheta: math.Pow(0.5, theta),
	}
	z.countForZeta = z.items
	z.eta = z.computeEta()
	return z
}

// computeEta uses the constructor's item count, not the current one, even
// after zeta grows: YCSB does the same, and this keeps its numbers.
func (z *Zipfian) computeEta() float64 {
	return (1 - math.Pow(2/float64(z.items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
}

// Next returns the next value over the constructor's item count.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.items) }

// NextN returns the next value over itemCount items starting at min. When
// itemCount has grown since the last zeta, zeta extends incrementally; a
// smaller itemCount keeps the larger zeta, as YCSB does by default.
func (z *Zipfian) NextN(r *rand.Rand, itemCount int64) int64 {
	if itemCount > z.countForZeta {
		z.zetan = zetaFrom(z.countForZeta, itemCount, z.theta, z.zetan)
		z.countForZeta = itemCount
		z.eta = z.computeEta()
	}
	u := r.Float64()
	uz := u * z.zetan
	switch {
	case uz < 1:
		z.last = z.base
	case uz < 1+z.halfPowTheta:
		z.last = z.base + 1
	default:
		z.last = z.base + int64(float64(itemCount)*math.Pow(z.eta*u-z.eta+1, z.alpha))
	}
	return z.last
}

// Last returns the value Next or NextN returned last.
func (z *Zipfian) Last() int64 { return z.last }

// Zetan returns the zeta the generator currently uses.
func (z *Zipfian) Zetan() float64 { return z.zetan }

// Clone returns an independent copy for another worker.
func (z *Zipfian) Clone() Generator { c := *z; return &c }

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: a zipfian over
// ScrambledItemCount+1 items with the precomputed ScrambledZetan, whose
// value is hashed with FNVHash64 and taken modulo the item count, so the
// popular items scatter over [min, max]. A ScrambledZipfian belongs to one
// worker.
type ScrambledZipfian struct {
	z              *Zipfian
	min, itemCount int64
	last           int64
}

// NewScrambledZipfian returns a scrambled zipfian over [min, max].
func NewScrambledZipfian(min, max int64) *ScrambledZipfian {
	return &ScrambledZipfian{
		z:         NewZipfianZeta(0, ScrambledItemCount, ZipfianConstant, ScrambledZetan),
		min:       min,
		itemCount: max - min + 1,
	}
}

// Next returns the next value in [min, max].
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	s.last = s.min + FNVHash64(s.z.Next(r))%s.itemCount
	return s.last
}

// Last returns the value Next returned last.
func (s *ScrambledZipfian) Last() int64 { return s.last }

// Clone returns an independent copy for another worker.
func (s *ScrambledZipfian) Clone() Generator {
	c := *s
	c.z = s.z.Clone().(*Zipfian)
	return &c
}

// SkewedLatest is YCSB's SkewedLatestGenerator: with max the basis
// counter's Last, it returns max - zipfian(max), so the newest keys are
// the most popular and the distribution follows the counter as it grows.
// A SkewedLatest belongs to one worker; its basis is shared.
type SkewedLatest struct {
	basis interface{ Last() int64 }
	z     *Zipfian
	last  int64
}

// NewSkewedLatest returns a latest distribution over basis, whose Last is
// the newest key. Its zipfian starts with basis.Last() items, as YCSB's.
func NewSkewedLatest(basis interface{ Last() int64 }) *SkewedLatest {
	return &SkewedLatest{basis: basis, z: NewZipfian(0, max(basis.Last(), 1)-1)}
}

// Next returns the next value in [0, basis.Last()].
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	m := s.basis.Last()
	if m < 1 {
		s.last = m // an empty or one-key space: YCSB's zipfian is undefined here
		return m
	}
	s.last = m - s.z.NextN(r, m)
	return s.last
}

// Last returns the value Next returned last.
func (s *SkewedLatest) Last() int64 { return s.last }

// Clone returns an independent copy for another worker, on the same basis.
func (s *SkewedLatest) Clone() Generator {
	c := *s
	c.z = s.z.Clone().(*Zipfian)
	return &c
}
