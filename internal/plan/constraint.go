package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Kind is what a constraint bounds.
type Kind int

// The kinds of constraint.
const (
	// Latency bounds a percentile of an operation type, in milliseconds or
	// relative to the baseline.
	Latency Kind = iota
	// Errors bounds the fraction of operations that failed.
	Errors
	// Headroom asks a candidate to carry a stage with this fraction of
	// its throughput to spare.
	Headroom
)

// Constraint is one rule a candidate must meet.
type Constraint struct {
	Kind Kind
	// Op is the operation type a latency bound applies to; "" is every
	// type the candidate's runs have.
	Op string
	// Percentile is p50, p95, p99 or p999.
	Percentile string
	// Limit is milliseconds (absolute latency) or a fraction (relative
	// latency: 0.05 is "no more than 5% above the baseline"; errors;
	// headroom).
	Limit    float64
	Relative bool
	Text     string
}

var percentiles = []string{"p50", "p95", "p99", "p999"}

// ParseConstraint reads one rule:
//
//	p95 READ <= +5%      (relative to the baseline's p95 READ)
//	p99 READ <= 10ms     (absolute; also us, s)
//	p95 <= +5%           (every operation type)
//	errors <= 0.1%
//	headroom >= 20%
func ParseConstraint(s string) (Constraint, error) {
	c := Constraint{Text: strings.TrimSpace(s)}
	f := strings.Fields(s)
	bad := func(why string) (Constraint, error) {
		return Constraint{}, fmt.Errorf("constraint %q: %s (e.g. \"p95 READ <= +5%%\", \"p99 READ <= 10ms\", \"errors <= 0.1%%\", \"headroom >= 20%%\")", c.Text, why)
	}
	if len(f) < 3 {
		return bad("want METRIC [OPERATION] <= LIMIT")
	}
	metric, limit, op := strings.ToLower(f[0]), f[len(f)-1], f[len(f)-2]
	switch {
	case metric == "headroom":
		if len(f) != 3 || op != ">=" {
			return bad("headroom takes >= and a percentage")
		}
		c.Kind = Headroom
	case metric == "errors":
		if len(f) != 3 || op != "<=" {
			return bad("errors takes <= and a percentage")
		}
		c.Kind = Errors
	case slices.Contains(percentiles, metric):
		if op != "<=" || len(f) > 4 {
			return bad("a latency bound takes an optional operation type, <= and a limit")
		}
		c.Kind, c.Percentile = Latency, metric
		if len(f) == 4 {
			c.Op = f[1]
		}
	default:
		return bad(fmt.Sprintf("unknown metric %q: want one of %v, errors or headroom", f[0], percentiles))
	}
	if c.Kind != Latency || strings.HasSuffix(limit, "%") {
		v, err := percentValue(limit)
		if err != nil {
			return bad(err.Error())
		}
		c.Limit = v
		c.Relative = c.Kind == Latency
		if c.Relative && !strings.HasPrefix(limit, "+") && v != 0 {
			return bad("a relative latency bound is written with a sign, e.g. +5%")
		}
		return c, nil
	}
	ms, err := msValue(limit)
	if err != nil {
		return bad(err.Error())
	}
	c.Limit = ms
	return c, nil
}

func percentValue(s string) (float64, error) {
	t, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, fmt.Errorf("limit %q: want a percentage such as 5%%", s)
	}
	v, err := strconv.ParseFloat(strings.TrimPrefix(t, "+"), 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("limit %q: want a percentage >= 0", s)
	}
	return v / 100, nil
}

func msValue(s string) (float64, error) {
	for _, u := range []struct {
		suffix string
		ms     float64
	}{{"ms", 1}, {"us", 0.001}, {"µs", 0.001}, {"s", 1000}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(t, 64)
			if err != nil || v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				break
			}
			return v * u.ms, nil
		}
	}
	return 0, fmt.Errorf("limit %q: want a duration such as 10ms, or a relative bound such as +5%%", s)
}

// Check is one constraint's verdict for one candidate.
type Check struct {
	Constraint string
	Pass       bool
	// Value is what was measured, as shown; Reason says why it failed.
	Value, Reason string
}

func minHeadroom(cs []Constraint) float64 {
	h := 0.0
	for _, c := range cs {
		if c.Kind == Headroom {
			h = max(h, c.Limit)
		}
	}
	return h
}

// check judges the candidate-wide constraints (latency and errors); the
// headroom is judged per stage.
func check(cs []Constraint, m, base Measured) []Check {
	var out []Check
	for _, c := range cs {
		switch c.Kind {
		case Errors:
			out = append(out, checkErrors(c, m))
		case Latency:
			ops := []string{c.Op}
			if c.Op == "" {
				ops = sortedKeys(base.Latency, m.Latency)
			}
			for _, op := range ops {
				out = append(out, checkLatency(c, op, m, base))
			}
		}
	}
	return out
}

func checkErrors(c Constraint, m Measured) Check {
	ch := Check{Constraint: c.Text, Value: pct(m.ErrorRate), Pass: m.ErrorRate <= c.Limit}
	if !ch.Pass {
		ch.Reason = fmt.Sprintf("%s of operations failed, above %s", pct(m.ErrorRate), pct(c.Limit))
	}
	return ch
}

func checkLatency(c Constraint, op string, m, base Measured) Check {
	name := c.Percentile + " " + op
	ch := Check{Constraint: c.Text}
	if c.Op == "" {
		ch.Constraint = c.Percentile + " " + op + strings.TrimPrefix(c.Text, c.Percentile)
	}
	v := pick(m.Latency, op, c.Percentile)
	if v == nil {
		ch.Reason = name + " was not measured"
		return ch
	}
	ch.Value = num(*v) + " ms"
	if !c.Relative {
		ch.Pass = *v <= c.Limit
		if !ch.Pass {
			ch.Reason = fmt.Sprintf("%s %s ms is above %s ms", name, num(*v), num(c.Limit))
		}
		return ch
	}
	b := pick(base.Latency, op, c.Percentile)
	if b == nil {
		ch.Reason = "the baseline's " + name + " was not measured"
		return ch
	}
	worse := *v / *b - 1
	ch.Value += " (" + signedPct(worse) + " vs baseline)"
	ch.Pass = *v <= *b*(1+c.Limit)
	if !ch.Pass {
		ch.Reason = fmt.Sprintf("%s %s ms is %s worse than the baseline's %s ms (limit +%s)", name, num(*v), pct(worse), num(*b), pct(c.Limit))
	}
	return ch
}

func pick(l map[string]result.Dist, op, p string) *float64 {
	d, ok := l[op]
	if !ok {
		return nil
	}
	switch p {
	case "p50":
		return d.P50
	case "p95":
		return d.P95
	case "p99":
		return d.P99
	}
	return d.P999
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
