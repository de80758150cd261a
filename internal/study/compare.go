package study

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/price"
)

// Comparisons of stored sweeps (mongobench compare).
//
// Each label's sweep is summarised as a Profile: its saturation
// throughput (the highest mean achieved rate of a target, as Saturation
// computes it) with each operation type's throughput at that target,
// whether it saturated at all (some target was not kept up with: its mean
// achieved rate below the criteria's share of the target; if none was, the
// saturation throughput is only a lower bound), the highest target that
// held the criteria, the price per hour and the operations per dollar at
// saturation (saturation × 3600 / dollars per hour).
//
// A Pair compares a first label A with another B: the ratios of their
// saturation throughputs (A/B − 1, "+117%"), of each operation type's
// throughput at saturation, of their prices and of their operations per
// dollar; and, at every target rate both sweeps ran, each one's mean
// achieved rate and each operation type's mean p99 over repetitions, and
// which of them kept up. The p99 difference below saturation is read at
// the highest matched target both kept up with, the one above saturation
// at the lowest matched target at least one did not keep up with.

// OpRate is one operation type's throughput, successes per second.
type OpRate struct {
	Name string  `json:"name"`
	Rate float64 `json:"opsPerSec"`
}

// Profile is one label's sweep as compare reads it.
type Profile struct {
	Label    string `json:"label"`
	Sweep    string `json:"sweep"`
	Workload string `json:"workload"`
	Steps    int    `json:"steps"`
	// Cost is the target's price per hour in Currency; nil unknown.
	Cost     *float64 `json:"costPerHour,omitempty"`
	Currency string   `json:"currency,omitempty"`
	// Saturation is the saturation throughput in operations per second,
	// reached at target SaturationTarget.
	Saturation       float64 `json:"saturationOpsPerSec"`
	SaturationTarget float64 `json:"saturationTarget"`
	// Saturated is false when every target was kept up with, so the
	// saturation throughput is a lower bound.
	Saturated bool     `json:"saturated"`
	Ops       []OpRate `json:"opsAtSaturation"`
	// MaxHeld is the highest target rate that held the criteria.
	MaxHeld *float64 `json:"maxHeldTarget,omitempty"`
	// OpsPerDollar is operations per unit of Currency (a dollar, for
	// USD) at saturation; nil without a cost.
	OpsPerDollar *float64 `json:"opsPerDollar,omitempty"`

	levels []Level
}

// ProfileOf summarises the steps of one label's sweep; price overrides
// the price stored with the steps (nil: use the stored one).
func ProfileOf(label string, steps []Step, price *price.Price, c Criteria) Profile {
	p := Profile{Label: label, Steps: len(steps), levels: Levels(steps, c)}
	if len(steps) > 0 {
		p.Sweep, p.Workload = steps[0].Sweep, steps[0].Workload
	}
	if price != nil {
		v := price.PerHour()
		p.Cost, p.Currency = &v, price.Currency
	} else {
		p.Cost, p.Currency = storedCost(steps)
	}
	p.Saturation, p.SaturationTarget = Saturation(steps)
	for _, l := range p.levels {
		if !keepsUp(l, c) {
			p.Saturated = true
		}
		if l.Rate == p.SaturationTarget {
			p.Ops = MeanOpRates(l.Steps)
		}
	}
	if best, ok := MaxAtSLA(steps, c); ok {
		p.MaxHeld = &best
	}
	if p.Cost != nil && *p.Cost > 0 && p.Saturation > 0 {
		v := p.Saturation * 3600 / *p.Cost
		p.OpsPerDollar = &v
	}
	return p
}

// storedCost is the price the steps were stored with, per hour, and its
// currency: the latest step's that has one.
func storedCost(steps []Step) (*float64, string) {
	for i := len(steps) - 1; i >= 0; i-- {
		if c := steps[i].Cost; c != nil {
			v := *c / 100
			return &v, steps[i].Currency
		}
	}
	return nil, ""
}

// costText is the profile's price as a price reads, "3.2 USD/h".
func (p Profile) costText() string {
	return strconv.FormatFloat(*p.Cost, 'f', -1, 64) + " " + p.Currency + "/h"
}

// Money names the profile's currency in tables: "$" for US dollars,
// else its code.
func (p Profile) Money() string {
	if p.Currency == "" || p.Currency == "USD" {
		return "$"
	}
	return p.Currency
}

// keepsUp reports whether a target's mean achieved rate reached the
// criteria's share of it.
func keepsUp(l Level, c Criteria) bool {
	return meanAchieved(l.Steps) >= c.fraction()*l.Rate*(1-1e-9)
}

func meanAchieved(steps []Step) float64 {
	var sum float64
	for _, s := range steps {
		sum += s.Achieved
	}
	return sum / float64(len(steps))
}

// MeanOpRates is each operation type's mean throughput over steps, in
// the order first seen.
func MeanOpRates(steps []Step) []OpRate {
	var out []OpRate
	for _, name := range OpNames(steps) {
		var sum float64
		for _, s := range steps {
			if i := slices.IndexFunc(s.Ops, func(o OpLatency) bool { return o.Name == name }); i >= 0 {
				sum += s.Ops[i].Rate
			}
		}
		out = append(out, OpRate{Name: name, Rate: sum / float64(len(steps))})
	}
	return out
}

