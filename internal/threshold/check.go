package threshold

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// Run is what is known of a run before it starts, to check its
// thresholds against.
type Run struct {
	Workload string
	OpenLoop bool     // a target rate is set
	Ops      []string // the workload's operation types; nil when not known
}

// Check says, naming the threshold, what cannot apply to the run: a share
// of the target rate in a closed loop, or an operation type the workload
// does not have; and refuses more than MaxCount thresholds.
func Check(ts []Threshold, r Run) error {
	if len(ts) > MaxCount {
		return fmt.Errorf("%d thresholds (a scenario's and --threshold's together): want at most %d", len(ts), MaxCount)
	}
	for _, t := range ts {
		if t.Relative {
			return fmt.Errorf("threshold %q: a change against a baseline is judged only in a capacity plan's constraints: want a limit such as 5ms or 1000/s", t.Text)
		}
		if t.Kind == Headroom {
			return fmt.Errorf("threshold %q: headroom is judged only per stage of a capacity plan: want a run's figure, %s", t.Text, Grammar)
		}
		if t.Kind == Rate && t.Unit == Percent && !r.OpenLoop {
			return fmt.Errorf("threshold %q: a closed-loop run has no target rate: want a rate such as \"rate >= 1000/s\", or set a target rate", t.Text)
		}
		if t.Op != "" && r.Ops != nil && !slices.ContainsFunc(r.Ops, func(op string) bool { return strings.EqualFold(op, t.Op) }) {
			return fmt.Errorf("threshold %q: workload %s has no operation type %q: want one of %s", t.Text, r.Workload, t.Op, strings.Join(r.Ops, ", "))
		}
	}
	return nil
}

// CannotHold returns the verdicts on d, the cumulative figures of a run
// still in progress, of the thresholds that can no longer hold: an error
// count bounded above (<, <=, ==) as soon as it is passed, since counts
// only grow; any other latency, error-share or rate threshold once
// settled is true, that is once the run has measured long enough for its
// cumulative figures to stand. The client- and server-bound verdicts are
// judged only at the end, and a missing figure never stops a run.
func CannotHold(ts []Threshold, d Figures, settled bool) []result.ThresholdVerdict {
	var out []result.ThresholdVerdict
	for _, t := range ts {
		if t.Kind == ClientBound || t.Kind == ServerBound || t.Kind == Headroom || t.Relative {
			continue
		}
		v := t.Evaluate(d)
		if v.Pass || v.Value == nil {
			continue
		}
		if settled || t.Kind == Errors && t.Unit == Count && (t.Cmp == LT || t.Cmp == LE || t.Cmp == EQ) {
			out = append(out, v)
		}
	}
	return out
}
