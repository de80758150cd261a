package runner

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/workload"
)

// dialTask stands for a task holding a connection of its own.
type dialTask struct{ closed *atomic.Int64 }

func (dialTask) Do(context.Context) (int, error) { return 0, nil }
func (t dialTask) Close() error                  { t.closed.Add(1); return nil }

// 10,000 workers' tasks are built dialers at a time under the run's
// context: cancelling it (Ctrl-C) during the dialling returns at once and
// closes the connections made (they were dialled one after another on a
// context never cancelled, 35 s past SIGINT); the first failure of a
// worker is the error, once.
func TestBuildTasksStopsWithTheContext(t *testing.T) {
	var built, closed, inFlight, most atomic.Int64
	tasks := workload.TasksFunc(func(ctx context.Context, worker int) (engine.Task, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select { // a dial of 50 ms, or until the run is stopped
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		built.Add(1)
		return dialTask{&closed}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	var progress atomic.Int64
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := buildTasks(ctx, tasks, 0, 10_000, func(stage string, done, total int64) {
		if stage == "connecting" && total == 10_000 {
			progress.Store(done)
		}
	})
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) || took > time.Second {
		t.Fatalf("got %v after %v, want context.Canceled soon after 300ms", err, took)
	}
	if b, c := built.Load(), closed.Load(); b == 0 || b > 1000 || c != b {
		t.Errorf("built %d tasks, closed %d: want some (dialled in parallel), every one closed", b, c)
	}
	if m := most.Load(); m < 2 || m > dialers {
		t.Errorf("%d dials at once, want in parallel and at most %d", m, dialers)
	}
	if progress.Load() == 0 {
		t.Error("no connecting progress reported")
	}

	failing := workload.TasksFunc(func(ctx context.Context, worker int) (engine.Task, error) {
		if worker == 7 {
			return nil, errors.New("connection refused")
		}
		select {
		case <-time.After(10 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return dialTask{&closed}, nil
	})
	_, err = buildTasks(context.Background(), failing, 0, 1000, nil)
	if err == nil || err.Error() != "worker 7: connection refused" {
		t.Errorf("got %v, want the one failure", err)
	}
	if strings.Contains(errString(err), "canceled") {
		t.Errorf("the failure's cancellation of the others shows: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