// MeanP99s is each operation type's mean p99 over the steps that recorded
// one, in the order first seen; nil when none did.
func MeanP99s(steps []Step) []OpP99 {
	var out []OpP99
	for _, name := range OpNames(steps) {
		var xs []float64
		for _, s := range steps {
			if i := slices.IndexFunc(s.Ops, func(o OpLatency) bool { return o.Name == name }); i >= 0 && s.Ops[i].P99 != nil {
				xs = append(xs, *s.Ops[i].P99)
			}
		}
		o := OpP99{Name: name}
		if len(xs) > 0 {
			m := statOf(xs).Mean
			o.P99 = &m
		}
		out = append(out, o)
	}
	return out
}

// OpP99 is one operation type's p99 in milliseconds; nil not recorded.
type OpP99 struct {
	Name string   `json:"name"`
	P99  *float64 `json:"p99Ms,omitempty"`
}

// Side is one label at one matched target rate.
type Side struct {
	Achieved float64 `json:"achievedOpsPerSec"`
	KeepsUp  bool    `json:"keepsUp"`
	Ops      []OpP99 `json:"ops"`
}

// P99 is the highest p99 among the side's operation types; nil when none
// was recorded.
func (s Side) P99() *float64 {
	var out *float64
	for _, o := range s.Ops {
		if o.P99 != nil && (out == nil || *o.P99 > *out) {
			out = o.P99
		}
	}
	return out
}

// Op returns the p99 of the named operation type, nil when absent.
func (s Side) Op(name string) *float64 {
	if i := slices.IndexFunc(s.Ops, func(o OpP99) bool { return o.Name == name }); i >= 0 {
		return s.Ops[i].P99
	}
	return nil
}

// Matched is one target rate both sweeps ran.
type Matched struct {
	Rate float64 `json:"target"`
	A    Side    `json:"a"`
	B    Side    `json:"b"`
}

// Regime says who kept up at a matched rate: "both keep up", "A
// saturated", "B saturated" (with the labels) or "both saturated".
func (m Matched) Regime(a, b string) string {
	switch {
	case m.A.KeepsUp && m.B.KeepsUp:
		return "both keep up"
	case m.A.KeepsUp:
		return b + " saturated"
	case m.B.KeepsUp:
		return a + " saturated"
	}
	return "both saturated"
}

// Pair compares label A with label B.
type Pair struct {
	A Profile `json:"a"`
	B Profile `json:"b"`
	// Saturation is A's saturation throughput over B's; 0 when B's is 0.
	Saturation float64 `json:"saturationRatio"`
	// Ops is each operation type's throughput at saturation, A over B,
	// for the operation types both ran.
	Ops []OpRatio `json:"ops"`
	// Cost and PerDollar are A's price and operations per dollar over
	// B's; nil when either is unknown.
	Cost      *float64 `json:"costRatio,omitempty"`
	PerDollar *float64 `json:"perDollarRatio,omitempty"`
	// Matched lists the target rates both ran, ascending; Below and Above
	// index it (−1: none): the highest both kept up with, and the lowest
	// at least one did not.
	Matched []Matched `json:"matched"`
	Below   int       `json:"below"`
	Above   int       `json:"above"`
	// Steps are the target rates both ran, each metric judged with the
	// steps' repetitions as samples (A against B).
	Steps []StepRows `json:"steps"`
}

// OpRatio is one operation type's throughput at saturation in both.
type OpRatio struct {
	Name  string  `json:"name"`
	A     float64 `json:"a"`
	B     float64 `json:"b"`
	Ratio float64 `json:"ratio"` // A/B; 0 when B is 0
}

// Compare builds the comparison of a with b.
func Compare(a, b Profile, c Criteria) Pair {
	p := Pair{A: a, B: b, Saturation: ratio(a.Saturation, b.Saturation), Below: -1, Above: -1}
	for _, oa := range a.Ops {
		if i := slices.IndexFunc(b.Ops, func(o OpRate) bool { return o.Name == oa.Name }); i >= 0 {
			p.Ops = append(p.Ops, OpRatio{Name: oa.Name, A: oa.Rate, B: b.Ops[i].Rate, Ratio: ratio(oa.Rate, b.Ops[i].Rate)})
		}
	}
	if a.Cost != nil && b.Cost != nil && *b.Cost > 0 {
		r := *a.Cost / *b.Cost
		p.Cost = &r
	}
	if a.OpsPerDollar != nil && b.OpsPerDollar != nil && *b.OpsPerDollar > 0 {
		r := *a.OpsPerDollar / *b.OpsPerDollar
		p.PerDollar = &r
	}
	for _, la := range a.levels {
		i := slices.IndexFunc(b.levels, func(l Level) bool { return l.Rate == la.Rate })
		if i < 0 {
			continue
		}
		lb := b.levels[i]
		p.Matched = append(p.Matched, Matched{Rate: la.Rate, A: sideOf(la, c), B: sideOf(lb, c)})
	}
	slices.SortFunc(p.Matched, func(x, y Matched) int { return cmp.Compare(x.Rate, y.Rate) })
	for i, m := range p.Matched {
		if m.A.KeepsUp && m.B.KeepsUp {
			p.Below = i
		} else if p.Above < 0 {
			p.Above = i
		}
	}
	return p
}

