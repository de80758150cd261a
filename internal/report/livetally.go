package report

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
)

// LiveTally follows a measurement interval by interval for the progress
// line: the errors and late operations so far, and the last interval's
// throughput and p99.
type LiveTally struct {
	Total time.Duration // planned length of the measured phase; 0 when open-ended
	start time.Time
	errs  int64
	late  int64
}

// Add counts a closed interval and returns the progress line after it.
func (t *LiveTally) Add(iv *engine.Interval) string {
	if t.start.IsZero() {
		t.start = iv.Start
	}
	merged, ok := hist.New(), int64(0)
	for _, op := range iv.Ops {
		t.errs += op.Errors.Total() - op.PartErrors
		ok += op.Count - op.Parts
		if h, err := hist.FromDist(op.Latency); err == nil {
			_ = hist.Merge(merged, h)
		}
	}
	t.late += iv.Late
	return Live(LiveStatus{
		Elapsed: iv.Start.Add(iv.Length).Sub(t.start), Total: t.Total,
		OpsPerSec: float64(ok) / iv.Length.Seconds(), P99: hist.Percentile(merged, 99),
		Errors: t.errs, Late: t.late,
	})
}

// LiveSetup formats a setup progress line such as "preload 500/1000 (50%)".
func LiveSetup(stage string, done, total int64) string {
	return fmt.Sprintf("%s %d/%d (%.0f%%)", stage, done, total, 100*float64(done)/float64(max(total, 1)))
}
