package study

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Thread calibration for closed loop (mongobench calibrate).
//
// The same workload runs closed loop with more and more client threads
// (1, 2, 4, 8, … by default). Past the knee, more threads add queueing,
// not throughput: a step is past the knee when its throughput gained less
// than MinGain (5% by default) over the step before and its p99 rose (or
// was not recorded). The knee is the step before it: the fewest threads
// that reach the plateau. The search stops at the first step past the
// knee, or at Max threads.

// DefaultMinGain is the smallest throughput gain that still counts as
// rising.
const DefaultMinGain = 0.05

// ThreadStep is one closed-loop run of a calibration.
type ThreadStep struct {
	RunID    string
	Threads  int
	Achieved float64  // completed operations per second
	P99      *float64 // the highest p99 over the operation types, ms
	Errors   int64
	Partial  bool
}

// ThreadStepOf reads a ThreadStep from a closed-loop result document.
func ThreadStepOf(d *result.Doc) ThreadStep {
	s := ThreadStep{RunID: d.RunID, Threads: d.Schedule.Workers, Achieved: d.Schedule.AchievedRate, Partial: d.Partial}
	for _, op := range d.Ops {
		_, failed := op.Whole()
		s.Errors += failed
		if p := op.Latency.P99; p != nil && (s.P99 == nil || *p > *s.P99) {
			v := *p
			s.P99 = &v
		}
	}
	return s
}

// Calibration is the thread search.
type Calibration struct {
	Start, Factor, Max int
	MinGain            float64 // 0 means DefaultMinGain
}

func (c Calibration) minGain() float64 {
	if c.MinGain == 0 {
		return DefaultMinGain
	}
	return c.MinGain
}

// Gain is step i's throughput over step i−1's, minus 1; nil for the first
// step or after a step with no throughput.
func Gain(steps []ThreadStep, i int) *float64 {
	if i == 0 || steps[i-1].Achieved == 0 {
		return nil
	}
	g := steps[i].Achieved/steps[i-1].Achieved - 1
	return &g
}

// pastKnee reports whether step i gained less than the minimum over step
// i−1 while its p99 rose or was not recorded.
func (c Calibration) pastKnee(steps []ThreadStep, i int) bool {
	g := Gain(steps, i)
	if g == nil || *g >= c.minGain() {
		return false
	}
	prev, cur := steps[i-1].P99, steps[i].P99
	return prev == nil || cur == nil || *cur > *prev
}

// Knee returns the index of the knee among steps (in the order run), and
// whether one was found.
func (c Calibration) Knee(steps []ThreadStep) (int, bool) {
	for i := 1; i < len(steps); i++ {
		if c.pastKnee(steps, i) {
			return i - 1, true
		}
	}
	return 0, false
}

// Next returns the thread count to run after the trials, or false when
// the search is over: a knee was found, or Max was reached.
func (c Calibration) Next(tried []Trial) (float64, bool) {
	if len(tried) == 0 {
		return float64(c.Start), c.Start > 0 && c.Start <= c.Max
	}
	steps := make([]ThreadStep, len(tried))
	for i, t := range tried {
		steps[i] = ThreadStep{Threads: int(t.Value), Achieved: t.Achieved, P99: t.P99}
	}
	if _, ok := c.Knee(steps); ok {
		return 0, false
	}
	last := steps[len(steps)-1].Threads
	if last >= c.Max {
		return 0, false
	}
	return float64(min(max(last*c.Factor, last+1), c.Max)), true
}

// trial is the step as a search sees it.
func (s ThreadStep) trial() Trial {
	return Trial{Value: float64(s.Threads), Held: true, Achieved: s.Achieved, P99: s.P99}
}

// SignedGain formats a calibration step's gain, as in "+2.1%".
func SignedGain(g float64) string { return SignedPercent(1 + g) }

// KneeLine states the knee, as in "Knee: 8 threads, 5,930 ops/s, p99 4.10
// ms; 16 threads gained +2.1% with p99 9.80 ms.", or that none was found.
func KneeLine(steps []ThreadStep, c Calibration) string {
	if len(steps) == 0 {
		return "No steps ran."
	}
	knee, found := c.Knee(steps)
	if !found {
		last := steps[len(steps)-1]
		return fmt.Sprintf("No knee up to %d threads: throughput still rose by at least %s%% a step (or p99 did not climb); the highest was %s ops/s.",
			last.Threads, Percent(c.minGain()), thousands(best(steps)))
	}
	k, next := steps[knee], steps[knee+1]
	return fmt.Sprintf("Knee: %s, %s ops/s, p99 %s; %s gained %s with p99 %s.",
		texttable.Plural(int64(k.Threads), "thread"), thousands(k.Achieved), p99Text(k.P99), texttable.Plural(int64(next.Threads), "thread"),
		SignedGain(*Gain(steps, knee+1)), p99Text(next.P99))
}

func best(steps []ThreadStep) float64 {
	var out float64
	for _, s := range steps {
		out = max(out, s.Achieved)
	}
	return out
}

func p99Text(p *float64) string {
	if p == nil {
		return "not recorded"
	}
	return sig3(*p) + " ms"
}
