package report

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
)

// LiveTally follows a measurement interval by interval for the progress
// display: the errors and late operations so far, the last interval's
// throughput and p99 (the live line), and the throughput and p99 of the
// intervals since the last status line (a log's lines).
type LiveTally struct {
	Total time.Duration // planned length of the measured phase; 0 when open-ended
	start time.Time
	errs  int64
	late  int64
	// last is the interval counted last, which one handed again with its
	// Index replaces (the engine joins a short tail to the last interval).
	last    *engine.Interval
	pending []*engine.Interval // since the last status line
}

// Add counts a closed interval and returns the live line after it. An
// interval with the Index of the one before replaces it.
func (t *LiveTally) Add(iv *engine.Interval) string {
	if t.start.IsZero() {
		t.start = iv.Start
	}
	pending := true
	if t.last != nil && t.last.Index == iv.Index {
		e, _ := sums(t.last)
		t.errs -= e
		t.late -= t.last.Late
		if n := len(t.pending); n > 0 && t.pending[n-1] == t.last {
			t.pending = t.pending[:n-1]
		} else {
			// The interval it replaces is in a status line already: the
			// few milliseconds joined to it are left to the summary, so
			// no line repeats that interval's operations.
			pending = false
		}
	}
	e, _ := sums(iv)
	t.errs += e
	t.late += iv.Late
	t.last = iv
	if pending {
		t.pending = append(t.pending, iv)
	}
	return Live(t.status([]*engine.Interval{iv}))
}

// Since is how long the intervals since the last status line span.
func (t *LiveTally) Since() time.Duration {
	if len(t.pending) == 0 {
		return 0
	}
	first, last := t.pending[0], t.pending[len(t.pending)-1]
	return last.Start.Add(last.Length).Sub(first.Start)
}

// Line returns the status line over the intervals since the last one
// (their throughput and p99; errors and late so far), and false when no
// interval closed since.
func (t *LiveTally) Line() (string, bool) {
	if len(t.pending) == 0 {
		return "", false
	}
	line := Live(t.status(t.pending))
	t.pending = nil
	return line, true
}

// status is the state after the intervals ivs, the last ones counted:
// their throughput and p99, the errors and late operations so far.
func (t *LiveTally) status(ivs []*engine.Interval) LiveStatus {
	merged, ok, length := hist.New(), int64(0), time.Duration(0)
	for _, iv := range ivs {
		_, n := sums(iv)
		ok += n
		length += iv.Length
		for _, op := range iv.Ops {
			if h, err := hist.FromDist(op.Latency); err == nil {
				_ = hist.Merge(merged, h)
			}
		}
	}
	last := ivs[len(ivs)-1]
	s := LiveStatus{Elapsed: last.Start.Add(last.Length).Sub(t.start), Total: t.Total,
		P99: hist.Percentile(merged, 99), Errors: t.errs, Late: t.late}
	if length > 0 {
		s.OpsPerSec = float64(ok) / length.Seconds()
	}
	return s
}

// sums returns an interval's failed and successful operations; parts of
// operations (YCSB's measurerwparts) are not operations of their own.
func sums(iv *engine.Interval) (errs, ok int64) {
	for _, op := range iv.Ops {
		errs += op.Errors.Total() - op.PartErrors
		ok += op.Count - op.Parts
	}
	return errs, ok
}

// LiveSetup formats a setup progress line such as "preload 500/1000 (50%)".
func LiveSetup(stage string, done, total int64) string {
	return fmt.Sprintf("%s %d/%d (%.0f%%)", stage, done, total, 100*float64(done)/float64(max(total, 1)))
}
