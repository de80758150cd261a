package lab

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// AbortSettle is how long a run measures, at most, before its cumulative
// figures stand for --abort-on-fail: a latency, error-share or rate
// threshold that fails on them after the shorter of this and half the
// measured phase stops the run.
const AbortSettle = 10 * time.Second

// abortWatch follows a run's closed intervals for --abort-on-fail: it
// keeps the cumulative figures of the measured phase (counts, errors and
// exact merges of the histograms), judges the thresholds on them after
// every interval, and stops the run (cancel) the first time one cannot
// hold.
type abortWatch struct {
	ts      []threshold.Threshold
	rate    float64 // target rate; 0 closed loop
	settle  time.Duration
	cancel  context.CancelFunc
	elapsed time.Duration
	ops     []*cumOp

	mu     sync.Mutex
	reason string // why the run was stopped; "" while it runs
}

// cumOp is one operation type's cumulative figures.
type cumOp struct {
	name          string
	count         int64
	errs          result.Errors
	latency, svcs *hist.H
}

func newAbortWatch(sc *spec.Scenario, ts []threshold.Threshold, cancel context.CancelFunc) *abortWatch {
	settle := AbortSettle
	if d := time.Duration(sc.Duration); d > 0 {
		settle = min(settle, d/2)
	}
	return &abortWatch{ts: ts, rate: float64(sc.Rate), settle: settle, cancel: cancel}
}

// interval adds a closed interval and stops the run when a threshold can
// no longer hold. The engine calls it in order, on one goroutine.
func (w *abortWatch) interval(iv *engine.Interval) {
	if w.stopped() != "" {
		return
	}
	w.elapsed += iv.Length
	for _, op := range iv.Ops {
		if err := w.add(op); err != nil {
			return // a histogram that cannot be read judges nothing
		}
	}
	d := w.doc()
	failed := threshold.CannotHold(w.ts, d, w.elapsed >= w.settle)
	if len(failed) == 0 {
		return
	}
	w.mu.Lock()
	w.reason = fmt.Sprintf("aborted after %s of the measured phase: %s cannot hold", w.elapsed.Round(time.Millisecond), VerdictList(failed))
	w.mu.Unlock()
	w.cancel()
}

// add merges one interval's figures of an operation type.
func (w *abortWatch) add(iv engine.IntervalOp) error {
	var c *cumOp
	for _, op := range w.ops {
		if op.name == iv.Name {
			c = op
		}
	}
	if c == nil {
		c = &cumOp{name: iv.Name, latency: hist.New(), svcs: hist.New()}
		w.ops = append(w.ops, c)
	}
	c.count += iv.Count
	c.errs = c.errs.Add(iv.Errors.Result())
	for _, m := range []struct {
		dst *hist.H
		d   result.Dist
	}{{c.latency, iv.Latency}, {c.svcs, iv.Service}} {
		h, err := hist.FromDist(m.d)
		if err != nil {
			return err
		}
		if err := hist.Merge(m.dst, h); err != nil {
			return err
		}
	}
	return nil
}

// doc is the cumulative figures as a result document, for the
// thresholds to judge.
func (w *abortWatch) doc() *result.Doc {
	d := &result.Doc{Duration: float64(w.elapsed) / float64(time.Millisecond), Schedule: result.Schedule{Mode: "closed"}}
	var completed int64
	for _, c := range w.ops {
		lat, err1 := hist.Summarize(c.latency)
		svc, err2 := hist.Summarize(c.svcs)
		if err1 != nil || err2 != nil {
			continue
		}
		d.Ops = append(d.Ops, result.OpStats{Name: c.name, Count: c.count, Errors: c.errs, Latency: lat, Service: svc})
		completed += c.count + c.errs.Total
	}
	if w.rate > 0 {
		d.Schedule.Mode, d.Schedule.TargetRate = "open", &w.rate
	}
	if w.elapsed > 0 {
		d.Schedule.AchievedRate = float64(completed) / w.elapsed.Seconds()
	}
	return d
}

// stopped returns why the run was stopped, "" when it was not.
func (w *abortWatch) stopped() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason
}

// mark says in the partial result that it was stopped by a threshold,
// not by Ctrl-C.
func (w *abortWatch) mark(d *result.Doc) {
	reason := w.stopped()
	if reason == "" || d == nil || !d.Partial {
		return
	}
	d.PartialReason = reason
	if rest, ok := strings.CutPrefix(d.Client.NotJudged, "interrupted"); ok {
		d.Client.NotJudged = "aborted on a threshold" + rest
	}
}

// abortOn returns the context a run measures under and, with
// --abort-on-fail and thresholds to judge, the watch that stops it; the
// watch is nil otherwise, and its methods then do nothing.
func abortOn(ctx context.Context, sc *spec.Scenario, ts []threshold.Threshold, abort bool) (context.Context, *abortWatch, context.CancelFunc) {
	if !abort || len(ts) == 0 {
		return ctx, nil, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	return ctx, newAbortWatch(sc, ts, cancel), cancel
}

// wrap makes f, the live line's interval callback, feed the watch too.
func (w *abortWatch) wrap(f func(*engine.Interval)) func(*engine.Interval) {
	if w == nil {
		return f
	}
	return func(iv *engine.Interval) {
		w.interval(iv)
		f(iv)
	}
}
