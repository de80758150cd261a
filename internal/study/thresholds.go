package study

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
	"github.com/mongobench/mongobench/internal/threshold"
)

// A study's own thresholds: a sweep's criteria and an SLA are written
// as threshold sets, handed to the lab with each run's scenario
// (spec.Scenario.StudyThresholds) and judged there with the run's own
// thresholds, on the same result (testResults.bounds). The reasons a
// study gives for a failed threshold are its own words for the verdicts;
// judging across runs (the majority of repetitions, the highest rate
// held) is the study's. Only a stored run read under other thresholds
// than it was measured with (compare --sla, sla journey --p99) has them
// judged here, on its stored figures.

// Thresholds are the criteria as a threshold set: "rate >= 95%", with an
// SLA "p99 <= 20ms" (every operation type), and "errors <= 1%".
func (c Criteria) Thresholds() []threshold.Threshold {
	if ts, err := threshold.ParseAll(c.stored); err == nil && len(ts) > 0 {
		return ts // as the steps' verdicts judged them
	}
	exprs := []string{"rate >= " + Percent(c.fraction()) + "%"}
	if c.SLA > 0 {
		exprs = append(exprs, "p99 <= "+c.SLA.String())
	}
	return mustThresholds(append(exprs, "errors <= "+decimal(100*c.MaxErrors)+"%"))
}

// Expressions lists the criteria's thresholds as written, as in "rate
// >= 95%, p99 <= 20ms, errors <= 1%".
func (c Criteria) Expressions() string {
	var out []string
	for _, t := range c.Thresholds() {
		out = append(out, t.Text)
	}
	return strings.Join(out, ", ")
}

// Thresholds are the SLA as a threshold set: each latency bound set
// ("p95 <= 10ms", "p99 <= 20ms", "p999 <= 50ms"), "rate >= 99%" and
// "errors == 0" (no failed transactions).
func (s SLA) Thresholds() []threshold.Threshold {
	if ts, err := threshold.ParseAll(s.stored); err == nil && len(ts) > 0 {
		return ts // as the runs' verdicts judged them
	}
	var exprs []string
	for _, c := range s.checks(Run{}) {
		exprs = append(exprs, c.name+" <= "+c.limit.String())
	}
	exprs = append(exprs, "rate >= "+Percent(s.rateFraction())+"%", "errors == 0")
	return mustThresholds(exprs)
}

// mustThresholds parses expressions the studies write themselves.
func mustThresholds(exprs []string) []threshold.Threshold {
	ts, err := threshold.ParseAll(exprs)
	if err != nil {
		panic(fmt.Sprintf("study: a bound written in code does not parse: %v", err))
	}
	return ts
}

// decimal formats v without an exponent or trailing zeros.
func decimal(v float64) string {
	s := strconv.FormatFloat(v, 'f', 10, 64)
	return strings.TrimRight(strings.TrimRight(s, "0"), ".")
}

// figures are what the step's criteria read: its target rate and the
// rate it achieved, each operation type's latency percentiles (a type
// with a p99 counts as having succeeded), and its completed and failed
// operations. A Step keeps its counts as totals, so they stand on its
// first type: the criteria bound errors over every type.
func (s Step) figures() threshold.Figures {
	rate := s.Rate
	f := threshold.Figures{Measured: true, TargetRate: &rate, AchievedRate: s.Achieved}
	for _, op := range s.Ops {
		l := result.Dist{P50: op.P50, P95: op.P95, P99: op.P99}
		if op.P99 != nil {
			l.Count = 1
		}
		f.Ops = append(f.Ops, result.OpStats{Name: op.Name, Latency: l})
	}
	if len(f.Ops) == 0 {
		f.Ops = append(f.Ops, result.OpStats{Name: "operations"})
	}
	f.Ops[0].Count, f.Ops[0].Errors.Total = s.Count-s.Errors, s.Errors
	return f
}

// figures are what the SLA run's bounds read: its target and achieved
// rates, the transaction's latency (a run with any latency recorded had
// transactions succeed) and its failed transactions.
func (r Run) figures() threshold.Figures {
	tps := r.TPS
	l := result.Dist{P50: r.P50, P95: r.P95, P99: r.P99, P999: r.P999, Max: r.Max}
	op := result.OpStats{Name: TxnOp, Errors: result.Errors{Total: r.Failed}}
	if r.hasLatency() {
		l.Count, op.Count = 1, 1
	}
	op.Latency = l
	return threshold.Figures{Measured: true, TargetRate: &tps, AchievedRate: r.Achieved, Ops: []result.OpStats{op}}
}

