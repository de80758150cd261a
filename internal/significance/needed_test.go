package significance

import (
	"math"
	"testing"
)

func TestSpread(t *testing.T) {
	base := []float64{98, 100, 102, 99, 101}
	other := []float64{108, 110, 112, 109, 111}
	// Deviations 2,0,2,1,1 on each side: median 1, ×1.4826 over 100.
	if got := Spread(base, other); math.Abs(got-0.014826) > 1e-9 {
		t.Errorf("spread %v, want 0.014826", got)
	}
	if !math.IsNaN(Spread([]float64{1}, other)) || !math.IsNaN(Spread([]float64{0, 0}, other)) {
		t.Error("one run or a zero median must give no spread")
	}
}

func TestNeeded(t *testing.T) {
	for _, tc := range []struct {
		spread, effect, alpha float64
		metrics, want         int
	}{
		// Spread 5%, effect 10%, α 0.05 over 12 metrics: α′ 0.00417,
		// z 2.865 + 0.842; 2·13.74·0.25/0.955 = 7.2 → 8.
		{0.05, 0.10, 0.05, 12, 8},
		// A spread of 1% is below what the exact test needs: 6 a side
		// reach 0.0022 < 0.00417.
		{0.01, 0.10, 0.05, 12, 6},
		// One metric alone, α 0.05, spread 10%, effect 10%: 2·7.85/0.955 = 16.4.
		{0.10, 0.10, 0.05, 1, 17},
		{math.NaN(), 0.10, 0.05, 12, 0},
		{0.05, 0, 0.05, 12, 0},
	} {
		if got := Needed(tc.spread, tc.effect, tc.alpha, tc.metrics); got != tc.want {
			t.Errorf("Needed(%v, %v, %v, %d) = %d, want %d", tc.spread, tc.effect, tc.alpha, tc.metrics, got, tc.want)
		}
	}
}

func TestUndecided(t *testing.T) {
	m, err := ParseMetric("p99 READ")
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{
		{Metric: m, Comparison: Comparison{Verdict: Noise}, Spread: 0.05, Needed: 8, judge: Judge{MinEffect: 0.1}},
		{Metric: m, Comparison: Comparison{Verdict: Worse}, judge: Judge{MinEffect: 0.1}},
	}
	want := "runs a side to decide what is undecided, at α 0.05 over 2 metrics with 80% power: p99 READ about 8 (a 10% change, spread 5.0%)"
	if got := Undecided(rows, Settings{}); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := Undecided(rows[1:], Settings{}); got != "" {
		t.Errorf("every metric decided: %q, want nothing", got)
	}
}
