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
// to nOps, over the same operations: each worker's counts at its first
// measured operation are its warm-up's, so txns equals nOps exactly, also
// when some workers never get a measured operation (a count smaller than
// the workers) and whatever the engine's own goroutine was doing when the
// phase began.
func TestWorkloadCountsCoverTheMeasuredPhase(t *testing.T) {
	for _, count := range []int64{3, 100} {
		warmup := 200 * time.Millisecond
		r := &run{opts: Options{Scenario: &spec.Scenario{Warmup: spec.Duration(warmup)}}}
		cfg := engine.Config{Ops: []string{"txn"}, Workers: 4, Warmup: warmup, Count: count,
			AtPhase: r.countsAt, AtWorkerMeasured: r.workerMeasured}
		var tasks []engine.Task
		for range cfg.Workers {
			task := &countingTask{}
			r.tasks, tasks = append(r.tasks, task), append(tasks, task)
		}
		r.bases = make([]*result.Counts, len(r.tasks))
		res, err := engine.Run(context.Background(), cfg, func(w int) (engine.Task, error) { return tasks[w], nil })
		if err != nil {
			t.Fatal(err)
		}
		var warm int64
		for _, task := range tasks {
			warm += task.(*countingTask).txns.Load()
		}
		counts := r.counts()
		if *counts.Txns != res.Completed() || res.Completed() != count {
			t.Errorf("count %d: testResults.txns = %d, nOps = %d: want both %d (the tasks counted %d with the warm-up)",
				count, *counts.Txns, res.Completed(), count, warm)
		}
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
