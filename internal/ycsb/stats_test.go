package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"
)

// z999 is the standard normal quantile of 0.999.
const z999 = 3.090232306167813

// chiSquareCritical returns the 0.999 quantile of the chi-square
// distribution with df degrees of freedom, by Wilson–Hilferty:
// df·(1 − 2/(9df) + z·√(2/(9df)))³.
func chiSquareCritical(df int) float64 {
	k := float64(df)
	a := 2 / (9 * k)
	return k * math.Pow(1-a+z999*math.Sqrt(a), 3)
}

// chiSquare returns the statistic and degrees of freedom of observed
// counts against expected probabilities (in the same bins, summing to at
// most 1; the missing mass belongs to the tail). Bins whose expected count
// is below 5 are pooled, together with the missing mass, into one tail bin.
func chiSquare(observed []int64, probs []float64, n int64) (stat float64, df int) {
	var tailObs int64
	var tailExp, sumP float64
	bins := 0
	for i, p := range probs {
		sumP += p
		e := p * float64(n)
		if e < 5 {
			tailObs += observed[i]
			tailExp += e
			continue
		}
		d := float64(observed[i]) - e
		stat += d * d / e
		bins++
	}
	tailExp += (1 - sumP) * float64(n)
	if tailExp >= 5 {
		d := float64(tailObs) - tailExp
		stat += d * d / tailExp
		bins++
	}
	return stat, bins - 1
}

// draw counts n draws of g over [0, items).
func draw(t *testing.T, g Generator, items int, n int64, seed uint64) []int64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	counts := make([]int64, items)
	for range n {
		v := g.Next(r)
		if v < 0 || v >= int64(items) {
			t.Fatalf("value %d outside [0, %d)", v, items)
		}
		counts[v]++
	}
	return counts
}

// binomialTolerance returns 5 standard deviations of the observed
// fraction of n Bernoulli(p) trials.
func binomialTolerance(p float64, n int64) float64 {
	return 5 * math.Sqrt(p*(1-p)/float64(n))
}
