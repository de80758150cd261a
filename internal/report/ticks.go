package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks labels an axis at round steps (1, 2 or 5 times a power of
// ten) so that about n (default 8) steps span its range, with unlabelled
// minor ticks between them.
type niceTicks struct{ n int }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	n := t.n
	if n <= 0 {
		n = 8
	}
	step := niceStep((hi - lo) / float64(n))
	var ts []plot.Tick
	minor := step / 5
	if m := math.Round(step / math.Pow(10, math.Floor(math.Log10(step)))); m == 2 {
		minor = step / 4
	}
	for v := math.Ceil(lo/minor) * minor; v <= hi+minor*1e-9; v += minor {
		v = math.Round(v/minor) * minor
		t := plot.Tick{Value: v}
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten that is
// at least raw.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}
