package plan

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Run is one measured repetition of a candidate at its operating point.
type Run struct {
	RunID string
	// Throughput is the operations per second the run sustained.
	Throughput float64
	// Ops holds each operation type's latency (milliseconds).
	Ops map[string]result.Dist
	// ServerCPU is the server's mean CPU over the phase, percent of all
	// cores; nil when the host could not be read.
	ServerCPU *float64
	// Completed and Failed count the run's operations.
	Completed, Failed int64
	// FailedThresholds are the run's thresholds that failed, each with
	// what was measured.
	FailedThresholds []string
}

// Candidate is one deployment the plan considers.
type Candidate struct {
	Name        string
	Description string
	Baseline    bool
	// Monthly is the price per month in Currency.
	Monthly  float64
	Currency string
	Runs     []Run `json:"-"`
}

// Measured is a candidate's runs combined: throughput is the median of
// the runs (with their range), latency comes from the exact merge of the
// runs' histograms, never from averaged percentiles.
type Measured struct {
	Repetitions                  int
	Throughput                   float64
	ThroughputMin, ThroughputMax float64
	Latency                      map[string]result.Dist
	ServerCPU                    *float64
	ErrorRate                    float64
	ThroughputPerCostUnit        float64
	// FailedThresholds are the thresholds that failed in any run, as
	// "run ID: threshold (measured)"; such a candidate passes no stage.
	FailedThresholds []string `json:",omitempty"`
}

// Combine merges a candidate's runs. A run without an encoded histogram
// for an operation type makes that type's latency missing rather than
// approximated.
func Combine(runs []Run, monthly float64) (Measured, error) {
	if len(runs) == 0 {
		return Measured{}, errors.New("no runs")
	}
	m := Measured{Repetitions: len(runs), Latency: map[string]result.Dist{}}
	thr := make([]float64, len(runs))
	var cpus []float64
	var done, failed int64
	for i, r := range runs {
		thr[i] = r.Throughput
		if r.ServerCPU != nil {
			cpus = append(cpus, *r.ServerCPU)
		}
		done += r.Completed
		failed += r.Failed
		for _, t := range r.FailedThresholds {
			m.FailedThresholds = append(m.FailedThresholds, "run "+r.RunID+": "+t)
		}
	}
	m.Throughput = median(thr)
	m.ThroughputMin, m.ThroughputMax = slices.Min(thr), slices.Max(thr)
	if len(cpus) == len(runs) {
		c := median(cpus)
		m.ServerCPU = &c
	}
	if done > 0 {
		m.ErrorRate = float64(failed) / float64(done)
	}
	if monthly > 0 {
		m.ThroughputPerCostUnit = m.Throughput / monthly
	}
	for _, name := range opNames(runs) {
		d, err := mergeOp(runs, name)
		if err != nil {
			return Measured{}, fmt.Errorf("%s latency: %w", name, err)
		}
		if d != nil {
			m.Latency[name] = *d
		}
	}
	return m, nil
}

// mergeOp merges one operation type's histograms over every run; nil when
// a run lacks it.
func mergeOp(runs []Run, name string) (*result.Dist, error) {
	sum := hist.New()
	for _, r := range runs {
		d, ok := r.Ops[name]
		if !ok || d.Hist == "" {
			return nil, nil
		}
		h, err := hist.Decode(d.Hist)
		if err != nil {
			return nil, err
		}
		if err := hist.Merge(sum, h); err != nil {
			return nil, err
		}
	}
	d, err := hist.Summarize(sum)
	return &d, err
}

