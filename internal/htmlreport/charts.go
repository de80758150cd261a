package htmlreport

import (
	"fmt"
	"math"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// timeSync groups the charts over time, whose cursors move together.
const timeSync = "time"

// distLine is one latency distribution of a percentile chart.
type distLine struct {
	label string
	dist  result.Dist
	dash  bool
	color string
}

// stepsPerDecade is how finely the percentile axis is sampled.
const stepsPerDecade = 20

// percentileChart is the HDR percentile distribution: latency against
// percentile on a log axis of x = 1/(1-p) ("number of nines"), each
// line read from its stored histogram at the same percentiles. A line is
// drawn only as far as its count resolves (p ≤ 1 − 1/count); its maximum
// is its last point. Lines without a histogram are left out; nil when
// none has one.
func percentileChart(title string, lines []distLine) (*Chart, error) {
	type decoded struct {
		distLine
		h *hist.H
	}
	var hs []decoded
	var most int64
	for _, l := range lines {
		if l.dist.Count == 0 || l.dist.Hist == "" {
			continue
		}
		h, err := hist.Decode(l.dist.Hist)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.label, err)
		}
		hs = append(hs, decoded{l, h})
		most = max(most, h.TotalCount())
	}
	if len(hs) == 0 {
		return nil, nil
	}
	var x []float64
	for k := 0; ; k++ {
		v := math.Pow(10, float64(k)/stepsPerDecade)
		if v > float64(most) {
			break
		}
		x = append(x, v)
	}
	x = append(x, float64(most)) // the last value of the largest count
	c := Chart{Title: title, XLabel: "percentile", YLabel: "latency ms (log scale)", XAxis: "nines", YLog: true, X: x, Height: 360,
		Caption: "Latency against percentile on a log axis of 1/(1−p): 90%, 99%, 99.9% … are equally spaced, so the tail gets the room it matters by. " +
			"Read from the stored HDR histograms; each line ends at the highest percentile its count resolves."}
	for _, h := range hs {
		n := float64(h.h.TotalCount())
		ys := make([]*float64, len(x))
		for i, xv := range x {
			if xv > n {
				break
			}
			q := 100 * (1 - 1/xv)
			if xv == n {
				q = 100
			}
			ys[i] = result.F(float64(h.h.ValueAtQuantile(q)) / 1000)
		}
		c.Series = append(c.Series, Series{Label: h.label, Y: ys, Color: h.color, Dash: h.dash, Unit: "ms"})
	}
	return &c, nil
}
