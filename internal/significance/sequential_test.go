package significance

import (
	"math"
	"slices"
	"testing"
)

func TestSequentialLooks(t *testing.T) {
	s := Sequential{Alpha: 0.05, MinRuns: 5, MaxRuns: 40}
	if got, want := s.Looks(), []int{5, 7, 10, 14, 20, 28, 40}; !slices.Equal(got, want) {
		t.Errorf("looks %v, want %v", got, want)
	}
	if got := s.LookAlpha(); math.Abs(got-0.05/7) > 1e-15 {
		t.Errorf("look alpha %v, want 0.05/7", got)
	}
	if got := (Sequential{Alpha: 0.05, MinRuns: 5, MaxRuns: 5}).Looks(); !slices.Equal(got, []int{5}) {
		t.Errorf("one look: %v", got)
	}
	if got := (Sequential{Alpha: 0.05, MinRuns: 2, MaxRuns: 1000}).Looks(); len(got) > MaxLooks || got[len(got)-1] != 1000 {
		t.Errorf("looks %v: want at most %d, the last 1000", got, MaxLooks)
	}
	for _, bad := range []Sequential{{Alpha: 0, MinRuns: 5, MaxRuns: 9}, {Alpha: 0.05, MinRuns: 1, MaxRuns: 9}, {Alpha: 0.05, MinRuns: 9, MaxRuns: 5}, {Alpha: 0.05, MinRuns: 5, MaxRuns: 5000}} {
		if bad.Check() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestRowDecided(t *testing.T) {
	j := Judge{MinEffect: 0.1}
	for _, tc := range []struct {
		c    Comparison
		want bool
	}{
		{Comparison{Verdict: Worse}, true},
		{Comparison{Verdict: Small}, true},
		{Comparison{Verdict: Noise, Ratio: Interval{Lo: 0.95, Hi: 1.04}}, true},
		{Comparison{Verdict: Noise, Ratio: Interval{Lo: 0.85, Hi: 1.04}}, false},
		{Comparison{Verdict: TooFew}, false},
	} {
		if got := (Row{Comparison: tc.c, judge: j}).Decided(); got != tc.want {
			t.Errorf("%+v: decided %v, want %v", tc.c, got, tc.want)
		}
	}
	// The error rate (judged by an absolute minimum of 0.1 points): none
	// on either side is decided; intervals wider than the band are not.
	e := Judge{MinAbs: ErrorsMinAbs}
	none := Side{N: 5, CI: Interval{}}
	for _, tc := range []struct {
		base, other Side
		want        bool
	}{
		{none, none, true},
		{none, Side{N: 5, Median: 0.05, CI: Interval{Lo: 0, Hi: 0.08}}, true},
		{none, Side{N: 5, Median: 0.1, CI: Interval{Lo: 0, Hi: 0.3}}, false},
		{none, Side{Median: math.NaN(), CI: Interval{Lo: math.NaN(), Hi: math.NaN()}}, false},
	} {
		c := Comparison{Verdict: Noise, Base: tc.base, Other: tc.other}
		if got := (Row{Comparison: c, judge: e}).Decided(); got != tc.want {
			t.Errorf("errors %+v against %+v: decided %v, want %v", tc.other, tc.base, got, tc.want)
		}
	}
}
