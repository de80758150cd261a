package significance

import (
	"fmt"
	"math"
	"sort"
)

// Correction says how the p-values of the metrics judged together (one
// table) are adjusted for their number: judged one by one at 0.05, a
// table of a dozen metrics would call one of them real in about a third
// of all A/A comparisons.
type Correction string

const (
	// BH is the Benjamini–Hochberg step-up procedure: it bounds the
	// expected share of false differences among those called real (the
	// false discovery rate) by alpha, and, when no metric differs at all
	// (A/A), the chance of calling any real. It keeps the power to see a
	// change that moves several metrics at once, as a real change does.
	BH Correction = "bh"
	// Holm is the Holm–Bonferroni step-down procedure: it bounds the
	// chance of calling any metric real by mistake (the family-wise error
	// rate) by alpha, under any dependence between the metrics, at the
	// price of more runs.
	Holm Correction = "holm"
	// None judges every metric on its own p-value.
	None Correction = "none"
)

// DefaultCorrection is the correction of a comparison's table.
const DefaultCorrection = BH

// ParseCorrection reads a correction's name.
func ParseCorrection(s string) (Correction, error) {
	switch c := Correction(s); c {
	case BH, Holm, None:
		return c, nil
	}
	return "", fmt.Errorf("%q is not a correction: want bh (Benjamini–Hochberg), holm (Holm–Bonferroni) or none", s)
}

// Describe names the correction as a legend says it.
func (c Correction) Describe() string {
	switch c {
	case Holm:
		return "Holm–Bonferroni (family-wise error rate)"
	case None:
		return "no correction for the number of metrics"
	}
	return "Benjamini–Hochberg (false discovery rate)"
}

// Adjust is the p-values adjusted for being judged together, in their
// order, as R's p.adjust gives them ("BH", "holm"; None returns a copy):
// a test is significant at alpha after the correction when its adjusted
// p-value is below alpha. NaNs stay NaN and do not count.
func Adjust(p []float64, c Correction) []float64 {
	out := make([]float64, len(p))
	var idx []int
	for i, v := range p {
		out[i] = v
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	m := float64(len(idx))
	if c == None || len(idx) < 2 {
		return out
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	switch c {
	case Holm:
		// The k-th smallest (from 0) times m − k, never below an earlier one.
		run := 0.0
		for k, i := range idx {
			run = math.Max(run, math.Min(1, (m-float64(k))*p[i]))
			out[i] = run
		}
	default:
		// The k-th smallest (from 1) times m / k, never above a later one.
		run := 1.0
		for k := len(idx) - 1; k >= 0; k-- {
			i := idx[k]
			run = math.Min(run, m/float64(k+1)*p[i])
			out[i] = run
		}
	}
	return out
}

// Correct adjusts, for their number, the p-values of every comparison
// in the tables judged together (the rows with a p-value: refusals and
// missing sides do not count) and judges each again on its adjusted
// p-value.
func Correct(c Correction, tables ...[]Row) {
	var rows []*Row
	var ps []float64
	for _, t := range tables {
		for i := range t {
			if r := &t[i]; r.Verdict != TooFew && r.Verdict != Missing {
				rows = append(rows, r)
				ps = append(ps, r.Test.P)
			}
		}
	}
	for i, p := range Adjust(ps, c) {
		rows[i].P = p
		rows[i].Verdict = rows[i].judge.verdict(rows[i].Comparison)
	}
}
