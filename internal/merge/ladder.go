package merge

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Ladder keeps a run's intervals as they close in constant memory: at
// most max of them, each of a length on a nested ladder of multiples of
// the run's own interval (1, 2, 10, 20, 60, 120, 600, 1200, 3600 … of
// them: each length divides the next), so a coarser step only merges
// whole intervals of the step before. Merges keep the histograms, so
// every step, and the document's own coarsening after it (store.Fit),
// merges exactly. A run with at most max intervals keeps them as they
// are. The full-resolution intervals themselves go to the store as they
// close (the run's stream), not here.
type Ladder struct {
	base  time.Duration
	max   int
	step  int // index into ladderFactors: the current length is base × ladderFactors[:step]
	every time.Duration
	start time.Time // the first interval's start: slots count from it
	out   []result.Interval
	// held is the last interval taken: a run's closing tail may still
	// join it (the engine hands it again under the same index).
	held    *result.Interval
	heldIdx int
	// pending are the intervals of the open slot on a coarse step.
	pending []result.Interval
	full    int // full-resolution intervals taken
}

// ladderFactors are the ratios of consecutive lengths on the ladder.
var ladderFactors = []int{2, 5, 2, 3}

// NewLadder is a ladder of at most max intervals over intervals of base.
func NewLadder(base time.Duration, max int) *Ladder {
	return &Ladder{base: base, max: max, every: base}
}

// Add takes the interval of index i; an interval of the same index as
// the last one replaces it.
func (l *Ladder) Add(i int, iv result.Interval) error {
	if l.held == nil || l.heldIdx != i {
		l.full++
	}
	if l.held != nil && l.heldIdx != i {
		if err := l.keep(*l.held); err != nil {
			return err
		}
	}
	l.held, l.heldIdx = &iv, i
	return nil
}

// keep adds a closed interval. At the run's own length it is kept as it
// is; on a coarser step it joins the open slot (pending), which is
// merged, decoding each histogram once and encoding once, when an
// interval of a later slot arrives. The ladder steps up when it holds
// more than max.
func (l *Ladder) keep(iv result.Interval) error {
	if len(l.out) == 0 && len(l.pending) == 0 {
		l.start = iv.Start
	}
	if l.every == l.base {
		l.out = append(l.out, iv)
		return l.bound()
	}
	if len(l.pending) > 0 && slot(l.start, l.pending[0].Start, l.every) != slot(l.start, iv.Start, l.every) {
		if err := l.close(); err != nil {
			return err
		}
	}
	l.pending = append(l.pending, iv)
	return nil
}

// close merges the open slot into one kept interval.
func (l *Ladder) close() error {
	if len(l.pending) == 0 {
		return nil
	}
	m := l.pending[0]
	if len(l.pending) > 1 {
		var err error
		if m, err = timeMerge(l.pending, hist.Summarize); err != nil {
			return fmt.Errorf("interval at %s: %w", m.Start.Format(time.RFC3339), err)
		}
	}
	l.out, l.pending = append(l.out, m), l.pending[:0]
	return l.bound()
}

// bound steps the ladder up until it holds at most max intervals; the
// last kept interval reopens as the slot of the new length it falls in.
func (l *Ladder) bound() error {
	if len(l.out) <= l.max {
		return nil
	}
	for len(l.out) > l.max {
		l.every *= time.Duration(ladderFactors[l.step%len(ladderFactors)])
		l.step++
		out, err := coarseIntervals(l.start, l.out, l.every, hist.Summarize) // histograms kept: a later step merges them again
		if err != nil {
			return err
		}
		l.out = out
	}
	n := len(l.out)
	l.pending = append(l.pending[:0], l.out[n-1])
	l.out = l.out[:n-1]
	return nil
}

// Intervals are the intervals kept, the last one included; Every is
// their length (the run's own when it is not longer than the ladder) and
// Full how many full-resolution intervals were taken.
func (l *Ladder) Intervals() ([]result.Interval, error) {
	if l.held != nil {
		if err := l.keep(*l.held); err != nil {
			return nil, err
		}
		l.held = nil
	}
	if err := l.close(); err != nil {
		return nil, err
	}
	return l.out, nil
}

// Start is the first interval's start, from which the slots count.
func (l *Ladder) Start() time.Time { return l.start }

// Every is the length of the kept intervals.
func (l *Ladder) Every() time.Duration { return l.every }

// Full is how many full-resolution intervals the ladder took.
func (l *Ladder) Full() int { return l.full }
