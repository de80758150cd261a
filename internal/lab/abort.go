package lab

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
)

// AbortSettle is how long a run measures, at most, before its cumulative
// figures stand for --abort-on-fail: a latency, error-share or rate
// threshold that fails on them after the shorter of this and half the
// measured phase stops the run.
const AbortSettle = 10 * time.Second

// abortWatch judges a run's thresholds for --abort-on-fail on the
// cumulative figures of its measured phase, read from the run's tally
// after every interval, and stops the run (cancel) the first time one
// cannot hold.
type abortWatch struct {
	ts     []threshold.Threshold
	rate   float64 // target rate; 0 closed loop
	settle time.Duration
	cancel context.CancelFunc
	tally  *engine.Tally
	judged func(threshold.Figures) // told each run's figures judged; nil: no one

	mu     sync.Mutex
	reason string // why the run was stopped; "" while it runs
}

func newAbortWatch(sc *spec.Scenario, ts []threshold.Threshold, cancel context.CancelFunc, tally *engine.Tally) *abortWatch {
	settle := AbortSettle
	if d := time.Duration(sc.Duration); d > 0 {
		settle = min(settle, d/2)
	}
	return &abortWatch{ts: ts, rate: float64(sc.Rate), settle: settle, cancel: cancel, tally: tally}
}

// interval judges the tally after a closed interval and stops the run
// when a threshold can no longer hold. The engine calls it in order, on
// one goroutine, after adding the interval to the tally.
func (w *abortWatch) interval(*engine.Interval) {
	if w.stopped() != "" {
		return
	}
	v := w.tally.View()
	d, err := w.figures(v)
	if err != nil {
		return // a histogram that cannot be read judges nothing
	}
	if w.judged != nil {
		w.judged(d)
	}
	failed := threshold.CannotHold(w.ts, d, v.Elapsed >= w.settle)
	if len(failed) == 0 {
		return
	}
	w.mu.Lock()
	w.reason = fmt.Sprintf("aborted after %s of the measured phase: %s cannot hold", v.Elapsed.Round(time.Millisecond), study.VerdictList(failed))
	w.mu.Unlock()
	w.cancel()
}

// figures are the tally's figures the thresholds read: its operations
// and achieved rate as the stored document will have them.
func (w *abortWatch) figures(v *engine.TallyView) (threshold.Figures, error) {
	f := threshold.Figures{Measured: v.Elapsed > 0, AchievedRate: v.AchievedRate()}
	for i := range v.Ops {
		s, err := v.Ops[i].Result(v.Elapsed)
		if err != nil {
			return f, err
		}
		f.Ops = append(f.Ops, s)
	}
	if w.rate > 0 {
		f.TargetRate = &w.rate
	}
	return f, nil
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
// --abort-on-fail and thresholds to judge, the watch that stops it,
// judging the run's tally; the watch is nil otherwise, and its methods
// then do nothing.
func abortOn(ctx context.Context, sc *spec.Scenario, ts []threshold.Threshold, abort bool, tally *engine.Tally, judged func(threshold.Figures)) (context.Context, *abortWatch, context.CancelFunc) {
	if !abort || len(ts) == 0 {
		return ctx, nil, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	w := newAbortWatch(sc, ts, cancel, tally)
	w.judged = judged
	return ctx, w, cancel
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
