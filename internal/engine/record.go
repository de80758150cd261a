package engine

import (
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
)

// sample is one successful operation as a worker records it: its type,
// latency and (open loop) service time, and whether it was a part of
// another operation (Parts).
type sample struct {
	op       int32
	part     bool
	lat, svc time.Duration
	rlag     time.Duration // receive lag (ReplyTimed); -1 when unknown
}

// workerRec is one worker's recordings for the current interval. Its owner
// appends under mu; the coordinator swaps the buffers out under mu at each
// interval and records them into the interval's histograms on its own
// goroutine. A worker keeps no histogram: recording a value costs an
// append, and nothing per worker is merged or cleared at each interval
// (clearing 64 workers' histograms of ~190 KB each every second costs
// more than the operations they record at a few thousand a second).
type workerRec struct {
	mu      sync.Mutex
	samples []sample
	lags    []time.Duration // open loop: intended start to actual send
	errs    []ErrorCounts   // per operation type
	// partErrs counts the failures of errs that were parts of other
	// operations, per operation type.
	partErrs []int64
	sent     int64
	late     int64
	dropped  int64
	maxLag   time.Duration
	// parts records the parts of the worker's operations (PartsTask);
	// nil when its task has none.
	parts *Parts
}

func newWorkerRec(nOps int) *workerRec {
	return &workerRec{errs: make([]ErrorCounts, nOps), partErrs: make([]int64, nOps)}
}

// success records a successful operation, or part of one.
func (w *workerRec) success(op int, lat, svc time.Duration, part bool, rlag time.Duration) {
	w.mu.Lock()
	w.samples = append(w.samples, sample{op: int32(op), part: part, lat: lat, svc: svc, rlag: rlag})
	w.mu.Unlock()
}

func (w *workerRec) failure(op int, c Class, part bool) {
	w.mu.Lock()
	w.errs[op][c]++
	if part {
		w.partErrs[op]++
	}
	w.mu.Unlock()
}

// sent1 records an operation sent lag behind its intended start.
func (w *workerRec) sent1(lag time.Duration, late bool) {
	w.mu.Lock()
	w.lags = append(w.lags, lag)
	w.sent++
	w.maxLag = max(w.maxLag, lag)
	if late {
		w.late++
	}
	w.mu.Unlock()
}

// drop records n measured operations dropped, the oldest lag behind its
// intended start.
func (w *workerRec) drop(n int64, lag time.Duration) {
	w.mu.Lock()
	w.dropped += n
	w.maxLag = max(w.maxLag, lag)
	w.mu.Unlock()
}

// drainInto moves the worker's interval recordings into agg. The worker's
// buffers are swapped with agg's spare ones under the lock and recorded
// after it, so the worker waits for two slice swaps, not for the
// recording.
func (w *workerRec) drainInto(agg *intervalAgg) {
	w.mu.Lock()
	samples, lags := w.samples, w.lags
	w.samples, w.lags = agg.spareSamples[:0], agg.spareLags[:0]
	for i := range w.errs {
		agg.ops[i].errs.add(&w.errs[i])
		agg.ops[i].partErrs += w.partErrs[i]
		w.errs[i], w.partErrs[i] = ErrorCounts{}, 0
	}
	agg.sent += w.sent
	agg.late += w.late
	agg.dropped += w.dropped
	agg.maxLag = max(agg.maxLag, w.maxLag)
	w.sent, w.late, w.dropped, w.maxLag = 0, 0, 0, 0
	w.mu.Unlock()
	agg.record(samples, lags)
	agg.spareSamples, agg.spareLags = samples, lags
}

// opRec is one operation type's recordings in an interval. In closed
// loop, svc is lat: latency equals service time.
type opRec struct {
	lat, svc *hist.H
	count    int64
	errs     ErrorCounts
	// parts and partErrs count the successes and failures of count and
	// errs that were parts of other operations (Parts).
	parts, partErrs int64
}

// intervalAgg gathers every worker's recordings for one interval.
type intervalAgg struct {
	ops     []opRec
	closed  bool
	lag     *hist.H
	rlag    *hist.H // receive lag of the samples whose reply time is known
	sent    int64
	late    int64
	dropped int64
	maxLag  time.Duration
	// The buffers handed to the next worker drained: each drained
	// worker's own, emptied, so buffers circulate and none is allocated
	// once they have grown to an interval's worth.
	spareSamples []sample
	spareLags    []time.Duration
}

func newIntervalAgg(nOps int, closed bool) *intervalAgg {
	a := &intervalAgg{ops: make([]opRec, nOps), closed: closed, lag: hist.New(), rlag: hist.New()}
	for i := range a.ops {
		r := &a.ops[i]
		r.lat = hist.New()
		r.svc = r.lat
		if !closed {
			r.svc = hist.New()
		}
	}
	return a
}

// record adds a worker's samples and send lags to the interval.
func (a *intervalAgg) record(samples []sample, lags []time.Duration) {
	for _, s := range samples {
		r := &a.ops[s.op]
		r.count++
		if s.part {
			r.parts++
		}
		hist.Record(r.lat, s.lat)
		if !a.closed {
			hist.Record(r.svc, s.svc)
		}
		if s.rlag >= 0 {
			hist.Record(a.rlag, s.rlag)
		}
	}
	for _, l := range lags {
		hist.Record(a.lag, l)
	}
}

func (a *intervalAgg) reset() {
	for i := range a.ops {
		r := &a.ops[i]
		if r.count > 0 {
			r.lat.Reset()
			r.svc.Reset()
		}
		r.count, r.errs, r.parts, r.partErrs = 0, ErrorCounts{}, 0, 0
	}
	if a.lag.TotalCount() > 0 {
		a.lag.Reset()
	}
	if a.rlag.TotalCount() > 0 {
		a.rlag.Reset()
	}
	a.sent, a.late, a.dropped, a.maxLag = 0, 0, 0, 0
}
