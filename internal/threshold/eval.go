package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Figures are what a threshold reads of a run: a result document's
// (Of), or a run's figures as a study or the abort judge holds them,
// read directly.
type Figures struct {
	// Ops are the operation types: each one's successes (Count), errors
	// by class, and latency and service-time distributions.
	Ops []result.OpStats
	// Measured says the run has a measured phase; without one it has no
	// rate.
	Measured bool
	// TargetRate is an open-loop run's target; nil for a closed loop.
	TargetRate *float64
	// AchievedRate is the rate achieved over the measured phase.
	AchievedRate float64
	// Client holds the client- and server-bound verdicts.
	Client result.Client
}

// Of is what a threshold reads of the run d.
func Of(d *result.Doc) Figures {
	f := Figures{Ops: d.Ops, Measured: d.Duration > 0, AchievedRate: d.Schedule.AchievedRate, Client: d.Client}
	if d.Schedule.Mode == "open" && d.Schedule.TargetRate != nil && *d.Schedule.TargetRate > 0 {
		f.TargetRate = d.Schedule.TargetRate
	}
	return f
}

// Evaluate judges every threshold on d, in order.
func Evaluate(ts []Threshold, d *result.Doc) []result.ThresholdVerdict {
	return EvaluateFigures(ts, Of(d), nil)
}

// EvaluateFigures judges every threshold on the figures f, in order, a
// relative bound against the same figure of the baseline base (nil:
// there is none, and a relative bound's figure is missing).
func EvaluateFigures(ts []Threshold, f Figures, base *Figures) []result.ThresholdVerdict {
	if len(ts) == 0 {
		return nil
	}
	out := make([]result.ThresholdVerdict, len(ts))
	for i, t := range ts {
		out[i] = t.EvaluateAgainst(f, base)
	}
	return out
}

// Failed returns the verdicts that do not hold.
func Failed(vs []result.ThresholdVerdict) []result.ThresholdVerdict {
	var out []result.ThresholdVerdict
	for _, v := range vs {
		if !v.Pass {
			out = append(out, v)
		}
	}
	return out
}

// Evaluate judges t on the figures d. A figure the run does not have
// (no operation of the type completed, a verdict not judged, no target
// rate) is missing, and a missing figure never holds.
func (t Threshold) Evaluate(d Figures) result.ThresholdVerdict {
	return t.EvaluateAgainst(d, nil)
}

// EvaluateAgainst judges t on the run d; a relative bound compares d's
// figure with the same figure of the baseline base, scaled by the
// change allowed: "p95(READ) <= +5%" holds when d's READ p95 is at most
// 1.05 times base's. The verdict's value is d's figure, and its baseline
// base's. A baseline that lacks the figure (or none) makes it missing.
func (t Threshold) EvaluateAgainst(d Figures, base *Figures) result.ThresholdVerdict {
	v := result.ThresholdVerdict{Expression: t.Text, Unit: string(t.Unit), Op: t.Op}
	if t.Relative && base == nil {
		v.Missing = "a relative bound is judged against a baseline, and there is none"
		return v
	}
	var value float64
	switch t.Kind {
	case Latency, Service:
		return t.latency(d, base, v)
	case Errors:
		value, v.Missing = t.errors(d)
	case Rate:
		value, v.Missing = t.rate(d)
	case ClientBound, ServerBound:
		value, v.Missing = t.bound(d)
	case Throughput:
		value, v.Missing = throughput(d)
	case Headroom:
		v.Missing = "headroom is judged per stage of a capacity plan"
	}
	if v.Missing != "" {
		return v
	}
	limit := t.Limit
	if t.Relative {
		b, missing := throughput(*base)
		if missing != "" {
			v.Missing = "the baseline: " + missing
			return v
		}
		v.Baseline, limit = &b, b*(1+t.Limit/100)
	}
	v.Value, v.Pass = &value, t.holdsAt(value, limit)
	return v
}

// Holds reports whether the figure v, in t's unit, meets t's limit. A
// capacity plan judges its headroom per stage with it.
func (t Threshold) Holds(v float64) bool { return t.holdsAt(v, t.Limit) }

// holdsAt compares a measured value with a limit. Values within a
// billionth of the limit count as equal, so a rate achieved exactly is
// not failed by rounding.
func (t Threshold) holdsAt(v, limit float64) bool {
	eq := math.Abs(v-limit) <= 1e-9*math.Max(math.Abs(limit), 1e-9)
	switch t.Cmp {
	case LT:
		return v < limit && !eq
	case LE:
		return v < limit || eq
	case GT:
		return v > limit && !eq
	case GE:
		return v > limit || eq
	case EQ:
		return eq
	case NE:
		return !eq
	}
	return false
}

