package study

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Summary gathers the repetitions of one variant at one target rate. The
// p99 statistics are over the runs' own p99s: nil when no run recorded one,
// and the (sample) standard deviation nil below two.
type Summary struct {
	Mode      string
	TPS       float64
	Runs      int
	Passed    int
	Need      int // runs that must pass for the mode at the rate to hold; 0 a majority
	P99Median *float64
	P99Stddev *float64
	P99Max    *float64
}

// Held reports whether enough runs passed: the SLA's Require, else most.
func (s Summary) Held() bool { return s.Passed >= Required(s.Need, s.Runs) }

// Summarize groups runs by mode and target rate, ordered by rate, then
// mode (per-op before client-bulk).
func Summarize(runs []Run, s SLA) []Summary {
	type key struct {
		mode string
		tps  float64
	}
	groups := map[key][]Run{}
	for _, r := range runs {
		k := key{r.Mode, r.TPS}
		groups[k] = append(groups[k], r)
	}
	out := make([]Summary, 0, len(groups))
	for _, g := range groups {
		out = append(out, summarize(g, s))
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(a.TPS, b.TPS), CompareModes(a.Mode, b.Mode))
	})
	return out
}

// summarize returns the summary of one group of runs.
func summarize(g []Run, s SLA) Summary {
	p99 := p99s(g)
	return Summary{Mode: g[0].Mode, TPS: g[0].TPS, Runs: len(g), Passed: passed(g, s), Need: s.Require.K,
		P99Median: median(p99), P99Stddev: stddev(p99), P99Max: maxOf(p99)}
}

// CompareModes orders per-op before client-bulk, then any other modes by
// name.
func CompareModes(a, b string) int {
	rank := func(m string) int {
		switch m {
		case "per-op":
			return 0
		case "client-bulk":
			return 1
		}
		return 2
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
}

// passed counts the runs that meet s.
func passed(runs []Run, s SLA) int {
	n := 0
	for _, r := range runs {
		if Judge(r, s).Pass {
			n++
		}
	}
	return n
}

// p99s returns the recorded p99s of runs.
func p99s(runs []Run) []float64 {
	var out []float64
	for _, r := range runs {
		if r.P99 != nil {
			out = append(out, *r.P99)
		}
	}
	return out
}

// median returns the middle value, or the mean of the two middle values of
// an even count; nil for none.
func median(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(xs))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + m) / 2
	}
	return &m
}

// stddev returns the sample standard deviation (n − 1); nil below two
// values.
func stddev(xs []float64) *float64 {
	if len(xs) < 2 {
		return nil
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	return &sd
}

// maxOf returns the largest value; nil for none.
func maxOf(xs []float64) *float64 {
	if len(xs) == 0 {
		return nil
	}
	m := slices.Max(xs)
	return &m
}
