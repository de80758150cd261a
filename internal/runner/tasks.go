package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/workload"
)

// dialers is how many workers' tasks are built at once. A task on the
// wire path dials a connection of its own: 10,000 workers connect in
// parallel, this many at a time, instead of one after another (about
// 170 a second).
const dialers = 32

// buildTasks builds the tasks of workers first, first+1, … first+n-1
// before the engine starts, dialers at a time, under ctx: Ctrl-C stops
// the dialling at once (a dial in flight ends with ctx) and closes the
// tasks already built. progress, when set, is told the connections made
// ("connecting").
func buildTasks(ctx context.Context, tasks workload.Tasks, first, n int, progress func(stage string, done, total int64)) ([]engine.Task, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]engine.Task, n)
	var mu sync.Mutex
	var failed error // the first worker's failure; the others it cancelled are not news
	next := make(chan int)
	var built atomic.Int64
	var wg sync.WaitGroup
	for range min(dialers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t, err := tasks.NewTask(ctx, first+i)
				if err != nil {
					mu.Lock()
					if failed == nil && ctx.Err() == nil {
						failed = fmt.Errorf("worker %d: %w", i, err)
					}
					mu.Unlock()
					cancel() // one failure stops the others: the run cannot start
					continue
				}
				out[i] = t
				if done := built.Add(1); progress != nil {
					progress("connecting", done, int64(n))
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	err := failed
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		closeTasks(out)
		return nil, err
	}
	return out, nil
}
