package engine

import (
	"fmt"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Tally is a run's one cumulative account of its measured phase, interval
// by interval: counts per operation type, errors by class, parts of
// operations counted apart, exact merges of the latency and service-time
// histograms, the measured time, late and dropped operations. The engine
// adds each closed interval before OnInterval is called with it, and the
// run's result is the tally once the phase has ended; the live line, the
// abort judge and the Prometheus publisher read the same tally, so no
// consumer of the interval stream derives a figure of its own.
//
// One goroutine adds (the engine's callback goroutine); any goroutine may
// read: View returns an immutable snapshot.
type Tally struct {
	mu sync.Mutex
	// view is the figures after the last interval added; base the figures
	// before it, which an interval re-sent under the same Index is added
	// to instead.
	view, base *TallyView
	err        error
}

// TallyView is a tally's figures at one moment. It never changes once
// returned, so its readers share it; they must not change its histograms.
type TallyView struct {
	// Ops is each operation type's figures, in Config.Ops order. Count
	// and Errors include the parts of other operations (Parts,
	// PartErrors), as the stored ops[] do.
	Ops []OpTotals
	// Intervals counts the intervals added, an interval re-sent under
	// the same Index once.
	Intervals int
	// Elapsed is the measured time so far: the intervals' total length.
	Elapsed time.Duration
	Late    int64
	Dropped int64
	MaxLag  time.Duration
	CPU     time.Duration
	// Last is the interval added last; nil before the first.
	Last *Interval
	// Done says the measured phase has ended; Partial that it was
	// stopped early. Planned is the phase's planned length for an open
	// loop bounded by a duration (0 otherwise): a complete phase's
	// achieved rate is taken over at least that long.
	Done, Partial bool
	Planned       time.Duration
	// closed says Service is Latency (closed loop: one histogram).
	closed bool
}

// NewTally returns an empty tally; the engine names its operation types
// when the run starts.
func NewTally() *Tally { return &Tally{} }

// begin empties the tally for a run of the operation types ops (in
// closed loop, where service time is latency, one histogram each).
func (t *Tally) begin(ops []string, planned time.Duration, closed bool) {
	v := &TallyView{Planned: planned, closed: closed}
	for _, name := range ops {
		op := OpTotals{Name: name, Latency: hist.New()}
		op.Service = op.Latency
		if !closed {
			op.Service = hist.New()
		}
		v.Ops = append(v.Ops, op)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.view, t.base, t.err = v, nil, nil
}

// Add counts a closed interval. An interval with the Index of the one
// added last replaces it (the engine re-sends the last interval when a
// short closing tail joins it). After an error (a histogram that cannot
// be decoded) the tally stays as it was and Add returns that error.
func (t *Tally) Add(iv *Interval) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	base := t.view
	if base == nil {
		base = &TallyView{}
	}
	if last := base.Last; last != nil && last.Index == iv.Index && t.base != nil {
		base = t.base
	}
	next, err := base.with(iv)
	if err != nil {
		t.err = fmt.Errorf("tally of interval %d: %w", iv.Index, err)
		return t.err
	}
	t.base, t.view = base, next
	return nil
}

// close marks the measured phase ended.
func (t *Tally) close(partial bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := *t.viewLocked()
	v.Done, v.Partial = true, partial
	t.view = &v
}

// View returns the figures after the last interval added.
func (t *Tally) View() *TallyView {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.viewLocked()
}

func (t *Tally) viewLocked() *TallyView {
	if t.view == nil {
		t.view = &TallyView{}
	}
	return t.view
}

// Err is why an interval could not be added; nil when every one was.
func (t *Tally) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// with returns v with iv added; v is left as it was. A histogram iv does
// not add to is shared with v (neither changes).
func (v *TallyView) with(iv *Interval) (*TallyView, error) {
	next := *v
	next.Ops = make([]OpTotals, len(v.Ops), max(len(v.Ops), len(iv.Ops)))
	copy(next.Ops, v.Ops)
	for _, op := range iv.Ops {
		i := next.op(op.Name)
		t := &next.Ops[i]
		t.Count += op.Count
		t.Errors.add(&op.Errors)
		t.Parts += op.Parts
		t.PartErrors += op.PartErrors
		var err error
		if t.Latency, err = addDist(t.Latency, op.Latency); err != nil {
			return nil, err
		}
		if v.closed {
			t.Service = t.Latency
		} else if t.Service, err = addDist(t.Service, op.Service); err != nil {
			return nil, err
		}
	}
	next.Intervals++
	next.Elapsed += iv.Length
	next.Late += iv.Late
	next.Dropped += iv.Dropped
	next.MaxLag = max(next.MaxLag, iv.MaxLag)
	next.CPU += iv.CPU
	last := *iv
	last.Ops = append([]IntervalOp(nil), iv.Ops...)
	next.Last = &last
	return &next, nil
}

// op returns the index of the operation type named, added when new.
func (v *TallyView) op(name string) int {
	for i := range v.Ops {
		if v.Ops[i].Name == name {
			return i
		}
	}
	v.Ops = append(v.Ops, OpTotals{Name: name})
	return len(v.Ops) - 1
}

// addDist returns a new histogram of h (nil: empty) merged with the one
// stored in d, or h itself when d holds nothing.
func addDist(h *hist.H, d result.Dist) (*hist.H, error) {
	if d.Count == 0 && h != nil {
		return h, nil
	}
	sum := hist.New()
	if h != nil {
		if err := hist.Merge(sum, h); err != nil {
			return nil, err
		}
	}
	return sum, hist.AddDist(sum, d)
}

// Completed is the number of operations that finished, with or without
// an error, parts of operations left out: the stored testResults.nOps.
func (v *TallyView) Completed() int64 { return completed(v.Ops) }

// Failed is the number of operations that finished with an error, parts
// of operations left out.
func (v *TallyView) Failed() int64 { return failed(v.Ops) }

// Span is the time the achieved rate is taken over: the measured time,
// and once a complete phase has ended at least its planned length.
func (v *TallyView) Span() time.Duration {
	if !v.Done {
		return v.Elapsed
	}
	return achievedSpan(v.Elapsed, v.Planned, v.Partial)
}

// AchievedRate is the completed operations per second over Span: the
// stored schedule.achievedRate once the phase has ended.
func (v *TallyView) AchievedRate() float64 { return perSecond(v.Completed(), v.Span()) }
