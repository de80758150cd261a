package engine

import (
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
)

// opRec is what a worker records for one operation type in the current
// interval. In closed loop, svc is lat: latency equals service time.
type opRec struct {
	lat, svc *hist.H
	count    int64
	errs     ErrorCounts
	// parts and partErrs count the successes and failures of count and
	// errs that were parts of other operations (Parts).
	parts, partErrs int64
}

// workerRec is one worker's recordings for the current interval. Its owner
// records under mu; the coordinator drains it under mu at each interval.
type workerRec struct {
	mu      sync.Mutex
	ops     []opRec
	lag     *hist.H // open loop: intended start to actual send
	sent    int64
	late    int64
	dropped int64
	maxLag  time.Duration
	closed  bool
	// parts records the parts of the worker's operations (PartsTask);
	// nil when its task has none.
	parts *Parts
}

func newWorkerRec(nOps int, closed bool) *workerRec {
	w := &workerRec{ops: make([]opRec, nOps), closed: closed}
	if !closed {
		w.lag = hist.New()
	}
	return w
}

// success records a successful operation, or part of one.
func (w *workerRec) success(op int, lat, svc time.Duration, part bool) {
	w.mu.Lock()
	r := &w.ops[op]
	if r.lat == nil {
		r.alloc(w.closed)
	}
	r.count++
	if part {
		r.parts++
	}
	hist.Record(r.lat, lat)
	if !w.closed {
		hist.Record(r.svc, svc)
	}
	w.mu.Unlock()
}

func (r *opRec) alloc(closed bool) {
	r.lat = hist.New()
	r.svc = r.lat
	if !closed {
		r.svc = hist.New()
	}
}

func (w *workerRec) failure(op int, c Class, part bool) {
	w.mu.Lock()
	w.ops[op].errs[c]++
	if part {
		w.ops[op].partErrs++
	}
	w.mu.Unlock()
}

// sent1 records an operation sent lag behind its intended start.
func (w *workerRec) sent1(lag time.Duration, late bool) {
	w.mu.Lock()
	hist.Record(w.lag, lag)
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

// drainInto moves the worker's interval recordings into agg and resets
// them.
func (w *workerRec) drainInto(agg *intervalAgg) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range w.ops {
		if err := agg.ops[i].take(&w.ops[i], w.closed); err != nil {
			return err
		}
	}
	if w.lag != nil && w.lag.TotalCount() > 0 {
		if err := hist.Merge(agg.lag, w.lag); err != nil {
			return err
		}
		w.lag.Reset()
	}
	agg.sent += w.sent
	agg.late += w.late
	agg.dropped += w.dropped
	agg.maxLag = max(agg.maxLag, w.maxLag)
	w.sent, w.late, w.dropped, w.maxLag = 0, 0, 0, 0
	return nil
}

// take moves src into r.
func (r *opRec) take(src *opRec, closed bool) error {
	r.count += src.count
	r.errs.add(&src.errs)
	r.parts += src.parts
	r.partErrs += src.partErrs
	src.count, src.errs, src.parts, src.partErrs = 0, ErrorCounts{}, 0, 0
	if src.lat == nil || src.lat.TotalCount() == 0 {
		return nil
	}
	if err := hist.Merge(r.lat, src.lat); err != nil {
		return err
	}
	src.lat.Reset()
	if closed {
		return nil
	}
	if err := hist.Merge(r.svc, src.svc); err != nil {
		return err
	}
	src.svc.Reset()
	return nil
}

// intervalAgg gathers every worker's recordings for one interval.
type intervalAgg struct {
	ops     []opRec
	lag     *hist.H
	sent    int64
	late    int64
	dropped int64
	maxLag  time.Duration
}

func newIntervalAgg(nOps int, closed bool) *intervalAgg {
	a := &intervalAgg{ops: make([]opRec, nOps), lag: hist.New()}
	for i := range a.ops {
		a.ops[i].alloc(closed)
	}
	return a
}

func (a *intervalAgg) reset() {
	for i := range a.ops {
		r := &a.ops[i]
		r.lat.Reset()
		r.svc.Reset()
		r.count, r.errs, r.parts, r.partErrs = 0, ErrorCounts{}, 0, 0
	}
	a.lag.Reset()
	a.sent, a.late, a.dropped, a.maxLag = 0, 0, 0, 0
}
