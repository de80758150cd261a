package diagnosis

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// The tail's bounds: a condition lines up with the tail when the
// intervals meeting it hold at least minTailShare of the operations above
// p99, at least minLift times their share of the run's time, and at most
// maxTimeShare of that time (a condition of most seconds explains
// nothing). minIntervals is the shortest run judged; maxCauses how many
// causes are kept (and those tied with the last kept: keepCauses).
const (
	minTailShare = 0.25
	minLift      = 2
	maxTimeShare = 0.5
	minIntervals = 5
	maxCauses    = 3
)

// tailKind says what counts as a burst of a series.
type tailKind int

const (
	// burst: the bound is at least floor and at least twice the median
	// of the other intervals.
	burst tailKind = iota
	// points: a percentage; the bound is at least floor points above the
	// median of the other intervals.
	points
	// flag: 1 while something runs (a checkpoint), else 0.
	flag
)

// tailSeries is one series the tail is compared with.
type tailSeries struct {
	name   string // as stored: intervals.host.diskWriteBytesPerSec
	what   string // "disk writes"
	unit   string // shown after the bound
	scale  float64
	kind   tailKind
	floor  float64 // in the series' own units
	source string
	values []float64 // per interval; NaN where missing
}

// intervalSeries are the intervals' own figures the tail is compared
// with: name (host., server. or client. key), words, unit, scale, kind,
// floor.
var intervalSeries = []struct {
	key, what, unit string
	scale           float64
	kind            tailKind
	floor           float64
	value           func(result.Interval) (float64, bool)
}{
	{"host." + keyDiskWrite, "disk writes", "MB/s", 1.0 / (1 << 20), burst, 10 << 20, hostKey(keyDiskWrite)},
	{"host." + keyDiskRead, "disk reads", "MB/s", 1.0 / (1 << 20), burst, 10 << 20, hostKey(keyDiskRead)},
	{"host." + keyDiskIOPS, "disk IOPS", "", 1, burst, 100, hostKey(keyDiskIOPS)},
	{"host." + keyCPUIOWait, "iowait", "%", 1, points, 5, hostKey(keyCPUIOWait)},
	{"host.cpu", "host CPU", "%", 1, points, 15, hostSum(keyCPUUser, keyCPUKernel)},
	{"host.procCpu", "server CPU", "% of all cores", 1, points, 15, hostSum(keyProcUser, keyProcKernel)},
	{"server." + keyCheckpointOn, "a checkpoint running", "", 1, flag, 1, serverKey(keyCheckpointOn)},
	{"server.cacheDirtyPct", "dirty cache", "% of the cache", 1, points, 5, dirtyShare},
	{"server.appEvictionPagesPerSec", "eviction by application threads", "pages/s", 1, burst, 1, serverKey("appEvictionPagesPerSec")},
	{"server.ticketsOut", "tickets out", "", 1, burst, 2, serverKey("ticketsOut")},
	{"server.queuedOps", "operations queued", "", 1, burst, 1, serverKey("queuedOps")},
	{"server.replLagSecs", "replication lag", "s", 1, burst, 1, serverKey("replLagSecs")},
	{"server.connectionsCreatedPerSec", "connections created", "/s", 1, burst, 1, serverKey("connectionsCreatedPerSec")},
	{"server." + keyConflicts, "write conflicts", "/s", 1, burst, 1, serverKey(keyConflicts)},
	{"client.maxLagMs", "client send lag", "ms", 1, burst, 1, func(iv result.Interval) (float64, bool) { return iv.MaxLag, true }},
	{"client.maxReceiveLagMs", "client receive lag", "ms", 1, burst, 1, func(iv result.Interval) (float64, bool) {
		if iv.MaxReceiveLag == nil {
			return 0, false
		}
		return *iv.MaxReceiveLag, true
	}},
	{"client.cpuPct", "client CPU", "% of all cores", 1, points, 15, func(iv result.Interval) (float64, bool) {
		if iv.ClientCPU == nil {
			return 0, false
		}
		return *iv.ClientCPU, true
	}},
}