// judged are the verdicts of ts: the lab's (stored), when it judged
// these very thresholds, else ts judged on the run's stored figures, for
// a run read under other bounds than it was measured with.
func judged(ts []threshold.Threshold, stored []result.ThresholdVerdict, figures func() threshold.Figures) []result.ThresholdVerdict {
	if len(stored) == len(ts) {
		same := true
		for i, t := range ts {
			same = same && stored[i].Expression == t.Text
		}
		if same {
			return stored
		}
	}
	return threshold.EvaluateFigures(ts, figures(), nil)
}

// stepReasons words the failed criteria of step s from their verdicts
// vs.
func stepReasons(s Step, ts []threshold.Threshold, vs []result.ThresholdVerdict) []string {
	var out []string
	for _, v := range vs {
		if v.Pass {
			continue
		}
		t := thresholdOf(ts, v)
		switch t.Kind {
		case threshold.Rate:
			out = append(out, achievedReason(s.Achieved, t.Limit/100, s.Rate))
		case threshold.Latency:
			out = append(out, opLatencyReasons(t, v, s.Ops)...)
		case threshold.Errors:
			if v.Value == nil {
				out = append(out, "errors: "+v.Missing)
				continue
			}
			out = append(out, fmt.Sprintf("errors %s%% > %s%%", sig3(*v.Value), decimal(t.Limit)))
		default:
			out = append(out, "threshold "+v.Expression+" failed: "+threshold.Measured(v))
		}
	}
	return out
}

// opLatencyReasons words a failed bound on every type's latency: each
// operation type whose statistic is beyond the limit (the verdict names
// the worst; the words name them all).
func opLatencyReasons(t threshold.Threshold, v result.ThresholdVerdict, ops []OpLatency) []string {
	if v.Value == nil {
		return []string{"no " + t.Stat + " recorded"}
	}
	var out []string
	for _, op := range ops {
		if x := op.stat(t.Stat); x != nil && !t.Holds(*x) {
			out = append(out, fmt.Sprintf("%s %s %s ms > %s ms", op.Name, t.Stat, sig3(*x), trimFloat(t.Limit)))
		}
	}
	if len(out) == 0 { // a statistic the step does not keep: the verdict's
		out = append(out, fmt.Sprintf("%s %s %s ms > %s ms", v.Op, t.Stat, sig3(*v.Value), trimFloat(t.Limit)))
	}
	return out
}

// stat is the op's latency statistic named (p50, p95, p99), nil when
// the step does not keep it.
func (op OpLatency) stat(name string) *float64 {
	switch name {
	case "p50":
		return op.P50
	case "p95":
		return op.P95
	case "p99":
		return op.P99
	}
	return nil
}

// runReasons words the failed SLA bounds of run r from their verdicts
// vs.
func runReasons(r Run, ts []threshold.Threshold, vs []result.ThresholdVerdict) []string {
	var out []string
	if !r.hasLatency() {
		out = append(out, "no latency recorded")
	}
	for _, v := range vs {
		if v.Pass {
			continue
		}
		t := thresholdOf(ts, v)
		switch t.Kind {
		case threshold.Latency:
			name := slaName(t)
			switch {
			case !r.hasLatency():
			case v.Value == nil:
				out = append(out, "no "+name+" recorded")
			default:
				out = append(out, fmt.Sprintf("%s %s ms > %s ms", name, sig3(*v.Value), trimFloat(t.Limit)))
			}
		case threshold.Rate:
			out = append(out, achievedReason(r.Achieved, t.Limit/100, r.TPS))
		case threshold.Errors:
			if v.Value == nil {
				out = append(out, "no transaction completed")
				continue
			}
			out = append(out, texttable.Plural(int64(*v.Value), "transaction")+" failed")
		default:
			out = append(out, "threshold "+v.Expression+" failed: "+threshold.Measured(v))
		}
	}
	return out
}

// slaName names a latency bound as the SLA's flags do: p999 for p99.9.
func slaName(t threshold.Threshold) string {
	if t.Stat == "p99.9" {
		return "p999"
	}
	return t.Stat
}

// thresholdOf finds the threshold a verdict judged.
func thresholdOf(ts []threshold.Threshold, v result.ThresholdVerdict) threshold.Threshold {
	for _, t := range ts {
		if t.Text == v.Expression {
			return t
		}
	}
	return threshold.Threshold{Text: v.Expression}
}

// achievedReason says an achieved rate fell short of a share of the
// target. The achieved rate shown is rounded down, so the reason never
// reads as equal.
func achievedReason(achieved, share, target float64) string {
	return fmt.Sprintf("achieved %s/s < %s%% of %s/s", thousands(math.Floor(achieved)), Percent(share), thousands(target))
}