// worse reports whether a is further than b from holding: the higher
// value for an upper bound, the lower for a lower bound.
func (t Threshold) worse(a, b float64) bool {
	switch t.Cmp {
	case LT, LE:
		return a > b
	case GT, GE:
		return a < b
	}
	return false
}

// latency judges a latency or service-time statistic: of the type named,
// or of every type that completed an operation, all of which must hold;
// the value stored is the one that decided. A relative bound's limit is
// each type's own baseline figure, scaled.
func (t Threshold) latency(d Figures, base *Figures, v result.ThresholdVerdict) result.ThresholdVerdict {
	type figure struct {
		op           string
		value, limit float64
		base         *float64
	}
	var figs []figure
	for _, op := range t.ops(d) {
		dist := t.dist(op)
		if dist.Count == 0 {
			if t.Op != "" {
				v.Missing = "no " + op.Name + " operation succeeded"
				return v
			}
			continue // a type the mix never chose, or that only failed
		}
		x, missing := t.stat(dist)
		if missing != "" {
			v.Op, v.Missing = op.Name, missing
			return v
		}
		f := figure{op.Name, x, t.Limit, nil}
		if t.Relative {
			b, missing := t.baseStat(base, op.Name)
			if missing != "" {
				v.Op, v.Missing = op.Name, "the baseline: "+missing
				return v
			}
			f.base, f.limit = &b, b*(1+t.Limit/100)
		}
		figs = append(figs, f)
	}
	if len(figs) == 0 {
		v.Missing = t.noOps(d)
		return v
	}
	pick, pass := figs[0], true
	for _, f := range figs {
		if !t.holdsAt(f.value, f.limit) {
			if pass || t.worse(f.value-f.limit, pick.value-pick.limit) {
				pick = f
			}
			pass = false
		} else if pass && t.worse(f.value-f.limit, pick.value-pick.limit) {
			pick = f
		}
	}
	v.Op, v.Value, v.Baseline, v.Pass = pick.op, &pick.value, pick.base, pass
	return v
}

// dist is the distribution t reads of an operation type: its latency or
// its service time.
func (t Threshold) dist(op result.OpStats) result.Dist {
	if t.Kind == Service {
		return op.Service
	}
	return op.Latency
}

// baseStat reads t's statistic of operation type name from the baseline.
func (t Threshold) baseStat(base *Figures, name string) (float64, string) {
	for _, op := range base.Ops {
		if !strings.EqualFold(op.Name, name) {
			continue
		}
		if dist := t.dist(op); dist.Count > 0 {
			return t.stat(dist)
		}
	}
	return 0, "no " + name + " operation succeeded"
}

// ops returns the operation types t applies to: the one named (matched
// without regard to case), or all of them.
func (t Threshold) ops(d Figures) []result.OpStats {
	if t.Op == "" {
		return d.Ops
	}
	for _, op := range d.Ops {
		if strings.EqualFold(op.Name, t.Op) {
			return []result.OpStats{op}
		}
	}
	return nil
}

// noOps says why a threshold found no operation to judge.
func (t Threshold) noOps(d Figures) string {
	switch {
	case t.Op == "":
		return "no operation succeeded"
	case len(t.ops(d)) == 0:
		return "the run has no " + t.Op + " operations"
	}
	return "no " + t.Op + " operation completed"
}

// stat reads the statistic from a summary: the stored figure, else the
// percentile recomputed from the stored histogram.
func (t Threshold) stat(d result.Dist) (float64, string) {
	var p *float64
	switch t.Stat {
	case "min":
		p = d.Min
	case "mean":
		p = d.Mean
	case "max", "p100":
		p = d.Max
	case "p50":
		p = d.P50
	case "p95":
		p = d.P95
	case "p99":
		p = d.P99
	case "p99.9":
		p = d.P999
	}
	if p == nil && d.Hist != "" {
		h, err := hist.Decode(d.Hist)
		if err != nil {
			return 0, "the stored histogram cannot be read: " + err.Error()
		}
		p = hist.Percentile(h, t.Pct)
	}
	if p == nil {
		return 0, t.Stat + " is not stored and the run has no histogram to compute it from"
	}
	return *p, ""
}

