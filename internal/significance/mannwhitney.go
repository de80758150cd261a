package significance

import (
	"math"
	"sort"
)

// Method names how a Mann–Whitney p-value was computed.
type Method string

const (
	// Exact is the exact distribution of U: both samples smaller than
	// ExactBelow and no ties (R's wilcox.test default).
	Exact Method = "exact"
	// Normal is the normal approximation with the tie correction of the
	// variance and a continuity correction of 0.5.
	Normal Method = "normal approximation (tie and continuity corrected)"
)

// ExactBelow is the sample size below which, without ties, the exact
// distribution of U is used (R's wilcox.test uses 50).
const ExactBelow = 50

// UTest is a two-sided Mann–Whitney U test's result.
type UTest struct {
	// U is the statistic of the first sample: the number of pairs (x, y)
	// with x > y, ties counting one half (SciPy's U1, R's W).
	U      float64
	P      float64
	Method Method
	Ties   bool
}

// MannWhitney tests whether x and y come from the same distribution,
// two-sided. Both samples must be non-empty; NaNs are not allowed.
func MannWhitney(x, y []float64) UTest { return mannWhitney(x, y, ExactBelow) }

func mannWhitney(x, y []float64, exactBelow int) UTest {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return UTest{U: math.NaN(), P: math.NaN()}
	}
	ranks, tieSum := rank(x, y)
	r1 := 0.0
	for i := range n1 {
		r1 += ranks[i]
	}
	u := r1 - float64(n1*(n1+1))/2
	t := UTest{U: u, Ties: tieSum > 0}
	if !t.Ties && n1 < exactBelow && n2 < exactBelow {
		t.Method = Exact
		t.P = exactP(u, n1, n2)
		return t
	}
	t.Method = Normal
	n := float64(n1 + n2)
	m1, m2 := float64(n1), float64(n2)
	variance := m1 * m2 / 12 * ((n + 1) - tieSum/(n*(n-1)))
	z := u - m1*m2/2
	if variance <= 0 {
		// Every value is the same: no evidence of a difference.
		t.P = 1
		return t
	}
	z = (z - math.Copysign(0.5, z)) / math.Sqrt(variance)
	if u == m1*m2/2 {
		z = 0
	}
	t.P = math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
	return t
}

// rank gives the midranks of x followed by y (1-based), and Σ(t³−t) over
// the groups of tied values.
func rank(x, y []float64) ([]float64, float64) {
	all := make([]float64, 0, len(x)+len(y))
	all = append(all, x...)
	all = append(all, y...)
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return all[idx[a]] < all[idx[b]] })
	ranks := make([]float64, len(all))
	tieSum := 0.0
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && all[idx[j]] == all[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			ranks[idx[k]] = mid
		}
		if t := float64(j - i); t > 1 {
			tieSum += t*t*t - t
		}
		i = j
	}
	return ranks, tieSum
}

// exactP is the two-sided exact p-value of U = u for samples of n1 and n2
// values without ties: 2·min(P(U ≤ u), P(U ≥ u)), at most 1.
func exactP(u float64, n1, n2 int) float64 {
	freq := uCounts(n1, n2)
	total := 0.0
	for _, f := range freq {
		total += f
	}
	k := int(math.Round(u))
	lower, upper := 0.0, 0.0
	for i, f := range freq {
		if i <= k {
			lower += f
		}
		if i >= k {
			upper += f
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}

// uCounts counts, for each value of U, the ways of choosing which n1 of
// the ranks 1…n1+n2 are the first sample's: subsets of n1 ranks by their
// sum, the sum less n1(n1+1)/2 being U.
func uCounts(n1, n2 int) []float64 {
	n := n1 + n2
	maxU := n1 * n2
	// ways[k][s]: subsets of k ranks among those seen so far whose sum
	// less k(k+1)/2 is s.
	ways := make([][]float64, n1+1)
	for k := range ways {
		ways[k] = make([]float64, maxU+1)
	}
	ways[0][0] = 1
	for r := 1; r <= n; r++ {
		for k := min(n1, r); k >= 1; k-- {
			// Adding rank r as the k-th chosen: it adds r − k to U.
			shift := r - k
			if shift > maxU {
				continue
			}
			prev, cur := ways[k-1], ways[k]
			for s := maxU; s >= shift; s-- {
				cur[s] += prev[s-shift]
			}
		}
	}
	return ways[n1]
}

// SmallestP is the smallest two-sided p-value the exact test can give
// for samples of n1 and n2 values: 2 / C(n1+n2, n1).
func SmallestP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	lc, _ := math.Lgamma(float64(n1 + n2 + 1))
	l1, _ := math.Lgamma(float64(n1 + 1))
	l2, _ := math.Lgamma(float64(n2 + 1))
	return math.Min(1, 2/math.Exp(lc-l1-l2))
}

// RunsNeeded is the smallest number of runs on each side with which a
// difference can reach p < alpha.
func RunsNeeded(alpha float64) int {
	for k := 1; k < 1000; k++ {
		if SmallestP(k, k) < alpha {
			return k
		}
	}
	return 1000
}
