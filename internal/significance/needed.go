package significance

import (
	"math"
)

// Power is the chance a comparison of the runs Needed gives finds a
// change of the minimum effect when there is one.
const Power = 0.8

// Spread is the relative spread of a metric's runs: the pooled median
// absolute deviation of both sides around their own medians, scaled to a
// standard deviation (×1.4826) and divided by the base's median. NaN
// when a side has fewer than two runs or the base's median is 0.
func Spread(base, other []float64) float64 {
	if len(base) < 2 || len(other) < 2 {
		return math.NaN()
	}
	mb := Median(base)
	if mb == 0 {
		return math.NaN()
	}
	dev := make([]float64, 0, len(base)+len(other))
	for _, side := range [][]float64{base, other} {
		m := Median(side)
		for _, v := range side {
			dev = append(dev, math.Abs(v-m))
		}
	}
	return 1.4826 * Median(dev) / math.Abs(mb)
}

// Needed is how many runs a side a comparison needs to find a relative
// change of effect with probability Power at significance alpha when it
// is one of metrics judged together (the correction's worst case: a
// single metric moving must pass at alpha/metrics), given the relative
// spread of the runs (Spread). It is the normal approximation for two
// samples, 2·(z₁₋α′/₂ + z_power)²·(spread/effect)², divided by the
// Mann–Whitney test's efficiency against the t-test (3/π), and never
// fewer than the exact test needs to reach alpha′ at all (RunsNeeded).
// 0 when the spread or the effect is not a positive number.
func Needed(spread, effect, alpha float64, metrics int) int {
	if !(spread > 0) || !(effect > 0) || math.IsInf(spread, 0) || alpha <= 0 || alpha >= 1 {
		return 0
	}
	a := alpha / float64(max(metrics, 1))
	z := normalQuantile(1-a/2) + normalQuantile(Power)
	n := 2 * z * z * (spread / effect) * (spread / effect) / (3 / math.Pi)
	return max(int(math.Ceil(n)), RunsNeeded(a))
}

// normalQuantile is the standard normal's quantile function.
func normalQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}
