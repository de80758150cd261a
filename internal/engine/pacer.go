package engine

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// A Pacer lays out the open-loop schedule: At returns the intended start of
// operation n (counting from 0) as an offset from the start of the run. It
// is a pure function of n, never decreasing in n, so the schedule can find
// how many operations are due by any time without stepping through them.
// String names the pacer in the result. The engine calls At from one
// goroutine at a time.
type Pacer interface {
	At(n int64) time.Duration
	String() string
}

// maxOffset is the offset of a slot that never comes.
const maxOffset = time.Duration(math.MaxInt64)

// offset converts seconds to an offset, saturating at maxOffset.
func offset(sec float64) time.Duration {
	ns := sec * float64(time.Second)
	if !(ns < float64(math.MaxInt64)) { // NaN and +Inf too
		return maxOffset
	}
	return time.Duration(ns)
}

// Constant paces operations at a fixed rate per second. The n-th operation
// is due at n/rate seconds, computed from n rather than accumulated, so the
// schedule does not drift.
type Constant struct {
	Rate float64
}

var _ Pacer = Constant{}

// NewConstant returns a pacer of rate operations per second.
func NewConstant(rate float64) Constant { return Constant{Rate: rate} }

// At returns the intended start of operation n.
func (c Constant) At(n int64) time.Duration { return offset(float64(n) / c.Rate) }

func (c Constant) String() string { return fmt.Sprintf("constant %g/s", c.Rate) }

// Stage is one stage of a Stages pacer: over Length, the rate moves
// linearly from From to To operations per second. From == To is a step.
type Stage struct {
	Length   time.Duration
	From, To float64
}

// Stages paces operations through steps and ramps, one after the other;
// after the last stage its final rate holds. The number of operations due
// by time t is the integral of the rate up to t, and operation n is due
// when that integral reaches n, solved per stage from n.
type Stages struct {
	stages []Stage
	starts []time.Duration // offset at which each stage begins
	counts []float64       // operations due before each stage begins
}

var _ Pacer = (*Stages)(nil)

// NewStages returns a pacer over the given stages. Every length must be
// positive and every rate non-negative and finite.
func NewStages(stages ...Stage) (*Stages, error) {
	if len(stages) == 0 {
		return nil, fmt.Errorf("stages: none given")
	}
	p := &Stages{stages: stages}
	var at time.Duration
	var n float64
	for i, s := range stages {
		if s.Length <= 0 || !finiteRate(s.From) || !finiteRate(s.To) {
			return nil, fmt.Errorf("stage %d: want a positive length and finite rates >= 0, got %v from %g/s to %g/s", i+1, s.Length, s.From, s.To)
		}
		p.starts = append(p.starts, at)
		p.counts = append(p.counts, n)
		at += s.Length
		n += (s.From + s.To) / 2 * s.Length.Seconds()
	}
	return p, nil
}

func finiteRate(r float64) bool { return r >= 0 && !math.IsInf(r, 0) }

// At returns the intended start of operation n.
func (p *Stages) At(n int64) time.Duration {
	k := float64(n)
	i := sort.Search(len(p.counts), func(i int) bool { return p.counts[i] > k }) - 1
	s := p.stages[i]
	left := k - p.counts[i] // operations to go within stage i
	length := s.Length.Seconds()
	if i < len(p.stages)-1 || left <= (s.From+s.To)/2*length {
		return p.starts[i] + offset(solveRamp(s.From, s.To, length, left))
	}
	// past the last stage: its final rate holds
	left -= (s.From + s.To) / 2 * length
	if s.To == 0 {
		return maxOffset
	}
	return p.starts[i] + s.Length + offset(left/s.To)
}

// solveRamp returns the time t within a stage of the given length at which
// a rate moving linearly from r0 to r1 has made n operations due:
// r0·t + (r1−r0)·t²/(2·length) = n.
func solveRamp(r0, r1, length, n float64) float64 {
	if n <= 0 {
		return 0
	}
	a := (r1 - r0) / (2 * length)
	disc := r0*r0 + 4*a*n
	if disc < 0 {
		disc = 0 // rounding at a ramp's end
	}
	den := r0 + math.Sqrt(disc)
	if den <= 0 {
		return length
	}
	return 2 * n / den // the stable root of a·t² + r0·t − n = 0
}

// maxStagesNamed is how many stages a Stages pacer's String names.
const maxStagesNamed = 8

// String names the pacer: its first stages, then how many more there are.
func (p *Stages) String() string {
	named := p.stages[:min(len(p.stages), maxStagesNamed)]
	parts := make([]string, len(named))
	for i, s := range named {
		if s.From == s.To {
			parts[i] = fmt.Sprintf("%g/s for %v", s.From, s.Length)
		} else {
			parts[i] = fmt.Sprintf("%g→%g/s over %v", s.From, s.To, s.Length)
		}
	}
	if more := len(p.stages) - len(named); more > 0 {
		parts = append(parts, fmt.Sprintf("… and %d more stages", more))
	}
	return "stages " + strings.Join(parts, ", ")
}
