package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// maxIntervalRows bounds the per-interval table; longer runs are condensed
// by merging consecutive intervals.
const maxIntervalRows = 30

// bucket aggregates one or more consecutive intervals.
type bucket struct {
	end     float64 // seconds from the start of the measured phase
	secs    float64
	count   map[string]int64
	p99     map[string]*float64 // worst interval p99 latency
	errors  int64
	late    int64
	dropped int64
	maxLag  float64
	cpu     []float64 // client CPU % of the intervals that report it
}

// add merges one interval into the bucket.
func (b *bucket) add(iv result.Interval, origin time.Time) {
	b.end = iv.Start.Sub(origin).Seconds() + iv.Seconds
	b.secs += iv.Seconds
	for _, o := range iv.Ops {
		b.count[o.Name] += o.Count
		_, failed := o.Whole()
		b.errors += failed
		if p := o.Latency.P99; p != nil && (b.p99[o.Name] == nil || *p > *b.p99[o.Name]) {
			b.p99[o.Name] = p
		}
	}
	b.late += iv.Late
	b.dropped += iv.Dropped
	b.maxLag = math.Max(b.maxLag, iv.MaxLag)
	if iv.ClientCPU != nil {
		b.cpu = append(b.cpu, *iv.ClientCPU)
	}
}

// rate returns the successful operations per second of op, or nil when
// the bucket has no length.
func (b *bucket) rate(op string) *float64 {
	if b.secs <= 0 {
		return nil
	}
	return result.F(float64(b.count[op]) / b.secs)
}

// buckets groups the intervals into at most maxIntervalRows buckets and
// returns them with the number of intervals per bucket.
func buckets(d *result.Doc) ([]*bucket, int) {
	size := max(1, (len(d.Intervals)+maxIntervalRows-1)/maxIntervalRows)
	origin := origin(d)
	var out []*bucket
	for i, iv := range d.Intervals {
		if i%size == 0 {
			out = append(out, &bucket{count: map[string]int64{}, p99: map[string]*float64{}})
		}
		out[len(out)-1].add(iv, origin)
	}
	return out, size
}

// origin is the time from which interval times are counted: the start of
// the measured phase, or of its first interval when the start is unknown.
func origin(d *result.Doc) time.Time {
	if d.Start.IsZero() && len(d.Intervals) > 0 {
		return d.Intervals[0].Start
	}
	return d.Start
}

// opNames lists the operation types of the run in the order of d.Ops,
// followed by any that appear only in intervals.
func opNames(d *result.Doc) []string {
	var names []string
	for _, o := range d.Ops {
		names = append(names, o.Name)
	}
	for _, iv := range d.Intervals {
		for _, o := range iv.Ops {
			if !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
		}
	}
	return names
}

// intervalTable has a row per bucket of intervals: throughput and worst
// p99 per operation type, errors, and for open loop the schedule's health.
func intervalTable(d *result.Doc, bs []*bucket) *table {
	names := opNames(d)
	cols := []string{">t (s)"}
	for _, n := range names {
		cols = append(cols, ">"+n+" ops/s")
	}
	for _, n := range names {
		cols = append(cols, ">"+n+" p99 ms")
	}
	cols = append(cols, ">errors")
	if isOpen(d) {
		cols = append(cols, ">late", ">dropped", ">max lag ms")
	}
	withCPU := slices.ContainsFunc(d.Intervals, func(iv result.Interval) bool { return iv.ClientCPU != nil })
	if withCPU {
		cols = append(cols, ">client CPU %")
	}
	t := newTable(cols...)
	for _, b := range bs {
		t.Add(bucketRow(b, names, isOpen(d), withCPU)...)
	}
	return t
}

// bucketRow formats one row of the interval table.
func bucketRow(b *bucket, names []string, open, withCPU bool) []string {
	row := []string{elapsed(b.end)}
	for _, n := range names {
		row = append(row, mdCells.Opt(b.rate(n), perSec))
	}
	for _, n := range names {
		row = append(row, mdCells.Num(b.p99[n]))
	}
	row = append(row, count(b.errors))
	if open {
		row = append(row, count(b.late), count(b.dropped), sig3(b.maxLag))
	}
	if withCPU {
		row = append(row, mdCells.Num(mean(b.cpu)))
	}
	return row
}

// telemetryTable summarises per-interval readings (the Server or Host
// maps) as mean, min and max per metric, metrics in name order. It
// returns nil when no interval has a reading.
func telemetryTable(ivs []result.Interval, readings func(result.Interval) map[string]float64) *table {
	values := map[string][]float64{}
	for _, iv := range ivs {
		for k, v := range readings(iv) {
			values[k] = append(values[k], v)
		}
	}
	if len(values) == 0 {
		return nil
	}
	t := newTable("metric", ">mean", ">min", ">max", ">intervals")
	for _, k := range slices.Sorted(maps.Keys(values)) {
		t.Add(statsRow(k, values[k], fmt.Sprint(len(values[k])))...)
	}
	return t
}

// seriesTable summarises named time series; samples counts the points
// that hold a value out of all points. It returns nil for no series.
func seriesTable(list []result.Series) *table {
	if len(list) == 0 {
		return nil
	}
	t := newTable("series", "units", ">mean", ">min", ">max", ">samples")
	for _, s := range list {
		var vs []float64
		for _, p := range s.DataPoints {
			if p.Value != nil {
				vs = append(vs, *p.Value)
			}
		}
		row := statsRow(s.Name, vs, fmt.Sprintf("%d/%d", len(vs), len(s.DataPoints)))
		t.Add(slices.Insert(row, 1, s.Units)...)
	}
	return t
}

// statsRow formats name, mean, min, max and a sample count.
func statsRow(name string, vs []float64, samples string) []string {
	var lo, hi *float64
	if len(vs) > 0 {
		lo, hi = result.F(slices.Min(vs)), result.F(slices.Max(vs))
	}
	return []string{name, mdCells.Num(mean(vs)), mdCells.Num(lo), mdCells.Num(hi), samples}
}

// mean returns the mean of vs, or nil when vs is empty.
func mean(vs []float64) *float64 {
	if len(vs) == 0 {
		return nil
	}
	var sum float64
	for _, v := range vs {
		sum += v
	}
	return result.F(sum / float64(len(vs)))
}
