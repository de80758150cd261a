// Package validity judges whether a run counts before any statistic sees
// it: a table of named rules (the client saturated, starved or imprecise, CPU
// steal, the server restarted, a member changing state or lagging, the
// cache over its configured size, swapping, a telemetry source silent
// for most of the run, too few operations for the percentiles), each
// with its evidence.
// A run is invalid when one rule says so, suspect when one warns, valid
// otherwise; a rule whose figure the run does not hold is "not judged"
// and says which figure, never passed as if measured.
package validity

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// Bound is a rule's two bounds, in its unit: at or above Suspect the run
// is suspect, at or above Invalid it is invalid. A rule that only warns
// has no Invalid bound (+Inf).
type Bound struct{ Suspect, Invalid float64 }

// Bounds are every rule's bounds, by rule name.
type Bounds map[string]Bound

// rule is one row of the table.
type rule struct {
	name, unit, about string
	bound             Bound
	// figure reads the rule's figure from the run: ok false (with what
	// is missing) when the run does not hold it; evidence words it.
	figure func(d *result.Doc) (v float64, evidence string, ok bool)
}

// The rules' names, as stored and as given to --validity.
const (
	ClientSaturated  = "client-saturated"
	ClientStarved    = "client-starved"
	ClientImprecise  = "client-imprecise"
	CPUSteal         = "cpu-steal"
	ServerRestarted  = "server-restarted"
	MemberLag        = "member-lag"
	MemberState      = "member-state-changed"
	CacheOverfull    = "cache-overfull"
	Swapping         = "swapping"
	TelemetrySilent  = "telemetry-silent"
	FewOperations    = "few-operations"
	minOpsForP99     = 100
	silentShareFloor = 0.5
)

var inf = math.Inf(1)

// rules is the table, in the order judged and shown.
var rules = []rule{
	{ClientSaturated, "", "the client, not the server, ran out of headroom (its CPU or its schedule)", Bound{1, 1}, clientSaturated},
	{ClientStarved, "% of its ready time", "the client's threads waited for a CPU while ready to run (another process took the client's cores)", Bound{50, inf}, clientStarved},
	{ClientImprecise, "% of the smallest p50", "the schedule's send lag p99 is a material share of the latencies it reports", Bound{1, inf}, clientImprecise},
	{CPUSteal, "% of the host's CPU", "the server's host lost CPU to its hypervisor (mean steal over the run)", Bound{5, 20}, cpuSteal},
	{ServerRestarted, "s of uptime lost", "the server restarted during the run: its uptime grew less than the run's time", Bound{2, 2}, serverRestarted},
	{MemberState, "members", "a replica set member changed state during the run (its state in replSetGetStatus differs from the run's start; a new primary)", Bound{1, 1}, memberStateChanged},
	{MemberLag, "s", "a secondary lagged the primary (largest lag over the run)", Bound{10, 60}, memberLag},
	{CacheOverfull, "% of the configured cache", "the storage engine's cache held more than its configured size (largest interval)", Bound{100, 105}, cacheOverfull},
	{Swapping, "pages/s", "the server's host swapped (pages swapped in and out per second, mean over the run)", Bound{10, 1000}, swapping},
	{TelemetrySilent, "% of intervals", "a telemetry source that answered stayed silent for most of the run", Bound{100 * silentShareFloor, inf}, telemetrySilent},
	{FewOperations, "operations", "an operation type had too few successes for its p99 (fewer than 100: its p99 is its maximum)", Bound{1, inf}, fewOperations},
}

// Default are the rules' bounds as documented (docs/validity.md).
func Default() Bounds {
	b := Bounds{}
	for _, r := range rules {
		b[r.name] = r.bound
	}
	return b
}

// Names are the rules' names in the order judged.
func Names() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}

