package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
	"github.com/mongobench/mongobench/internal/threshold"
)

// A plan's constraints are thresholds (threshold.Parse), judged on each
// candidate's runs combined, a relative bound against the baseline's:
//
//	p95 READ <= +5%      (relative to the baseline's p95 READ)
//	p99 READ <= 10ms     (absolute; also us, s)
//	p95 <= +5%           (every operation type, each judged on its own)
//	errors <= 0.1%
//	throughput >= -10%   (relative to the baseline's throughput)
//	headroom >= 20%      (per stage: the share of throughput to spare)

// CheckConstraint says why a threshold cannot be a plan's constraint: a
// candidate's runs combined have latency, errors and throughput, not a
// target rate, service times or client- and server-bound verdicts.
func CheckConstraint(t threshold.Threshold) error {
	switch t.Kind {
	case threshold.Latency, threshold.Errors, threshold.Throughput, threshold.Headroom:
		return nil
	}
	return fmt.Errorf("constraint %q: a plan judges latency, errors, throughput and headroom: want a rule such as \"p95 READ <= +5%%\", \"p99 READ <= 10ms\", \"errors <= 0.1%%\" or \"headroom >= 20%%\"", t.Text)
}

// Check is one constraint's verdict for one candidate.
type Check struct {
	Constraint string
	Pass       bool
	// Value is what was measured, as shown; Reason says why it failed.
	Value, Reason string
}

// carryAll is the headroom a stage needs when no constraint asks for
// more: the candidate's throughput must reach the stage's demand.
var carryAll = mustParse("headroom >= 0%")

func mustParse(s string) threshold.Threshold {
	t, err := threshold.Parse(s)
	if err != nil {
		panic(err)
	}
	return t
}

// headrooms returns the headroom constraints, or carryAll when none.
func headrooms(ts []threshold.Threshold) []threshold.Threshold {
	var out []threshold.Threshold
	for _, t := range ts {
		if t.Kind == threshold.Headroom {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return []threshold.Threshold{carryAll}
	}
	return out
}

// minHeadroom is the largest headroom asked for, as a fraction.
func minHeadroom(ts []threshold.Threshold) float64 {
	h := 0.0
	for _, t := range headrooms(ts) {
		h = max(h, t.Limit/100)
	}
	return h
}

// carries judges the headroom constraints on a stage's headroom (a
// fraction of the candidate's throughput).
func carries(ts []threshold.Threshold, headroom float64) bool {
	for _, t := range headrooms(ts) {
		if !t.Holds(100 * headroom) {
			return false
		}
	}
	return true
}

// check judges the candidate-wide constraints (all but headroom, which
// is judged per stage) by threshold.EvaluateAgainst on the candidate's
// figures, against the baseline's. A latency bound on every operation
// type is judged per type the candidate or the baseline has.
func check(ts []threshold.Threshold, m, base Measured) []Check {
	var out []Check
	md, bd := m.figures(), base.figures()
	for _, t := range ts {
		switch {
		case t.Kind == threshold.Headroom:
		case t.Kind == threshold.Latency && t.Op == "":
			for _, op := range sortedKeys(base.Latency, m.Latency) {
				tt := t.ForOp(op)
				out = append(out, checkOf(tt, tt.EvaluateAgainst(md, &bd)))
			}
		default:
			out = append(out, checkOf(t, t.EvaluateAgainst(md, &bd)))
		}
	}
	return out
}

// checkOf words a threshold's verdict as the plan shows it.
func checkOf(t threshold.Threshold, v result.ThresholdVerdict) Check {
	ch := Check{Constraint: t.Text, Pass: v.Pass}
	switch {
	case t.Kind == threshold.Latency:
		latencyCheck(t, v, &ch)
	case t.Kind == threshold.Errors && t.Unit == threshold.Percent && v.Value != nil:
		ch.Value = pct(*v.Value / 100)
		if !v.Pass {
			ch.Reason = fmt.Sprintf("%s of operations failed, %s %s", ch.Value, beyond(t), pct(t.Limit/100))
		}
	default:
		ch.Value = threshold.Measured(v)
		if v.Value == nil {
			ch.Value = ""
		}
		if !v.Pass {
			ch.Reason = t.Text + ": " + threshold.Measured(v)
		}
	}
	return ch
}

// latencyCheck words a latency verdict: "p95 READ 2.24 ms is 12.1% worse
// than the baseline's 2 ms (limit +5%)".
func latencyCheck(t threshold.Threshold, v result.ThresholdVerdict, ch *Check) {
	name := t.Stat + " " + t.Op
	switch {
	case v.Value == nil && strings.HasPrefix(v.Missing, "the baseline"):
		ch.Reason = "the baseline's " + name + " was not measured"
		return
	case v.Value == nil:
		ch.Reason = name + " was not measured"
		return
	}
	x := *v.Value
	ch.Value = num(x) + " ms"
	if v.Baseline == nil {
		if !v.Pass {
			ch.Reason = fmt.Sprintf("%s %s ms is %s %s ms", name, num(x), beyond(t), num(t.Limit))
		}
		return
	}
	b := *v.Baseline
	worse := x/b - 1
	ch.Value += " (" + signedPct(worse) + " vs baseline)"
	if !v.Pass {
		ch.Reason = fmt.Sprintf("%s %s ms is %s worse than the baseline's %s ms (limit %s)", name, num(x), pct(worse), num(b), signedPct(t.Limit/100))
	}
}

// beyond says on which side of a limit a failed figure is.
func beyond(t threshold.Threshold) string {
	switch t.Cmp {
	case threshold.LT, threshold.LE:
		return "above"
	case threshold.GT, threshold.GE:
		return "below"
	}
	return "against"
}

// figures are what the candidate's constraints read: each operation
// type's merged latency and its counts, and the throughput.
func (m Measured) figures() threshold.Figures {
	f := threshold.Figures{Measured: true, AchievedRate: m.Throughput}
	for _, name := range sortedKeys(m.Latency, countsAsDists(m.Counts)) {
		c := m.Counts[name]
		f.Ops = append(f.Ops, result.OpStats{Name: name, Count: c.Completed - c.Failed,
			Errors: result.Errors{Total: c.Failed}, Latency: m.Latency[name]})
	}
	return f
}

// countsAsDists lists the operation types counted, for sortedKeys.
func countsAsDists(cs map[string]OpCount) map[string]result.Dist {
	out := make(map[string]result.Dist, len(cs))
	for k := range cs {
		out[k] = result.Dist{}
	}
	return out
}

func pick(l map[string]result.Dist, op, p string) *float64 {
	d, ok := l[op]
	if !ok {
		return nil
	}
	return d.Percentile(p)
}

func sortedKeys(ms ...map[string]result.Dist) []string {
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func failedChecks(cs []Check) string {
	var rs []string
	for _, c := range cs {
		if !c.Pass {
			rs = append(rs, c.Reason)
		}
	}
	return strings.Join(rs, "; ")
}

// num formats a figure with three significant digits, thousands grouped.
func num(v float64) string {
	if math.Abs(v) >= 1000 {
		return texttable.Thousands(v)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func pct(f float64) string { return strconv.FormatFloat(math.Round(f*1000)/10, 'f', -1, 64) + "%" }

func signedPct(f float64) string {
	if f >= 0 {
		return "+" + pct(f)
	}
	return pct(f)
}