func sideOf(l Level, c Criteria) Side {
	return Side{Achieved: meanAchieved(l.Steps), KeepsUp: keepsUp(l, c), Ops: MeanP99s(l.Steps)}
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Verdict is the sentence a person can quote, as in "r6g saturates at
// 64.8k ops/s, +117% over r5's 29.8k, at 20% lower cost: 2.7× the
// throughput per dollar.", followed by the p99 difference below and above
// saturation when the sweeps share such target rates.
func (p Pair) Verdict() string {
	a, b := p.A, p.B
	s := a.Label + " saturates at " + Compact(a.Saturation) + " ops/s"
	if !a.Saturated {
		s = a.Label + " sustains at least " + Compact(a.Saturation) + " ops/s (it never saturated)"
	}
	base := b.Label + "'s " + Compact(b.Saturation)
	if !b.Saturated {
		base += " (a lower bound: it never saturated)"
	}
	switch {
	case p.Saturation == 0:
		s += ", while " + b.Label + " recorded no throughput"
	case p.Saturation >= 3:
		s += ", " + Times(p.Saturation) + " " + base
	case p.Saturation >= 1:
		s += ", " + SignedPercent(p.Saturation) + " over " + base
	default:
		s += ", " + percentText(1-p.Saturation) + " below " + base
	}
	s += costClause(p)
	if line := p.latencyLine(); line != "" {
		s += " " + line
	}
	return s
}

// costClause states the price difference and the throughput per dollar.
func costClause(p Pair) string {
	if p.Cost == nil {
		return "."
	}
	var s string
	switch c := *p.Cost; {
	case math.Abs(c-1) < 0.005:
		s = ", at the same cost"
	case c < 1:
		s = ", at " + percentText(1-c) + " lower cost"
	case c >= 2:
		s = ", at " + Times(c) + " the cost"
	default:
		s = ", at " + percentText(c-1) + " higher cost"
	}
	if p.PerDollar != nil {
		unit := "dollar"
		if m := p.A.Money(); m != "$" {
			unit = m
		}
		s += ": " + Times(*p.PerDollar) + " the throughput per " + unit
	}
	return s + "."
}

// latencyLine states the highest p99 of each below and above
// saturation.
func (p Pair) latencyLine() string {
	var parts []string
	for _, at := range []struct {
		i    int
		what string
	}{{p.Below, "below saturation"}, {p.Above, "above"}} {
		if at.i < 0 {
			continue
		}
		m := p.Matched[at.i]
		pa, pb := m.A.P99(), m.B.P99()
		if pa == nil || pb == nil {
			continue
		}
		where := fmt.Sprintf("at %s/s", thousands(m.Rate))
		if at.what == "above" {
			where += " (" + m.Regime(p.A.Label, p.B.Label) + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %s p99 is %s ms against %s ms (%s)",
			where, p.A.Label, sig3(*pa), sig3(*pb), SignedPercent(ratio(*pa, *pb))))
	}
	if len(parts) == 0 {
		return ""
	}
	s := "Below saturation, " + parts[0]
	if p.Below < 0 {
		s = "Above saturation, " + parts[0]
	}
	if len(parts) > 1 {
		s += "; " + parts[1]
	}
	return s + "."
}

// Compact formats a rate to three significant figures with a k or M
// suffix, as in "64.8k".
func Compact(v float64) string {
	switch a := math.Abs(v); {
	case a >= 999.5e3:
		return short(v/1e6) + "M"
	case a >= 999.5:
		return short(v/1e3) + "k"
	}
	return short(v)
}

// short is three significant figures without trailing zeros, as in "20"
// or "2.5".
func short(v float64) string {
	s := sig3(v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// SignedPercent formats r − 1 as a signed percentage, as in "+117%" or
// "−20%"; from three times up, as a multiple ("31×").
func SignedPercent(r float64) string {
	if r >= 3 {
		return Times(r)
	}
	d := (r - 1) * 100
	if d < 0 {
		return "−" + short(-d) + "%"
	}
	return "+" + short(d) + "%"
}

// percentText formats a share as a percentage, as in "20%".
func percentText(f float64) string { return short(f*100) + "%" }

// Times formats a ratio as a multiple, as in "2.7×".
func Times(r float64) string { return short(r) + "×" }

// LatestSweep returns the steps of the latest sweep among steps: the one
// with the greatest id (sweep ids start with their UTC start time).
func LatestSweep(steps []Step) []Step {
	latest := ""
	for _, s := range steps {
		latest = max(latest, s.Sweep)
	}
	var out []Step
	for _, s := range steps {
		if s.Sweep == latest {
			out = append(out, s)
		}
	}
	return out
}
