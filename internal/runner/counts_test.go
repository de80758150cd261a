package runner

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// countingTask counts every transaction it performs, like ledgerTask's
// "txns" or ycsbTask's "scanned".
type countingTask struct{ txns atomic.Int64 }

func (c *countingTask) Do(context.Context) (int, error) {
	time.Sleep(time.Millisecond)
	c.txns.Add(1)
	return 0, nil
}

func (c *countingTask) Counts() result.Counts { return result.Counts{Txns: result.Ptr(c.txns.Load())} }

// TestWorkloadCountsCoverTheMeasuredPhase: testResults holds the
// workload's own counts (txns, retries, aborts, scanned, notFound) next
// to nOps, over the same window: the tasks count from their first
// operation, so the counts at the measured phase's start (after the
// warm-up) are subtracted, and txns matches nOps within the operations in
// flight at that start.
func TestWorkloadCountsCoverTheMeasuredPhase(t *testing.T) {
	warmup := 300 * time.Millisecond
	r := &run{opts: Options{Scenario: &spec.Scenario{Warmup: spec.Duration(warmup)}}}
	cfg := engine.Config{Ops: []string{"txn"}, Workers: 1, Warmup: warmup, Count: 100, AtPhase: r.countsAt}
	res, err := engine.Run(context.Background(), cfg, func(int) (engine.Task, error) {
		task := &countingTask{}
		r.tasks = append(r.tasks, task)
		return task, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	counts := r.counts()
	counts.Sub(r.base)
	// An operation in flight when the phase begins (at most one per
	// worker) started in the warm-up, so nOps leaves it out while the
	// counts, taken from the phase's start, include its completion.
	if diff := *counts.Txns - res.Completed(); diff < 0 || diff > int64(cfg.Workers) {
		t.Errorf("testResults.txns = %d, nOps = %d: want the measured phase's counts (± the %d in flight at its start)",
			*counts.Txns, res.Completed(), cfg.Workers)
	}
}
