package main

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"time"
)

// Run describes one open-loop run against the responder: the schedule
// mongobench lays out (operation n intended at n/Rate from the run's
// start, measured when its intended start falls in [Warmup,
// Warmup+Duration)), the most operations it keeps in flight, and the
// responder's delay and stalls. The responder's origin is taken as the
// run's start (its first request is the run's first slot).
type Run struct {
	Rate     float64
	Warmup   time.Duration
	Duration time.Duration
	InFlight int // 0: unbounded
	Delay    time.Duration
	Stalls   Stalls
}

// Exact is the distribution an ideal client (one that sends each
// operation the moment it is due and a slot is free, and costs nothing)
// would measure: latency from the intended start, service time from the
// send, of every measured operation, sorted.
type Exact struct {
	Latency []time.Duration
	Service []time.Duration
	// Bound counts measured operations sent after their intended start
	// because every slot was busy (0 when the in-flight bound never
	// binds, the case the closed formula S − k/R + d describes).
	Bound int
}

// slots is a min-heap of the times in-flight slots become free.
type slots []time.Duration

func (h slots) Len() int           { return len(h) }
func (h slots) Less(i, j int) bool { return h[i] < h[j] }
func (h slots) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *slots) Push(x any)        { *h = append(*h, x.(time.Duration)) }
func (h *slots) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// intended returns the intended start of operation n, as mongobench's
// constant pacer computes it: from n, never accumulated.
func (r Run) intended(n int64) time.Duration {
	return time.Duration(float64(n) * float64(time.Second) / r.Rate)
}

// Compute simulates the run operation by operation. Slots are handed out
// in schedule order to the slot that frees first, as the engine does.
func (r Run) Compute() (Exact, error) {
	if r.Rate <= 0 || r.Duration <= 0 || r.Delay < 0 {
		return Exact{}, fmt.Errorf("run needs a positive rate and duration and a delay >= 0")
	}
	if err := r.Stalls.Validate(); err != nil {
		return Exact{}, err
	}
	end := r.Warmup + r.Duration
	var free slots
	if r.InFlight > 0 {
		free = make(slots, r.InFlight) // all free at the start
	}
	var ex Exact
	for n := int64(0); ; n++ {
		at := r.intended(n)
		if at >= end {
			break
		}
		sent := at
		if r.InFlight > 0 {
			if f := free[0]; f > at {
				sent = f
			}
		}
		done := r.Stalls.Reply(sent, r.Delay)
		if r.InFlight > 0 {
			free[0] = done
			heap.Fix(&free, 0)
		}
		if at < r.Warmup {
			continue
		}
		ex.Latency = append(ex.Latency, done-at)
		ex.Service = append(ex.Service, done-sent)
		if sent > at {
			ex.Bound++
		}
	}
	slices.Sort(ex.Latency)
	slices.Sort(ex.Service)
	return ex, nil
}

// Percentile returns the value at quantile q of sorted values, by nearest
// rank (the smallest value with at least q of the values at or below it),
// as an HDR histogram reports it up to its bucket precision. It is NaN
// for no values.
func Percentile(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(q * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return float64(sorted[rank-1]) / float64(time.Millisecond)
}
