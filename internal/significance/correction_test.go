package significance

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The reference adjusted p-values are worked by hand from the
// definitions R's p.adjust implements (methods "BH" and "holm"): sorted
// ascending, BH's k-th is min over j ≥ k of m·p(j)/j, Holm's is max over
// j ≤ k of (m − j + 1)·p(j), each at most 1.
func TestAdjustAgainstR(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	cases := []struct {
		c    Correction
		want []float64
	}{
		{BH, []float64{0.02, 0.04, 0.04, 0.02}},
		{Holm, []float64{0.03, 0.06, 0.06, 0.02}},
		{None, p},
	}
	for _, c := range cases {
		got := Adjust(p, c.c)
		for i := range got {
			if !near(got[i], c.want[i], 1e-12) {
				t.Errorf("%s: %v, want %v", c.c, got, c.want)
				break
			}
		}
	}
	// Ten p-values, two of them small.
	p10 := []float64{0.0079, 0.0079, 0.2, 0.5, 0.9, 1, 0.3, 0.03, 0.6, 0.7}
	bh := []float64{0.0395, 0.0395, 0.5, 0.8333333333333334, 1, 1, 0.6, 0.1, 0.8571428571428571, 0.875}
	holm := []float64{0.079, 0.079, 1, 1, 1, 1, 1, 0.24, 1, 1}
	for i, v := range Adjust(p10, BH) {
		if !near(v, bh[i], 1e-12) {
			t.Errorf("BH of ten: [%d] %v, want %v", i, v, bh[i])
		}
	}
	for i, v := range Adjust(p10, Holm) {
		if !near(v, holm[i], 1e-12) {
			t.Errorf("Holm of ten: [%d] %v, want %v", i, v, holm[i])
		}
	}
	// NaNs (refusals) are left out of the count.
	got := Adjust([]float64{0.01, math.NaN(), 0.02}, BH)
	if !near(got[0], 0.02, 1e-12) || !math.IsNaN(got[1]) || !near(got[2], 0.02, 1e-12) {
		t.Errorf("BH with a NaN: %v, want [0.02 NaN 0.02]", got)
	}
	if _, err := ParseCorrection("bonferroni"); err == nil {
		t.Error("bonferroni accepted")
	}
}

// quickRow is a row judged as Judge.Compare judges it, without the
// bootstrap (which the verdict does not read), for simulations of many
// tables.
func quickRow(j Judge, base, other []float64) Row {
	c := Comparison{Base: Side{N: len(base), Median: Median(base)}, Other: Side{N: len(other), Median: Median(other)}}
	c.Diff = c.Other.Median - c.Base.Median
	c.Delta = c.Other.Median/c.Base.Median - 1
	c.Test = MannWhitney(base, other)
	c.P = c.Test.P
	c.Verdict = j.verdict(c)
	return Row{Comparison: c, judge: j}
}

// simTable is a table of m metrics of two sides of n runs each: each
// run's metrics share a run factor (a slow run is slow in every metric)
// with weight rho; the first changed metrics of the other side move by
// shift (relative), the noise being 3% of the value.
func simTable(rng *rand.Rand, m, n, changed int, rho, shift float64, j Judge, c Correction) []Row {
	side := func(s float64, runs []float64) []float64 {
		out := make([]float64, n)
		for r := range out {
			out[r] = 100 * (1 + s) * (1 + 0.03*(rho*runs[r]+math.Sqrt(1-rho*rho)*rng.NormFloat64()))
		}
		return out
	}
	runsA, runsB := make([]float64, n), make([]float64, n)
	for r := range runsA {
		runsA[r], runsB[r] = rng.NormFloat64(), rng.NormFloat64()
	}
	rows := make([]Row, m)
	for k := range rows {
		s := 0.0
		if k < changed {
			s = shift
		}
		rows[k] = quickRow(j, side(0, runsA), side(s, runsB))
	}
	Correct(c, rows)
	return rows
}

func flagged(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Verdict != Noise {
			n++
		}
	}
	return n
}

// TestCorrectionAA: A/A tables of twelve metrics, five runs a side,
// independent and correlated metrics. Judged one by one at 0.05, about a
// third of independent tables call some metric real; with the correction
// about one in twenty or fewer. A real change of 10% in six of the twelve
// metrics is still found with five runs a side by Benjamini–Hochberg,
// not by Holm–Bonferroni (whose smallest adjusted p-value, 12 × 2/252,
// cannot pass 0.05).
func TestCorrectionAA(t *testing.T) {
	const tables, m, n = 2000, 12, 5
	j := Judge{Alpha: 0.05, Better: LowerIsBetter}
	old := Judge{Alpha: 0.01, Better: LowerIsBetter}
	share := func(rho float64, j Judge, c Correction, changed int, shift float64) (anyFlag, found float64) {
		rng := rand.New(rand.NewPCG(7, uint64(rho*100)))
		for range tables {
			rows := simTable(rng, m, n, changed, rho, shift, j, c)
			if flagged(rows) > 0 {
				anyFlag++
			}
			for _, r := range rows[:changed] {
				if r.Verdict == Worse {
					found++
				}
			}
		}
		if changed > 0 {
			found /= float64(tables * changed)
		}
		return anyFlag / tables, found
	}
	for _, rho := range []float64{0, 0.7} {
		none, _ := share(rho, j, None, 0, 0)
		none01, _ := share(rho, old, None, 0, 0)
		bh, _ := share(rho, j, BH, 0, 0)
		holm, _ := share(rho, j, Holm, 0, 0)
		t.Logf("A/A, run correlation %.1f: tables with a false difference: none at 0.05 %.1f%%, none at 0.01 %.1f%%, BH at 0.05 %.1f%%, Holm at 0.05 %.1f%%",
			rho, 100*none, 100*none01, 100*bh, 100*holm)
		if !(bh < none/3) || bh > 0.06 || holm > bh {
			t.Errorf("run correlation %.1f: A/A tables with a false difference: BH %.3f, Holm %.3f, uncorrected %.3f; want BH under a third of uncorrected and at most 0.06",
				rho, bh, holm, none)
		}
		if rho == 0 && (none < 0.25 || none > 0.4) {
			t.Errorf("independent metrics, uncorrected at 0.05: %.3f of A/A tables with a false difference, want about a third (1 − (1 − 8/252)^12 = 0.32)", none)
		}
	}
	_, bhFound := share(0.7, j, BH, 6, 0.10)
	_, holmFound := share(0.7, j, Holm, 6, 0.10)
	t.Logf("10%% worse in 6 of 12 metrics, five runs a side: found by BH %.1f%%, by Holm %.1f%%", 100*bhFound, 100*holmFound)
	if bhFound < 0.8 || holmFound != 0 {
		t.Errorf("a real 10%% change in six metrics: BH found %.3f, Holm %.3f; want BH most of them, Holm none (12 × 2/252 > 0.05)", bhFound, holmFound)
	}
}
