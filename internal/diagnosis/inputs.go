package diagnosis

import (
	"math"
	"reflect"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// run holds the figures of one document the rules read.
type run struct {
	d      *result.Doc
	limits Limits
	secs   float64 // measured phase, seconds
}

func newRun(d *result.Doc, l Limits) *run {
	return &run{d: d, limits: l, secs: d.Duration / 1000}
}

// stat is a figure over the measured phase: its time-weighted mean over
// the intervals that report it, and its largest interval value.
type stat struct {
	Mean, Peak float64
	N          int // intervals (or samples) that reported it
}

// interval returns the figure under key of the intervals' server or host
// maps (a sum when several keys are given and an interval has any of
// them).
func (r *run) interval(host bool, keys ...string) (stat, bool) {
	var s stat
	var wsum, tsum float64
	for _, iv := range r.d.Intervals {
		m := iv.Server
		if host {
			m = iv.Host
		}
		v, ok := 0.0, false
		for _, k := range keys {
			if x, has := m[k]; has {
				v, ok = v+x, true
			}
		}
		if !ok {
			continue
		}
		w := iv.Seconds
		if w <= 0 {
			w = 1
		}
		wsum += v * w
		tsum += w
		s.Peak = max(s.Peak, v)
		s.N++
	}
	if s.N == 0 {
		return stat{}, false
	}
	s.Mean = wsum / tsum
	return s, true
}

// series returns the mean and largest of the sum of the named metrics
// series, sample by sample; samples missing in any series are skipped.
func (r *run) series(names ...string) (stat, bool) {
	var list []*result.Series
	for _, n := range names {
		sr := r.d.Metrics.Series(n)
		if sr == nil {
			return stat{}, false
		}
		list = append(list, sr)
	}
	var s stat
	var sum float64
	for i := range list[0].DataPoints {
		v, ok := 0.0, true
		for _, sr := range list {
			if i >= len(sr.DataPoints) || sr.DataPoints[i].Value == nil {
				ok = false
				break
			}
			v += *sr.DataPoints[i].Value
		}
		if !ok {
			continue
		}
		sum += v
		s.Peak = max(s.Peak, v)
		s.N++
	}
	if s.N == 0 {
		return stat{}, false
	}
	s.Mean = sum / float64(s.N)
	return s, true
}

// hostFigure reads a host figure from the intervals, else from the
// metrics series of the same meaning.
func (r *run) hostFigure(keys []string, series []string) (stat, bool) {
	if s, ok := r.interval(true, keys...); ok {
		return s, true
	}
	if len(series) == 0 {
		return stat{}, false
	}
	return r.series(series...)
}

// serverFigure reads a server figure from the intervals, else from the
// metrics series of the same meaning (a series read from FTDC files).
func (r *run) serverFigure(key, series string) (stat, bool) {
	if s, ok := r.interval(false, key); ok {
		return s, true
	}
	return r.series(series)
}

// seriesTotal is the sum over a run of a per-second series: each value
// times its granularity (one second when unstated).
func (r *run) seriesTotal(name string) (float64, bool) {
	sr := r.d.Metrics.Series(name)
	if sr == nil {
		return 0, false
	}
	g := sr.GranularitySec
	if g <= 0 {
		g = 1
	}
	var sum float64
	n := 0
	for _, p := range sr.DataPoints {
		if p.Value != nil {
			sum += *p.Value * g
			n++
		}
	}
	return sum, n > 0
}

// checkpointing returns, for interval i, whether a checkpoint ran (on)
// and how many completed (n): from the intervals' server figures, else
// from the run's CHECKPOINT_RUNNING and CHECKPOINTS_COMPLETED series
// (FTDC's), their points within the interval; has is false where
// neither says.
func (r *run) checkpointing() func(i int) (on, n float64, has bool) {
	for _, iv := range r.d.Intervals {
		_, a := iv.Server[keyCheckpointOn]
		_, b := iv.Server[keyCheckpoints]
		if a || b {
			return func(i int) (float64, float64, bool) {
				iv := r.d.Intervals[i]
				on, a := iv.Server[keyCheckpointOn]
				n, b := iv.Server[keyCheckpoints]
				return on, n, a || b
			}
		}
	}
	var on, n []float64
	if sr := r.d.Metrics.Series(result.CheckpointRunning); sr != nil {
		on = onIntervalsMax(*sr, r.d.Intervals)
	}
	if sr := r.d.Metrics.Series(result.CheckpointsCompleted); sr != nil {
		n = onIntervalsMax(*sr, r.d.Intervals)
	}
	return func(i int) (float64, float64, bool) {
		var a, b float64
		has := false
		if on != nil && !math.IsNaN(on[i]) {
			a, has = on[i], true
		}
		if n != nil && !math.IsNaN(n[i]) {
			b, has = n[i], true
		}
		return a, b, has
	}
}

// ticketsPeak is the interval with the largest share of tickets out:
// from the intervals' ticketsOut and ticketsTotal, else the run's
// TICKETS_OUT and TICKETS_TOTAL series, point by point.
func (r *run) ticketsPeak() (out, total float64, ok bool) {
	for _, iv := range r.d.Intervals {
		o, a := iv.Server[keyTicketsOut]
		t, b := iv.Server[keyTicketsTotal]
		if a && b && t > 0 && (!ok || o/t > out/total) {
			out, total, ok = o, t, true
		}
	}
	if ok {
		return out, total, true
	}
	outs, ts := r.d.Metrics.Series(result.TicketsOut), r.d.Metrics.Series(result.TicketsTotal)
	if outs == nil || ts == nil {
		return 0, 0, false
	}
	for i, p := range outs.DataPoints {
		if i >= len(ts.DataPoints) || p.Value == nil || ts.DataPoints[i].Value == nil || *ts.DataPoints[i].Value <= 0 {
			continue
		}
		o, t := *p.Value, *ts.DataPoints[i].Value
		if !ok || o/t > out/total {
			out, total, ok = o, t, true
		}
	}
	return out, total, ok
}

// completed is the operations completed in the measured phase,
// successes and failures.
func (r *run) completed() int64 {
	var n int64
	for _, op := range r.d.Ops {
		n += op.Count + op.Errors.Total
	}
	return n
}

// errors sums the operations' errors by class.
func (r *run) errors() result.Errors {
	var e result.Errors
	for _, op := range r.d.Ops {
		e = e.Add(op.Errors)
	}
	return e
}

// meanLatency is the mean latency of the successful operations of every
// type, in milliseconds (a mean of means weighted by count: the mean of
// all operations, not an average of percentiles).
func (r *run) meanLatency() (float64, bool) {
	var sum float64
	var n int64
	for _, op := range r.d.Ops {
		if op.Latency.Mean == nil || op.Latency.Count == 0 {
			continue
		}
		sum += *op.Latency.Mean * float64(op.Latency.Count)
		n += op.Latency.Count
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// peakInFlight is the most operations in flight in any interval, when
// the document records it.
func (r *run) peakInFlight() (int64, bool) {
	var peak int64
	found := false
	for _, iv := range r.d.Intervals {
		if iv.PeakInFlight != nil {
			peak, found = max(peak, *iv.PeakInFlight), true
		}
	}
	return peak, found
}

// status reads a number at a dotted path of the serverStatus taken at the
// measured phase's start (before) or end.
func (r *run) status(before bool, path string) (float64, bool) {
	doc := r.d.AfterStatus
	if before {
		doc = r.d.BeforeStatus
	}
	if doc == nil {
		return 0, false
	}
	v, ok := lookup(doc, path)
	if !ok {
		return 0, false
	}
	return number(v)
}

// statusDelta is a serverStatus counter's growth over the measured
// phase; it fails when either side lacks it or it went backwards.
func (r *run) statusDelta(path string) (float64, bool) {
	b, ok := r.status(true, path)
	if !ok {
		return 0, false
	}
	a, ok := r.status(false, path)
	if !ok || a < b {
		return 0, false
	}
	return a - b, true
}

// lookup finds the value at a dotted path whose keys may themselves hold
// dots or spaces ("wiredTiger.cache.tracked dirty bytes in the cache"),
// trying the longest key first at each level.
func lookup(doc map[string]any, path string) (any, bool) {
	if v, ok := doc[path]; ok {
		return v, true
	}
	for i := strings.LastIndexByte(path, '.'); i > 0; i = strings.LastIndexByte(path[:i], '.') {
		sub, ok := asMap(doc[path[:i]])
		if !ok {
			continue
		}
		if v, ok := lookup(sub, path[i+1:]); ok {
			return v, true
		}
	}
	return nil, false
}

// asMap reads an embedded document of any map type keyed by strings (a
// document decoded from the store may carry the driver's named map type).
func asMap(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, true
}

// number reads a stored number of any numeric type, and booleans as 1/0.
func number(v any) (float64, bool) {
	if b, ok := v.(bool); ok {
		if b {
			return 1, true
		}
		return 0, true
	}
	if f, ok := result.Number(v); ok {
		return f, true
	}
	switch n := v.(type) {
	case float32:
		return float64(n), true
	case uint64:
		return float64(n), true
	}
	return 0, false
}

// worstP99 is the largest latency p99 of any operation type in an
// interval, or NaN when none was recorded.
func worstP99(iv result.Interval) float64 {
	w := math.NaN()
	for _, op := range iv.Ops {
		if op.Latency.P99 != nil && (math.IsNaN(w) || *op.Latency.P99 > w) {
			w = *op.Latency.P99
		}
	}
	return w
}
