package merge

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// MaxPoints is the most intervals, and points per telemetry series, a
// result document holds (store.Fit); a longer run's are coarsened.
const MaxPoints = 1000

// LadderPoints is the most intervals a run's Ladder keeps: under
// MaxPoints, so a document with its closing tail and a group's folded
// intervals still fits without coarsening again.
const LadderPoints = MaxPoints - 8

// Granularities are the coarse interval lengths a long run's document
// may keep, finest first: a run's intervals are merged into the finest of
// these (a multiple of its own interval) at which the document fits.
var Granularities = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 90 * time.Second, 2 * time.Minute, 3 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour,
	12 * time.Hour, 24 * time.Hour,
}

// summedServerFigures are the interval server figures that count events
// in the interval (checkpoints completed): a coarse interval sums them.
// Every other figure is a rate or a gauge: a coarse interval holds its
// mean over the time it was read.
var summedServerFigures = []string{"checkpoints"}

// Coarsen returns a copy of d whose intervals are merged in time into
// intervals of every (measured from the phase start) and whose telemetry
// series hold one point per every: operation counts and errors summed,
// latency and service-time distributions merged exactly from their
// histograms (never a percentile averaged), lateness and drops summed,
// the largest lag and peak in flight kept, client CPU and the server's
// and host's rates and gauges averaged over time, a series' readings
// averaged (a missing reading is left out; a point with none is missing)
// and its GranularitySec set to every. Coarse intervals keep their
// distributions' summaries, not their histograms: the histograms of a
// long run live at full resolution beside the document. A document whose
// intervals are already as coarse as every is returned unchanged.
func Coarsen(d *result.Doc, every time.Duration) (*result.Doc, error) {
	if every <= 0 {
		return nil, fmt.Errorf("coarsen: interval %v, want a positive one", every)
	}
	if !finer(d, every) {
		return d, nil
	}
	out := *d
	ivs, err := coarseIntervals(d.Start, d.Intervals, every, summary)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.RunID, err)
	}
	out.Intervals = ivs
	out.Metrics = result.Metrics{
		Measurements: coarseSeries(d.Start, d.Metrics.Measurements, every),
		DiskMetrics:  coarseSeries(d.Start, d.Metrics.DiskMetrics, every),
		Members:      coarseSeries(d.Start, d.Metrics.Members, every),
	}
	return &out, nil
}

// finer reports whether any of d's intervals or series points is finer
// than every, so coarsening changes it.
func finer(d *result.Doc, every time.Duration) bool {
	for _, iv := range d.Intervals {
		if iv.Seconds < every.Seconds()-1e-9 {
			return true
		}
	}
	for _, l := range d.Metrics.Lists() {
		for _, s := range l.Series {
			if len(s.DataPoints) > 1 && (s.GranularitySec == 0 || s.GranularitySec < every.Seconds()-1e-9) {
				return true
			}
		}
	}
	return false
}

// slot is the index of the coarse interval an instant falls in.
func slot(start, t time.Time, every time.Duration) int64 {
	return int64(math.Floor(float64(t.Sub(start)) / float64(every)))
}

// coarseIntervals merges the intervals that start in the same slot of
// every from start, each distribution kept as summarize says.
func coarseIntervals(start time.Time, ivs []result.Interval, every time.Duration, summarize func(*hist.H) (result.Dist, error)) ([]result.Interval, error) {
	var out []result.Interval
	for i := 0; i < len(ivs); {
		j := i + 1
		s := slot(start, ivs[i].Start, every)
		for j < len(ivs) && slot(start, ivs[j].Start, every) == s {
			j++
		}
		if j == i+1 {
			out = append(out, ivs[i]) // alone in its slot: kept as it is
			i = j
			continue
		}
		iv, err := timeMerge(ivs[i:j], summarize)
		if err != nil {
			return nil, fmt.Errorf("interval at %s: %w", ivs[i].Start.Format(time.RFC3339), err)
		}
		out = append(out, iv)
		i = j
	}
	return out, nil
}

// summary keeps a merged distribution's summary, not its histogram.
func summary(h *hist.H) (result.Dist, error) { return hist.Summary(h), nil }

