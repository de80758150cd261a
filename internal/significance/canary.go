package significance

import (
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// A canary figure moved between two sides when the ratio of the sides'
// medians is at least CanaryRatio (either way) and they differ by at
// least the figure's floor: a host figure half as large again is a busier
// host, not a wobble.
const CanaryRatio = 1.5

// canaryFloor is the smallest difference that counts, per figure: below
// it, the figure is within what a shared host gives from one canary to
// the next (a p99 of a thousand round trips moves by a hundred
// microseconds when nothing else changed; a busy core beside the client
// moves it by several hundred: bench/RESULTS.md).
var canaryFloor = map[string]float64{
	"cpuNsPerStep":  0.5,
	"memNsPerRead":  50,
	"loopbackP50Us": 10,
	"loopbackP99Us": 200,
	"wakeLateP50Us": 10,
	"wakeLateP99Us": 200,
}

// CanaryShift is one canary figure on two sides: each side's median over
// its readings (nil where no reading has it) and whether it moved.
type CanaryShift struct {
	Figure, Unit string
	A, B         *float64
	Moved        bool
}

// Canaries compares two sides' canary readings figure by figure.
func Canaries(a, b []result.Canary) []CanaryShift {
	var out []CanaryShift
	for _, f := range result.CanaryFigures {
		s := CanaryShift{Figure: f.Name, Unit: f.Unit, A: canaryMedian(a, f), B: canaryMedian(b, f)}
		if s.A != nil && s.B != nil && *s.A > 0 && *s.B > 0 {
			r := *s.B / *s.A
			s.Moved = (r >= CanaryRatio || r <= 1/CanaryRatio) && math.Abs(*s.B-*s.A) >= canaryFloor[f.Name]
		}
		out = append(out, s)
	}
	return out
}

func canaryMedian(cs []result.Canary, f result.CanaryFigure) *float64 {
	var v []float64
	for _, c := range cs {
		if x := f.Value(c); x != nil {
			v = append(v, *x)
		}
	}
	if len(v) == 0 {
		return nil
	}
	return result.F(Median(v))
}

// HostMoved words the shifts: "" when no figure moved (or either side has
// no canary), else which side's client host was the noisier, with the
// figures that say so.
func HostMoved(shifts []CanaryShift, nameA, nameB string) string {
	var worseA, worseB []string
	for _, s := range shifts {
		if !s.Moved {
			continue
		}
		w := fmt.Sprintf("%s %s → %s %s", s.Figure, canaryNum(*s.A), canaryNum(*s.B), s.Unit)
		if *s.B > *s.A {
			worseB = append(worseB, w)
		} else {
			worseA = append(worseA, w)
		}
	}
	switch {
	case len(worseA) == 0 && len(worseB) == 0:
		return ""
	case len(worseB) > 0 && len(worseA) == 0:
		return fmt.Sprintf("the client host was noisier for %s than for %s (%s): a difference may be the client's, not the server's", nameB, nameA, strings.Join(worseB, ", "))
	case len(worseA) > 0 && len(worseB) == 0:
		return fmt.Sprintf("the client host was noisier for %s than for %s (%s): a difference may be the client's, not the server's", nameA, nameB, strings.Join(worseA, ", "))
	}
	return fmt.Sprintf("the client host moved between %s and %s (%s): a difference may be the client's, not the server's", nameA, nameB, strings.Join(append(worseA, worseB...), ", "))
}

func canaryNum(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
