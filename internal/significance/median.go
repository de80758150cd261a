package significance

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Median is the middle value of x (the mean of the two middle values for
// an even count); NaN for no values.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	sort.Float64s(s)
	return sortedMedian(s)
}

func sortedMedian(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Interval is a confidence interval and the confidence it has.
type Interval struct {
	Lo, Hi float64
	// Confidence is the interval's actual coverage, which for a median's
	// interval from few values can be below the level asked for.
	Confidence float64
}

// MedianCI is the distribution-free confidence interval of the median:
// the order statistics x(k) and x(n+1−k) with the largest k whose
// coverage, 1 − 2·P(Binomial(n, ½) < k), is at least level. With too few
// values for that level it is the range of the values, with the
// coverage it has (5 values: 93.75%).
func MedianCI(x []float64, level float64) Interval {
	n := len(x)
	if n == 0 {
		return Interval{Lo: math.NaN(), Hi: math.NaN()}
	}
	s := slices.Clone(x)
	sort.Float64s(s)
	best, coverage := 1, binomialCoverage(n, 1)
	for k := 2; k <= (n+1)/2; k++ {
		c := binomialCoverage(n, k)
		if c < level {
			break
		}
		best, coverage = k, c
	}
	return Interval{Lo: s[best-1], Hi: s[n-best], Confidence: coverage}
}

// binomialCoverage is 1 − 2·P(Binomial(n, ½) ≤ k−1): how often the
// median lies between the k-th smallest and the k-th largest of n values.
func binomialCoverage(n, k int) float64 {
	tail := 0.0
	for i := range k {
		tail += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Max(0, 1-2*tail)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// DefaultResamples is how many bootstrap resamples RatioCI draws.
const DefaultResamples = 2000

// RatioCI is a percentile bootstrap interval, at the given level, of
// median(y) / median(x): each side resampled with replacement
// (resamples times), from a generator seeded with seed, so the same
// values and seed give the same interval. A ratio with a zero median
// below it is left out; with none left the interval is NaN.
func RatioCI(x, y []float64, level float64, resamples int, seed uint64) Interval {
	if len(x) == 0 || len(y) == 0 || resamples <= 0 {
		return Interval{Lo: math.NaN(), Hi: math.NaN()}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d6f6e676f62656e)) // "mongoben"
	bx, by := make([]float64, len(x)), make([]float64, len(y))
	ratios := make([]float64, 0, resamples)
	for range resamples {
		for i := range bx {
			bx[i] = x[rng.IntN(len(x))]
		}
		for i := range by {
			by[i] = y[rng.IntN(len(y))]
		}
		sort.Float64s(bx)
		sort.Float64s(by)
		if d := sortedMedian(bx); d != 0 {
			ratios = append(ratios, sortedMedian(by)/d)
		}
	}
	if len(ratios) == 0 {
		return Interval{Lo: math.NaN(), Hi: math.NaN()}
	}
	sort.Float64s(ratios)
	alpha := (1 - level) / 2
	return Interval{Lo: quantile(ratios, alpha), Hi: quantile(ratios, 1-alpha), Confidence: level}
}

// quantile of sorted values, linearly interpolated between order
// statistics (type 7, R's default).
func quantile(s []float64, p float64) float64 {
	h := p * float64(len(s)-1)
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-lo)*(s[i+1]-s[i])
}
