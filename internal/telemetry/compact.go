package telemetry

import (
	"math"
	"slices"
	"time"
)

// statusPaths are every serverStatus path ServerFigures reads, besides
// the opcounters section (kept whole: its counters are named by the
// server).
var statusPaths = func() []string {
	var out []string
	for _, g := range serverGauges {
		out = append(out, g.path)
	}
	for _, r := range serverRates {
		out = append(out, r.path)
	}
	out = append(out, checkpointRunningPaths...)
	out = append(out, checkpointTimePaths...)
	out = append(out, checkpointCountPaths...)
	for _, sec := range ticketSections {
		for _, rw := range []string{".read.", ".write."} {
			for _, f := range []string{"out", "available", "totalTickets"} {
				out = append(out, sec+rw+f)
			}
		}
	}
	for _, l := range latencies {
		out = append(out, opLatenciesSection+"."+l.section+".ops", opLatenciesSection+"."+l.section+".latency")
	}
	return out
}()

// CompactStatus keeps of a serverStatus document only what the figures
// read, as numbers under their dotted paths (Lookup finds them there),
// with the opcounters section as a document of its own: a sample held
// for a run of hours costs a few kilobytes, not the whole reply. Nil
// stays nil.
func CompactStatus(doc map[string]any) map[string]any {
	if doc == nil {
		return nil
	}
	out := make(map[string]any, len(statusPaths)/2)
	for _, p := range statusPaths {
		if v, ok := Lookup(doc, p); ok {
			out[p] = v
		}
	}
	if sec, ok := doc[opcountersSection].(map[string]any); ok {
		ops := make(map[string]any, len(sec))
		for k, v := range sec {
			if n, ok := number(v); ok {
				ops[k] = n
			}
		}
		out[opcountersSection] = ops
	}
	return out
}

// Thin keeps, of samples taken oldest first, one per grain: the one
// nearest each instant origin + k × every, with every boundary mark and
// the newest sample (the end of the run so far). The figures over
// intervals of every are then read from samples as far apart as the
// intervals, so a run of any length keeps a bounded number of samples.
func Thin(samples []Sample, origin time.Time, every time.Duration) []Sample {
	if every <= 0 || len(samples) < 3 {
		return samples
	}
	out := samples[:0:0]
	best, bestK := -1, int64(math.MinInt64)
	off := func(s Sample, k int64) time.Duration { return (s.Time.Sub(origin) - time.Duration(k)*every).Abs() }
	for i, s := range samples {
		if s.Mark || i == len(samples)-1 {
			out = append(out, s)
			continue
		}
		k := int64(math.Round(float64(s.Time.Sub(origin)) / float64(every)))
		switch {
		case k != bestK:
			if best >= 0 {
				out = append(out, samples[best])
			}
			best, bestK = i, k
		case off(s, k) < off(samples[best], k):
			best = i
		}
	}
	if best >= 0 {
		out = append(out, samples[best])
	}
	slices.SortStableFunc(out, func(a, b Sample) int { return a.Time.Compare(b.Time) })
	return out
}