// metricSeries are the document's metrics series the tail is compared
// with when the intervals lack the same figure (Atlas, FTDC, another
// member's node exporter).
var metricSeries = map[string]struct {
	what, unit string
	scale      float64
	kind       tailKind
	floor      float64
}{
	result.DiskWriteBytes: {"disk writes", "MB/s", 1.0 / (1 << 20), burst, 10 << 20},
	result.DiskReadBytes:  {"disk reads", "MB/s", 1.0 / (1 << 20), burst, 10 << 20},
	result.DiskIOPS:       {"disk IOPS", "", 1, burst, 100},
	result.CPUIOWait:      {"iowait", "%", 1, points, 5},
	result.CPUUser:        {"host CPU (user)", "%", 1, points, 15},
	result.CPUKernel:      {"host CPU (kernel)", "%", 1, points, 15},
	// The server's own, from FTDC files (results attach-ftdc).
	result.CheckpointRunning: {"a checkpoint running", "", 1, flag, 1},
	result.CacheAppEviction:  {"eviction by application threads", "pages/s", 1, burst, 1},
	result.TicketsOut:        {"tickets out", "", 1, burst, 2},
	result.QueueTotal:        {"operations queued", "", 1, burst, 1},
	// Each secondary's, a members series (its member's name before it).
	result.ReplicationLag: {"replication lag", "s", 1, burst, 1},
}

func hostKey(k string) func(result.Interval) (float64, bool) {
	return func(iv result.Interval) (float64, bool) { v, ok := iv.Host[k]; return v, ok }
}

func serverKey(k string) func(result.Interval) (float64, bool) {
	return func(iv result.Interval) (float64, bool) { v, ok := iv.Server[k]; return v, ok }
}

func hostSum(keys ...string) func(result.Interval) (float64, bool) {
	return func(iv result.Interval) (float64, bool) {
		var s float64
		for _, k := range keys {
			v, ok := iv.Host[k]
			if !ok {
				return 0, false
			}
			s += v
		}
		return s, true
	}
}

func dirtyShare(iv result.Interval) (float64, bool) {
	d, ok := iv.Server[keyCacheDirty]
	m, ok2 := iv.Server["cacheMaxBytes"]
	if !ok || !ok2 || m <= 0 {
		return 0, false
	}
	return 100 * d / m, true
}

// Tail finds where a run's tail lives and what co-occurred there: per
// interval, from the stored histograms, the operations above their
// type's p99 over the run; then, for every series the run has, the
// condition "the series at or above a bound" whose intervals hold the
// tail most out of proportion to their time. It returns nil for a
// document without intervals.
func Tail(d *result.Doc) *result.Tail {
	if d == nil || len(d.Intervals) == 0 {
		return nil
	}
	t := &result.Tail{}
	per, above, err := tailCounts(d)
	if err != nil {
		t.NotJudged = err.Error()
		t.Line = "p99 tail: could not judge: " + t.NotJudged
		return t
	}
	t.PerInterval, t.Above = per, above
	switch {
	case len(d.Intervals) < minIntervals:
		t.NotJudged = fmt.Sprintf("%d intervals; at least %d are needed to tell where the tail lives", len(d.Intervals), minIntervals)
	case above == 0:
		t.NotJudged = "no operation above its type's p99 (too few operations)"
	}
	if t.NotJudged != "" {
		t.Line = "p99 tail: could not judge: " + t.NotJudged
		return t
	}
	series := tailSeriesOf(d)
	t.Series = len(series)
	weights := make([]float64, len(d.Intervals))
	var total float64
	for i, iv := range d.Intervals {
		weights[i] = max(iv.Seconds, 0)
		if weights[i] == 0 {
			weights[i] = 1
		}
		total += weights[i]
	}
	for _, s := range series {
		if c, ok := bestCondition(s, per, above, weights, total); ok && !serverHeldLag(d, c) {
			t.Causes = append(t.Causes, c)
		}
	}
	sort.SliceStable(t.Causes, func(i, j int) bool {
		a, b := t.Causes[i], t.Causes[j]
		if a.Lift != b.Lift {
			return a.Lift > b.Lift
		}
		return a.TailShare > b.TailShare
	})
	t.Causes = keepCauses(t.Causes)
	if len(t.Causes) == 0 {
		t.Line = fmt.Sprintf("p99 tail: nothing the run measured lines up with its %d operations above p99 (%d series compared)", above, len(series))
		return t
	}
	t.Line = "p99 tail: " + t.Causes[0].Evidence
	return t
}

// keepCauses keeps the first maxCauses of causes sorted best first, and
// every later one as good as the last kept (the same lift and tail
// share): among equally good causes the order is the series', which
// says nothing, so none of them is dropped for it.
func keepCauses(causes []result.TailCause) []result.TailCause {
	n := min(len(causes), maxCauses)
	for n > 0 && n < len(causes) && causes[n].Lift == causes[n-1].Lift && causes[n].TailShare == causes[n-1].TailShare {
		n++
	}
	return causes[:n]
}

