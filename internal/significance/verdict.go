package significance

import (
	"fmt"
	"math"
)

// Defaults of a comparison.
const (
	// DefaultAlpha: a difference whose p-value, adjusted for the number
	// of metrics judged together (DefaultCorrection), is below it is
	// significant. A comparison judges a dozen metrics at once: without
	// the correction one of them would look real in about a third of all
	// A/A comparisons of five runs a side.
	DefaultAlpha = 0.05
	DefaultLevel = 0.95 // the confidence of the intervals
	DefaultSeed  = 1    // the bootstrap's seed
)

// Direction says which way a metric gets worse.
type Direction int

const (
	HigherIsBetter Direction = iota + 1 // throughput
	LowerIsBetter                       // latency, errors
)

// Judge says when a difference is real and when it matters.
type Judge struct {
	Alpha float64 // significance level (DefaultAlpha when 0)
	Level float64 // confidence of the intervals (DefaultLevel when 0)
	Seed  uint64  // bootstrap seed
	// MinEffect is the smallest relative difference of medians that
	// counts (0.05: 5%); a significant difference below it is small.
	MinEffect float64
	// MinAbs, when set, is the smallest absolute difference of medians
	// that counts (for a metric near zero, such as an error rate).
	MinAbs float64
	Better Direction
}

func (j Judge) alpha() float64 {
	if j.Alpha > 0 {
		return j.Alpha
	}
	return DefaultAlpha
}

func (j Judge) level() float64 {
	if j.Level > 0 {
		return j.Level
	}
	return DefaultLevel
}

// Verdict is what a comparison concludes.
type Verdict string

const (
	Noise   Verdict = "~"       // not significant: likely noise
	Small   Verdict = "small"   // significant, below the minimum effect
	Better  Verdict = "better"  // significant, large enough, the good way
	Worse   Verdict = "worse"   // a regression
	TooFew  Verdict = "too few" // not enough runs to judge
	Missing Verdict = "missing" // a side has no value
)

// Side summarises one side's values.
type Side struct {
	N      int
	Median float64
	CI     Interval
}

// Comparison of a metric's values on two sides, one value per run.
type Comparison struct {
	Base, Other Side
	// Delta is median(other)/median(base) − 1 (NaN for a zero base);
	// Diff is median(other) − median(base).
	Delta, Diff float64
	Test        UTest
	// P is the p-value the verdict is judged on: the test's own, or,
	// in a table of several metrics, adjusted for their number
	// (Correct); NaN when no verdict is given.
	P       float64
	Ratio   Interval // bootstrap interval of median(other)/median(base)
	Verdict Verdict
	// Reason says why a verdict was refused (too few runs).
	Reason string
}

// Compare compares other against base.
func (j Judge) Compare(base, other []float64) Comparison {
	c := Comparison{Base: side(base, j.level()), Other: side(other, j.level())}
	if len(base) == 0 || len(other) == 0 {
		c.Verdict, c.Delta, c.Diff, c.P = Missing, math.NaN(), math.NaN(), math.NaN()
		c.Reason = "a side has no value"
		return c
	}
	c.Diff = c.Other.Median - c.Base.Median
	c.Delta = math.NaN()
	if c.Base.Median != 0 {
		c.Delta = c.Other.Median/c.Base.Median - 1
	}
	c.Test = MannWhitney(base, other)
	c.P = c.Test.P
	c.Ratio = RatioCI(base, other, j.level(), DefaultResamples, j.Seed)
	if SmallestP(len(base), len(other)) >= j.alpha() {
		need := RunsNeeded(j.alpha())
		c.Verdict, c.P = TooFew, math.NaN() // no p-value can be judged
		c.Reason = fmt.Sprintf("too few runs (%d and %d): a difference at p < %g needs at least %d runs on each side", len(base), len(other), j.alpha(), need)
		return c
	}
	c.Verdict = j.verdict(c)
	return c
}

// verdict judges a comparison with both sides' values on its p-value P.
func (j Judge) verdict(c Comparison) Verdict {
	switch {
	case c.P >= j.alpha():
		return Noise
	case !j.large(c):
		return Small
	case (c.Diff > 0) == (j.Better == HigherIsBetter):
		return Better
	}
	return Worse
}

// large says whether a significant difference is at least the minimum
// effect: relative, or absolute when MinAbs is set.
func (j Judge) large(c Comparison) bool {
	if j.MinAbs > 0 && math.Abs(c.Diff) < j.MinAbs {
		return false
	}
	if j.MinEffect > 0 && !math.IsNaN(c.Delta) && math.Abs(c.Delta) < j.MinEffect {
		return false
	}
	return true
}

func side(x []float64, level float64) Side {
	if len(x) == 0 {
		return Side{Median: math.NaN(), CI: Interval{Lo: math.NaN(), Hi: math.NaN()}}
	}
	return Side{N: len(x), Median: Median(x), CI: MedianCI(x, level)}
}
