package progress

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
)

// LiveTally shows a measurement interval by interval for the progress
// display: the last interval's throughput and p99 (the live line), the
// throughput and p99 of the intervals since the last status line (a
// log's lines), and the errors and late operations so far, which it
// reads from the run's tally.
type LiveTally struct {
	Total time.Duration // planned length of the measured phase; 0 when open-ended
	// Run is the run's tally, which the engine adds each interval to
	// before the interval reaches Add: the time, errors and late
	// operations so far are its.
	Run *engine.Tally
	// last is the interval shown last, which one handed again with its
	// Index replaces (the engine joins a short tail to the last interval).
	last    *engine.Interval
	pending []*engine.Interval // since the last status line
}

// Add shows a closed interval and returns the live line after it. An
// interval with the Index of the one before replaces it.
func (t *LiveTally) Add(iv *engine.Interval) string {
	pending := true
	if t.last != nil && t.last.Index == iv.Index {
		if n := len(t.pending); n > 0 && t.pending[n-1] == t.last {
			t.pending = t.pending[:n-1]
		} else {
			// The interval it replaces is in a status line already: the
			// few milliseconds joined to it are left to the summary, so
			// no line repeats that interval's operations.
			pending = false
		}
	}
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

// status is the state after the intervals ivs, the last ones shown:
// their successful operations per second (parts of operations left out)
// and p99, and the run's tally so far.
func (t *LiveTally) status(ivs []*engine.Interval) LiveStatus {
	v := t.Run.View()
	s := LiveStatus{Elapsed: v.Elapsed, Total: t.Total, Errors: v.Failed(), Late: v.Late}
	merged, ok, length := hist.New(), int64(0), time.Duration(0)
	for _, iv := range ivs {
		ok += iv.Completed() - iv.Failed()
		length += iv.Length
		for _, op := range iv.Ops {
			_ = hist.AddDist(merged, op.Latency) // a histogram that cannot be read leaves the p99 out
		}
	}
	s.P99 = hist.Percentile(merged, 99)
	if length > 0 {
		s.OpsPerSec = float64(ok) / length.Seconds()
	}
	return s
}

// LiveSetup formats a setup progress line such as "preload 500/1000 (50%)".
func LiveSetup(stage string, done, total int64) string {
	return fmt.Sprintf("%s %d/%d (%.0f%%)", stage, done, total, 100*float64(done)/float64(max(total, 1)))
}
