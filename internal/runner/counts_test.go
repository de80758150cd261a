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

// TestMixNote: the mix achieved is each type's share of the operations
// completed or failed, beside the share stated; a type that never ran
// shows 0%.
func TestMixNote(t *testing.T) {
	ops := []result.OpStats{{Name: "read", Count: 590, Errors: result.Errors{Total: 10}}, {Name: "update", Count: 400}}
	got := MixNote(ops, map[string]float64{"read": 0.5, "update": 0.4, "scan": 0.1})
	if want := "mix achieved (stated): read 60.0% (50%), update 40.0% (40%), scan 0.0% (10%)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if MixNote(ops, nil) != "" || MixNote(nil, map[string]float64{"read": 1}) != "" {
		t.Error("a note without a stated mix, or without operations")
	}
}