func opNames(runs []Run) []string {
	var names []string
	for _, r := range runs {
		for n := range r.Ops {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Stage is one step of growth: a name and either users or a rate.
type Stage struct {
	Name  string
	Users float64 // 0 when Rate is given
	Rate  float64 // required ops/s; derived from Users when 0
}

// Demand turns growth stages into required operations per second. With
// Users set, the baseline's measured throughput calibrates it: Users
// users put the baseline at Load (a fraction, e.g. 0.8) of the throughput
// it sustains, so one user asks for Load × throughput / Users ops/s.
type Demand struct {
	Users  float64
	Load   float64
	Stages []Stage
}

// Plan is the whole question.
type Plan struct {
	Candidates  []Candidate
	Demand      Demand
	Constraints []Constraint
}

// Assessment is one candidate's answer.
type Assessment struct {
	Candidate
	Measured
	// Checks are the candidate-wide constraints (latency, errors).
	Checks []Check
	// Stages are the per-stage verdicts, in the plan's stage order.
	Stages []StageFit
	// UsersSupported is how many users it carries within the headroom
	// (0 without a user model).
	UsersSupported float64
}

// Passed reports whether every candidate-wide check passed.
func (a Assessment) Passed() bool {
	return !slices.ContainsFunc(a.Checks, func(c Check) bool { return !c.Pass })
}

// StageFit is whether a candidate carries one stage.
type StageFit struct {
	Stage    string
	Required float64
	Headroom float64 // 1 - required/throughput
	Carries  bool    // within the minimum headroom
	Pass     bool    // carries it and passed every check
	Reason   string  // why not, when !Pass
}

// Recommendation is a stage's answer.
type Recommendation struct {
	Stage    Stage
	Required float64
	// Choice is the cheapest candidate that passes; "" when none does.
	Choice   string
	Headroom float64
	Rejected []Rejection
}

// Rejection names a candidate that does not serve the stage, and why.
type Rejection struct{ Candidate, Reason string }

// Answer is the plan's result.
type Answer struct {
	Baseline    string
	OpsPerUser  float64 // 0 without a user model
	Assessments []Assessment
	Stages      []Recommendation
	Currency    string
}

// Evaluate answers the plan.
func Evaluate(p Plan) (Answer, error) {
	base, err := baseline(p.Candidates)
	if err != nil {
		return Answer{}, err
	}
	as := make([]Assessment, len(p.Candidates))
	for i, c := range p.Candidates {
		m, err := Combine(c.Runs, c.Monthly)
		if err != nil {
			return Answer{}, fmt.Errorf("candidate %s: %w", c.Name, err)
		}
		as[i] = Assessment{Candidate: c, Measured: m}
	}
	baseM := as[base].Measured
	ans := Answer{Baseline: p.Candidates[base].Name, Currency: p.Candidates[base].Currency}
	stages, perUser, err := p.Demand.rates(baseM.Throughput)
	if err != nil {
		return Answer{}, err
	}
	ans.OpsPerUser = perUser
	headroom := minHeadroom(p.Constraints)
	for i := range as {
		as[i].Checks = check(p.Constraints, as[i].Measured, baseM)
		if f := as[i].FailedThresholds; len(f) > 0 {
			as[i].Checks = append(as[i].Checks, Check{Constraint: "thresholds", Value: fmt.Sprintf("%d failed", len(f)),
				Reason: "thresholds failed: " + strings.Join(f, "; ")})
		}
		if perUser > 0 {
			as[i].UsersSupported = as[i].Throughput * (1 - headroom) / perUser
		}
		for _, s := range stages {
			as[i].Stages = append(as[i].Stages, fit(as[i], s, headroom))
		}
	}
	ans.Assessments = as
	for j, s := range stages {
		ans.Stages = append(ans.Stages, recommend(as, j, s))
	}
	return ans, nil
}

func baseline(cs []Candidate) (int, error) {
	if len(cs) == 0 {
		return 0, errors.New("the plan has no candidates")
	}
	idx := -1
	for i, c := range cs {
		if c.Baseline {
			if idx >= 0 {
				return 0, fmt.Errorf("two baselines: %s and %s", cs[idx].Name, c.Name)
			}
			idx = i
		}
	}
	if idx < 0 {
		return 0, errors.New("no candidate is the baseline (set baseline: true on one)")
	}
	return idx, nil
}

// rates returns the stages with their required rates, and the ops/s per
// user of a user model.
func (d Demand) rates(baseThroughput float64) ([]Stage, float64, error) {
	var perUser float64
	if d.Users > 0 {
		if d.Load <= 0 || d.Load > 1 {
			return nil, 0, fmt.Errorf("demand load %g: want a fraction in (0, 1]", d.Load)
		}
		perUser = d.Load * baseThroughput / d.Users
	}
	out := make([]Stage, len(d.Stages))
	for i, s := range d.Stages {
		switch {
		case s.Rate > 0:
		case s.Users > 0 && perUser > 0:
			s.Rate = s.Users * perUser
		case s.Users > 0:
			return nil, 0, fmt.Errorf("stage %q is in users but the demand has no users calibration", s.Name)
		default:
			return nil, 0, fmt.Errorf("stage %q needs users or a rate", s.Name)
		}
		out[i] = s
	}
	return out, perUser, nil
}

func fit(a Assessment, s Stage, headroom float64) StageFit {
	f := StageFit{Stage: s.Name, Required: s.Rate}
	if a.Throughput > 0 {
		f.Headroom = 1 - s.Rate/a.Throughput
	} else {
		f.Headroom = -1
	}
	f.Carries = f.Headroom >= headroom
	switch {
	case !f.Carries && headroom > 0:
		f.Reason = fmt.Sprintf("sustains %s ops/s; the stage needs %s with %s headroom (%s)",
			num(a.Throughput), num(s.Rate), pct(headroom), num(s.Rate/(1-headroom)))
	case !f.Carries:
		f.Reason = fmt.Sprintf("sustains %s ops/s; the stage needs %s", num(a.Throughput), num(s.Rate))
	case !a.Passed():
		f.Reason = failedChecks(a.Checks)
	}
	f.Pass = f.Carries && a.Passed()
	return f
}

// recommend picks the cheapest candidate that passes stage j; a tie on
// price goes to the higher throughput.
func recommend(as []Assessment, j int, s Stage) Recommendation {
	r := Recommendation{Stage: s, Required: s.Rate}
	var pass []Assessment
	for _, a := range as {
		if a.Stages[j].Pass {
			pass = append(pass, a)
		}
	}
	slices.SortStableFunc(pass, func(x, y Assessment) int {
		return cmp.Or(cmp.Compare(x.Monthly, y.Monthly), cmp.Compare(y.Throughput, x.Throughput))
	})
	if len(pass) > 0 {
		r.Choice, r.Headroom = pass[0].Name, pass[0].Stages[j].Headroom
	}
	for _, a := range as {
		switch {
		case a.Name == r.Choice:
		case !a.Stages[j].Pass:
			r.Rejected = append(r.Rejected, Rejection{a.Name, a.Stages[j].Reason})
		default:
			r.Rejected = append(r.Rejected, Rejection{a.Name, fmt.Sprintf("passes, but costs %s a month against %s",
				num(a.Monthly), num(pass[0].Monthly))})
		}
	}
	return r
}