// errors counts failed operations (of the class named) among the
// operations of the type named, or all: a count, or a percentage of the
// completed operations.
func (t Threshold) errors(d Figures) (float64, string) {
	var completed, failed int64
	ops := t.ops(d)
	for _, op := range ops {
		completed += op.Count + op.Errors.Total
		failed += classCount(op.Errors, t.Class)
	}
	if completed == 0 {
		if t.Op == "" {
			return 0, "no operation completed"
		}
		return 0, t.noOps(d)
	}
	if t.Unit == Percent {
		return 100 * float64(failed) / float64(completed), ""
	}
	return float64(failed), ""
}

func classCount(e result.Errors, class string) int64 {
	switch class {
	case "timeout":
		return e.Timeout
	case "network":
		return e.Network
	case "writeConflict":
		return e.WriteConflict
	case "duplicateKey":
		return e.DuplicateKey
	case "overload":
		return e.Overload
	case "other":
		return e.Other
	}
	return e.Total
}

// rate is the achieved rate: ops/s, or a percentage of the target.
func (t Threshold) rate(d Figures) (float64, string) {
	if !d.Measured {
		return 0, "the run has no measured phase"
	}
	if t.Unit == PerSec {
		return d.AchievedRate, ""
	}
	if d.TargetRate == nil || *d.TargetRate <= 0 {
		return 0, "a closed-loop run has no target rate"
	}
	return 100 * d.AchievedRate / *d.TargetRate, ""
}

// throughput is the run's achieved rate in ops/s.
func throughput(d Figures) (float64, string) {
	if !d.Measured {
		return 0, "the run has no measured phase"
	}
	return d.AchievedRate, ""
}

// bound reads the client- or server-bound verdict: 1 true, 0 false.
func (t Threshold) bound(d Figures) (float64, string) {
	if d.Client.NotJudged != "" {
		return 0, "not judged: " + d.Client.NotJudged
	}
	b := d.Client.ClientBound
	if t.Kind == ServerBound {
		b = d.Client.ServerBound
	}
	if b {
		return 1, ""
	}
	return 0, ""
}

// Measured formats a verdict's figure as shown next to PASS or FAIL: "3.21
// ms (READ)", "0.05%", "12 errors", "1,980 ops/s", "false", or "missing:"
// and why.
//
// A relative bound's figure is followed by its change against the
// baseline's: "2.24 ms (READ), +12% against the baseline's 2 ms".
func Measured(v result.ThresholdVerdict) string {
	if v.Value == nil {
		if v.Missing == "" {
			return "missing"
		}
		return "missing: " + v.Missing
	}
	x := *v.Value
	var s string
	switch Unit(v.Unit) {
	case Millis:
		s = num(x) + " ms"
	case Count:
		s = strconv.FormatFloat(x, 'f', 0, 64) + " errors"
		if x == 1 {
			s = "1 error"
		}
	case Percent:
		s = num(x) + "%"
	case PerSec:
		s = num(x) + " ops/s"
	case Bool:
		s = strconv.FormatBool(x != 0)
	default:
		s = num(x)
	}
	if v.Op != "" {
		s += " (" + v.Op + ")"
	}
	if v.Baseline != nil {
		s += ", " + change(x, *v.Baseline) + " against the baseline's " + figure(*v.Baseline, Unit(v.Unit))
	}
	return s
}

// change is x's change against base, signed, in percent: "+12%", "-3.5%".
func change(x, base float64) string {
	if base == 0 {
		return "no change measurable"
	}
	c := 100 * (x/base - 1)
	if c >= 0 {
		return "+" + num(c) + "%"
	}
	return num(c) + "%"
}

// figure formats a baseline's figure in its unit.
func figure(x float64, u Unit) string {
	switch u {
	case Millis:
		return num(x) + " ms"
	case PerSec:
		return num(x) + " ops/s"
	}
	return num(x)
}

// Line is one verdict as printed: "PASS  p99(READ) < 5ms  3.21 ms (READ)".
func Line(v result.ThresholdVerdict) string {
	word := "FAIL"
	if v.Pass {
		word = "PASS"
	}
	return fmt.Sprintf("%s  %s  %s", word, v.Expression, Measured(v))
}

// num formats a figure with three significant digits, without an
// exponent: 0.0123, 1.23, 12.3, 123, 12346.
func num(x float64) string {
	if x == 0 || math.Abs(x) >= 100 {
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	digits := max(0, 2-int(math.Floor(math.Log10(math.Abs(x)))))
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