// serverHeldLag says whether a cause is the client's send lag in
// intervals where every worker of an open-loop schedule was in flight:
// the schedule fell behind because the workers waited on the server, so
// the lag is a consequence of the server's latency, not a cause of the
// tail (the diagnosis's schedule rule says the same of the whole run).
func serverHeldLag(d *result.Doc, c result.TailCause) bool {
	if c.Series != "intervals.client.maxLagMs" || d.Schedule.Mode != "open" || d.Schedule.Workers <= 0 || len(c.Intervals) == 0 {
		return false
	}
	for _, i := range c.Intervals {
		p := d.Intervals[i].PeakInFlight
		if p == nil || *p < int64(d.Schedule.Workers) {
			return false
		}
	}
	return true
}

// tailCounts counts, per interval, the operations above their type's
// p99 over the run.
func tailCounts(d *result.Doc) ([]int64, int64, error) {
	per := make([]int64, len(d.Intervals))
	var total int64
	for _, op := range d.Ops {
		if op.Latency.Count == 0 {
			continue
		}
		if op.Latency.Hist == "" {
			return nil, 0, fmt.Errorf("operation type %s has no stored histogram", op.Name)
		}
		h, err := hist.FromDist(op.Latency)
		if err != nil {
			return nil, 0, fmt.Errorf("operation type %s: %w", op.Name, err)
		}
		p99 := h.ValueAtQuantile(99)
		for i, iv := range d.Intervals {
			for _, o := range iv.Ops {
				if o.Name != op.Name || o.Latency.Count == 0 {
					continue
				}
				if o.Latency.Hist == "" {
					return nil, 0, fmt.Errorf("interval %d's %s has no stored histogram", i, op.Name)
				}
				ih, err := hist.FromDist(o.Latency)
				if err != nil {
					return nil, 0, fmt.Errorf("interval %d's %s: %w", i, op.Name, err)
				}
				n := hist.CountAbove(ih, p99)
				per[i] += n
				total += n
			}
		}
	}
	return per, total, nil
}

// tailSeriesOf gathers the run's series, one value per interval.
func tailSeriesOf(d *result.Doc) []tailSeries {
	var out []tailSeries
	have := map[string]bool{}
	for _, spec := range intervalSeries {
		s := tailSeries{name: "intervals." + spec.key, what: spec.what, unit: spec.unit, scale: spec.scale, kind: spec.kind, floor: spec.floor,
			values: make([]float64, len(d.Intervals))}
		n := 0
		for i, iv := range d.Intervals {
			s.values[i] = math.NaN()
			if v, ok := spec.value(iv); ok && !math.IsNaN(v) {
				s.values[i] = v
				n++
			}
		}
		if n > 0 {
			out = append(out, s)
			have[spec.what] = true
		}
	}
	add := func(sr result.Series, prefix string) {
		spec, ok := metricSeries[sr.Name]
		if !ok || (prefix == "" && have[spec.what]) {
			return
		}
		s := tailSeries{name: sr.Name, what: prefix + spec.what, unit: spec.unit, scale: spec.scale, kind: spec.kind, floor: spec.floor,
			source: sr.Source, values: onIntervals(sr, d.Intervals)}
		if spec.kind == flag { // a second that had it has it, however many points
			s.values = onIntervalsMax(sr, d.Intervals)
		}
		if sr.Member != "" {
			s.name = sr.Member + " " + sr.Name
		}
		for _, v := range s.values {
			if !math.IsNaN(v) {
				out = append(out, s)
				return
			}
		}
	}
	for _, sr := range d.Metrics.Measurements {
		add(sr, "")
	}
	for _, sr := range d.Metrics.DiskMetrics {
		add(sr, "")
	}
	for _, sr := range d.Metrics.Members {
		if sr.Name != result.MemberState { // a state is no condition of the tail's; validity judges its changes
			add(sr, sr.Member+"'s ")
		}
	}
	if s, ok := dirtySeries(d); ok && !have[s.what] {
		out = append(out, s)
	}
	return out
}

// dirtySeries is the dirty cache's share of the cache per interval from
// the run's CACHE_DIRTY_BYTES and CACHE_MAX_BYTES series (FTDC's), when
// it has both.
func dirtySeries(d *result.Doc) (tailSeries, bool) {
	dirty, most := d.Metrics.Series(result.CacheDirty), d.Metrics.Series(result.CacheMax)
	if dirty == nil || most == nil {
		return tailSeries{}, false
	}
	dv, mv := onIntervals(*dirty, d.Intervals), onIntervals(*most, d.Intervals)
	s := tailSeries{name: result.CacheDirty, what: "dirty cache", unit: "% of the cache", scale: 1, kind: points, floor: 5,
		source: dirty.Source, values: make([]float64, len(d.Intervals))}
	n := 0
	for i := range s.values {
		s.values[i] = math.NaN()
		if !math.IsNaN(dv[i]) && !math.IsNaN(mv[i]) && mv[i] > 0 {
			s.values[i] = 100 * dv[i] / mv[i]
			n++
		}
	}
	return s, n > 0
}

