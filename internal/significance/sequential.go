package significance

import (
	"fmt"
	"math"
)

// Sequential plans an interleaved comparison: the two sides run
// alternately (A B A B …) and are compared at planned looks, each a
// number of runs a side from MinRuns up to MaxRuns, every look about
// √2 times the one before. Each look judges its metrics at Alpha divided
// by the number of looks (Bonferroni across looks), so the chance of any
// false verdict over all the looks together stays at most Alpha, however
// early it stops: a plain test repeated after every run would not.
// Within a run, intervals are not independent samples (a slow minute
// slows its neighbours), so the run stays the unit: each run gives one
// value per metric.
type Sequential struct {
	Alpha            float64
	MinRuns, MaxRuns int
}

// MaxLooks bounds the looks a plan takes.
const MaxLooks = 12

// Check says what is wrong with the plan, naming the flag.
func (s Sequential) Check() error {
	switch {
	case !(s.Alpha > 0 && s.Alpha < 1):
		return fmt.Errorf("--alpha: %g is not a level between 0 and 1, such as 0.05", s.Alpha)
	case s.MinRuns < 2:
		return fmt.Errorf("--min-runs: %d: want at least 2 runs a side", s.MinRuns)
	case s.MaxRuns < s.MinRuns:
		return fmt.Errorf("--max-runs: %d is below --min-runs %d", s.MaxRuns, s.MinRuns)
	case s.MaxRuns > 1000:
		return fmt.Errorf("--max-runs: %d: want at most 1000 runs a side", s.MaxRuns)
	}
	return nil
}

// Looks are the runs a side at which the sides are compared, ascending,
// the last MaxRuns.
func (s Sequential) Looks() []int {
	var out []int
	for i := 0; ; i++ {
		k := int(math.Round(float64(s.MinRuns) * math.Pow(2, float64(i)/2)))
		if k >= s.MaxRuns || len(out) == MaxLooks-1 {
			break
		}
		if len(out) == 0 || k > out[len(out)-1] {
			out = append(out, k)
		}
	}
	return append(out, s.MaxRuns)
}

// LookAlpha is the level each look judges at.
func (s Sequential) LookAlpha() float64 { return s.Alpha / float64(len(s.Looks())) }

// Decided says whether a compared metric needs no more runs: its
// difference is significant (better, worse or small), or it is shown to
// be smaller than its minimum effect (the ratio interval of medians lies
// within 1 ± the minimum effect: no change that matters). A metric
// judged by an absolute minimum (the error rate, MinAbs) is shown small
// when both sides' median intervals lie within one band of that width:
// no two medians inside them differ by more.
func (r Row) Decided() bool {
	switch r.Verdict {
	case Better, Worse, Small:
		return true
	case Noise:
		if a := r.judge.MinAbs; a > 0 {
			lo, hi := math.Min(r.Base.CI.Lo, r.Other.CI.Lo), math.Max(r.Base.CI.Hi, r.Other.CI.Hi)
			return !math.IsNaN(lo) && !math.IsNaN(hi) && hi-lo <= a
		}
		e := r.judge.MinEffect
		return e > 0 && !math.IsNaN(r.Ratio.Lo) && r.Ratio.Lo >= 1-e && r.Ratio.Hi <= 1+e
	}
	return false
}
