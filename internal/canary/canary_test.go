package canary

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

var small = Sizes{CPUSteps: 100_000, CPURepeats: 3, MemMB: 4, MemReads: 100_000, MemRepeats: 2, RoundTrips: 200, Wakes: 50, WakeAfter: 100 * time.Microsecond}

// Every probe gives its figures, each positive, and none says a problem.
func TestTakeGivesEveryFigure(t *testing.T) {
	c, err := Take(context.Background(), small)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatalf("problems: %v", c.Problems)
	}
	for _, f := range result.CanaryFigures {
		v := f.Value(c)
		if v == nil || *v <= 0 {
			t.Errorf("%s = %v, want a positive figure", f.Name, v)
		}
	}
	if *c.CPUWorstNs < *c.CPUNs {
		t.Errorf("slowest repeat %v below the median %v", *c.CPUWorstNs, *c.CPUNs)
	}
	if *c.LoopbackP99Us < *c.LoopbackP50Us || *c.WakeP99Us < *c.WakeP50Us {
		t.Errorf("a p99 below its p50: %+v", c)
	}
	if c.MemMB != 4 || c.Seconds <= 0 || c.At.IsZero() {
		t.Errorf("canary %+v: want memMB 4, its time and duration", c)
	}
}

// A cancelled context ends the canary at once with the context's error.
func TestTakeEndsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := Default
	big.CPUSteps = 1 << 40
	if _, err := Take(ctx, big); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// The memory walk visits every slot once before it returns to the first.
func TestCycleIsOneCycle(t *testing.T) {
	next := cycle(1000)
	seen := make([]bool, len(next))
	i := uint32(0)
	for range len(next) {
		if seen[i] {
			t.Fatalf("slot %d visited twice", i)
		}
		seen[i] = true
		i = next[i]
	}
	if i != 0 {
		t.Fatalf("after %d steps at %d, want back at 0", len(next), i)
	}
}