// onIntervals is a series' mean over each interval: the points stamped
// within (start, end]. A point is a reading over the time before it.
func onIntervals(sr result.Series, ivs []result.Interval) []float64 {
	out := make([]float64, len(ivs))
	for i, iv := range ivs {
		end := iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second)))
		var sum float64
		n := 0
		for _, p := range sr.DataPoints {
			if p.Value != nil && p.Timestamp.After(iv.Start) && !p.Timestamp.After(end) {
				sum += *p.Value
				n++
			}
		}
		out[i] = math.NaN()
		if n > 0 {
			out[i] = sum / float64(n)
		}
	}
	return out
}

// onIntervalsMax is a series' largest value over each interval (the
// points stamped within (start, end]), NaN where it has none: for a flag
// or a count, where a mean would halve a second that had it.
func onIntervalsMax(sr result.Series, ivs []result.Interval) []float64 {
	out := make([]float64, len(ivs))
	for i, iv := range ivs {
		end := iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second)))
		out[i] = math.NaN()
		for _, p := range sr.DataPoints {
			if p.Value != nil && p.Timestamp.After(iv.Start) && !p.Timestamp.After(end) && (math.IsNaN(out[i]) || *p.Value > out[i]) {
				out[i] = *p.Value
			}
		}
	}
	return out
}

// bestCondition tries every bound the series takes and keeps the one
// whose intervals hold the tail most out of proportion to their time.
func bestCondition(s tailSeries, per []int64, above int64, weights []float64, total float64) (result.TailCause, bool) {
	var bounds []float64
	for _, v := range s.values {
		if !math.IsNaN(v) {
			bounds = append(bounds, v)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	var best result.TailCause
	found := false
	for _, b := range bounds {
		var in []int
		var others []float64
		var tail int64
		var secs float64
		for i, v := range s.values {
			switch {
			case math.IsNaN(v):
			case v >= b:
				in = append(in, i)
				tail += per[i]
				secs += weights[i]
			default:
				others = append(others, v)
			}
		}
		if len(others) == 0 || !material(s, b, median(others)) {
			continue
		}
		c := result.TailCause{Series: s.name, Source: s.source, Threshold: b, Intervals: in,
			TailShare: float64(tail) / float64(above), TimeShare: secs / total}
		if c.TimeShare <= 0 || c.TimeShare > maxTimeShare || c.TailShare < minTailShare {
			continue
		}
		c.Lift = c.TailShare / c.TimeShare
		if c.Lift < minLift {
			continue
		}
		if !found || c.Lift > best.Lift || (c.Lift == best.Lift && c.TailShare > best.TailShare) {
			c.Condition = condition(s, b, slices.Max(others))
			best, found = c, true
		}
	}
	if found {
		best.Evidence = fmt.Sprintf("%s%% of the operations above p99 fell in the %s%% of seconds with %s",
			num(100*best.TailShare), num(100*best.TimeShare), best.Condition)
	}
	return best, found
}

// material says whether the bound b is a burst of the series against the
// median of the other intervals.
func material(s tailSeries, b, med float64) bool {
	switch s.kind {
	case flag:
		return b >= 1 && med < 1
	case points:
		return b >= med+s.floor
	}
	return b >= s.floor && b >= 2*med
}

// condition says "disk writes above 300 MB/s": the bound rounded down to
// one significant digit when that still sets it above every other
// interval, else the bound itself.
func condition(s tailSeries, b, otherMax float64) string {
	if s.kind == flag {
		return s.what
	}
	shown := b
	if r := roundDown(b * s.scale); r/s.scale > otherMax {
		shown = r / s.scale
		return strings.TrimSpace(fmt.Sprintf("%s above %s %s", s.what, num(shown*s.scale), s.unit))
	}
	return strings.TrimSpace(fmt.Sprintf("%s at or above %s %s", s.what, num(shown*s.scale), s.unit))
}

// roundDown keeps one significant digit, rounding toward zero.
func roundDown(v float64) float64 {
	if v <= 0 {
		return v
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	return math.Floor(v/p) * p
}