// Judge runs every rule on the run with the bounds given (a rule missing
// from them takes its default).
func Judge(d *result.Doc, b Bounds) result.Validity {
	v := result.Validity{State: result.Valid}
	for _, r := range rules {
		bound, ok := b[r.name]
		if !ok {
			bound = r.bound
		}
		j := result.ValidityRule{Rule: r.name, Unit: r.unit, Suspect: result.F(bound.Suspect)}
		if !math.IsInf(bound.Invalid, 1) {
			j.Invalid = result.F(bound.Invalid)
		}
		x, ev, ok := r.figure(d)
		switch {
		case !ok:
			j.Outcome, j.Evidence = result.NotJudged, ev
		case x >= bound.Invalid:
			j.Outcome, j.Value, j.Evidence = result.Invalid, result.F(x), ev
		case x >= bound.Suspect:
			j.Outcome, j.Value, j.Evidence = result.Suspect, result.F(x), ev
		default:
			j.Outcome, j.Value, j.Evidence = result.Valid, result.F(x), ev
		}
		v.Rules = append(v.Rules, j)
		v.State = worse(v.State, j.Outcome)
	}
	return v
}

func worse(state, outcome string) string {
	switch {
	case outcome == result.Invalid || state == result.Invalid:
		return result.Invalid
	case outcome == result.Suspect || state == result.Suspect:
		return result.Suspect
	}
	return state
}

// Line words a judgement in one line: "valid", or the state and each rule
// that made it so with its evidence.
func Line(v result.Validity) string {
	if v.State == "" {
		return ""
	}
	var why []string
	for _, r := range v.Rules {
		if r.Outcome == result.Suspect || r.Outcome == result.Invalid {
			why = append(why, fmt.Sprintf("%s (%s): %s", r.Rule, r.Outcome, r.Evidence))
		}
	}
	if len(why) == 0 {
		return v.State
	}
	return v.State + ": " + strings.Join(why, "; ")
}

// Counts says whether a stored run counts in a comparison, a change
// point, an SLA or a plan: a run judged invalid does not, unless the
// reader asked for invalid runs too; a run stored before validity was
// judged counts.
func Counts(d *result.Doc, includeInvalid bool) bool {
	return includeInvalid || d.Validity == nil || d.Validity.State != result.Invalid
}

// Parse reads one --validity value: RULE=SUSPECT or RULE=SUSPECT,INVALID
// (in the rule's unit; "off" turns the rule into a note that never
// warns), into b.
func Parse(b Bounds, s string) error {
	name, val, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return fmt.Errorf("validity bound %q: want RULE=SUSPECT[,INVALID] (rules: %s)", s, strings.Join(Names(), ", "))
	}
	i := slices.IndexFunc(rules, func(r rule) bool { return r.name == name })
	if i < 0 {
		return fmt.Errorf("validity rule %q: want one of %s", name, strings.Join(Names(), ", "))
	}
	if strings.TrimSpace(val) == "off" {
		b[name] = Bound{inf, inf}
		return nil
	}
	parts := strings.Split(val, ",")
	if len(parts) > 2 {
		return fmt.Errorf("validity bound %q: want RULE=SUSPECT[,INVALID]", s)
	}
	var got []float64
	for _, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("validity bound %q: %q is not a finite number at least 0 (in %s)", s, p, unitOr(rules[i].unit))
		}
		got = append(got, x)
	}
	bound := Bound{got[0], inf}
	if len(got) == 2 {
		if got[1] < got[0] {
			return fmt.Errorf("validity bound %q: the invalid bound %v is below the suspect bound %v", s, got[1], got[0])
		}
		bound.Invalid = got[1]
	}
	b[name] = bound
	return nil
}

func unitOr(u string) string {
	if u == "" {
		return "1 for yes"
	}
	return u
}

// Filter keeps the runs that count (Counts), in order, and says how many
// it left out.
func Filter(docs []result.Doc, includeInvalid bool) ([]result.Doc, int) {
	kept := docs[:0:0]
	for i := range docs {
		if Counts(&docs[i], includeInvalid) {
			kept = append(kept, docs[i])
		}
	}
	return kept, len(docs) - len(kept)
}

// LeftOut words how many invalid runs a reader left out, "" for none.
func LeftOut(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d run(s) judged invalid left out (--include-invalid counts them)", n)
}