// timeMerge merges consecutive intervals of one run into one, each
// distribution kept as summarize says (with or without its histogram).
func timeMerge(ivs []result.Interval, summarize func(*hist.H) (result.Dist, error)) (result.Interval, error) {
	first, last := ivs[0], ivs[len(ivs)-1]
	out := result.Interval{Start: first.Start, Seconds: last.Start.Add(seconds(last.Seconds)).Sub(first.Start).Seconds()}
	lists := make([][]result.OpStats, 0, len(ivs))
	var cpu, cpuSecs float64
	cpuKnown := true
	for _, iv := range ivs {
		out.Late += iv.Late
		out.Dropped += iv.Dropped
		out.MaxLag = max(out.MaxLag, iv.MaxLag)
		out.MaxReceiveLag = larger(out.MaxReceiveLag, iv.MaxReceiveLag)
		if iv.PeakInFlight != nil && (out.PeakInFlight == nil || *iv.PeakInFlight > *out.PeakInFlight) {
			peak := *iv.PeakInFlight
			out.PeakInFlight = &peak
		}
		if iv.ClientCPU == nil {
			cpuKnown = false
		} else {
			cpu += *iv.ClientCPU * iv.Seconds
			cpuSecs += iv.Seconds
		}
		lists = append(lists, iv.Ops)
	}
	ops, err := mergeOps(lists, summarize)
	if err != nil {
		return out, err
	}
	for i := range ops {
		if out.Seconds > 0 {
			ops[i].Rate = float64(ops[i].Count) / out.Seconds
		}
	}
	out.Ops = ops
	if cpuKnown && cpuSecs > 0 {
		out.ClientCPU = result.F(cpu / cpuSecs)
	}
	out.Server = timeMeans(ivs, func(iv result.Interval) map[string]float64 { return iv.Server }, summedServerFigures)
	out.Host = timeMeans(ivs, func(iv result.Interval) map[string]float64 { return iv.Host }, nil)
	return out, nil
}

// timeMeans is each figure's mean over the time of the intervals that
// read it (the sum, for the summed ones); nil when none read any.
func timeMeans(ivs []result.Interval, of func(result.Interval) map[string]float64, summed []string) map[string]float64 {
	sums, secs := map[string]float64{}, map[string]float64{}
	for _, iv := range ivs {
		for k, v := range of(iv) {
			if slices.Contains(summed, k) {
				sums[k] += v
				secs[k] = 1
				continue
			}
			sums[k] += v * iv.Seconds
			secs[k] += iv.Seconds
		}
	}
	if len(sums) == 0 {
		return nil
	}
	out := make(map[string]float64, len(sums))
	for k, v := range sums {
		if secs[k] > 0 {
			out[k] = v / secs[k]
		}
	}
	return out
}

// coarseSeries averages each series' readings per slot of every.
func coarseSeries(start time.Time, list []result.Series, every time.Duration) []result.Series {
	if list == nil {
		return nil
	}
	out := make([]result.Series, len(list))
	for i, s := range list {
		c := s
		if s.GranularitySec < every.Seconds() {
			c.GranularitySec = every.Seconds()
		}
		c.DataPoints = nil
		for a := 0; a < len(s.DataPoints); {
			b := a + 1
			k := slot(start, s.DataPoints[a].Timestamp, every)
			for b < len(s.DataPoints) && slot(start, s.DataPoints[b].Timestamp, every) == k {
				b++
			}
			c.DataPoints = append(c.DataPoints, result.DataPoint{Timestamp: s.DataPoints[a].Timestamp, Value: mean(s.DataPoints[a:b])})
			a = b
		}
		out[i] = c
	}
	return out
}

// mean is the mean of the readings present; nil when none is.
func mean(ps []result.DataPoint) *float64 {
	var sum float64
	var n int
	for _, p := range ps {
		if p.Value != nil {
			sum += *p.Value
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return result.F(sum / float64(n))
}

// Rebuild is a run's result made again from its full-resolution intervals
// (a lost run's, whose client stopped before storing it whole): the
// operation types' counts, errors and whole-run histograms merged exactly
// from the intervals', the phase from the first interval's start to the
// last one's end, the lateness and drops summed; what only the client
// knew (the intended count, its CPU, the server's closing figures) stays
// as the run's row has it, or missing.
func Rebuild(d *result.Doc, ivs []result.Interval) (*result.Doc, error) {
	if len(ivs) == 0 {
		return nil, fmt.Errorf("run %s: no stored intervals to rebuild it from", d.RunID)
	}
	out := *d
	lists := make([][]result.OpStats, len(ivs))
	out.Schedule.Late, out.Schedule.Dropped = 0, 0
	for i, iv := range ivs {
		lists[i] = iv.Ops
		out.Schedule.Late += iv.Late
		out.Schedule.Dropped += iv.Dropped
	}
	ops, err := mergeOps(lists, hist.Summarize)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", d.RunID, err)
	}
	last := ivs[len(ivs)-1]
	out.Start, out.End = ivs[0].Start, last.Start.Add(seconds(last.Seconds))
	phase := out.End.Sub(out.Start)
	out.Duration = float64(phase) / float64(time.Millisecond)
	var n int64
	for i := range ops {
		if phase > 0 {
			ops[i].Rate = float64(ops[i].Count) / phase.Seconds()
		}
		c, _ := ops[i].Whole()
		n += c
	}
	out.Ops, out.Intervals, out.Resolution = ops, ivs, nil
	out.TestResults.NOps = &n
	if phase > 0 {
		out.Schedule.AchievedRate = float64(n) / phase.Seconds()
	}
	return &out, nil
}
