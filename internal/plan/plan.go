package plan

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Run is one measured repetition of a candidate at its operating point.
type Run struct {
	RunID string
	// Stage is the plan stage the run measured (a paced plan's); "" for
	// a run at the candidate's saturation.
	Stage string
	// Throughput is the operations per second the run sustained.
	Throughput float64
	// Ops holds each operation type's latency (milliseconds).
	Ops map[string]result.Dist
	// ServerCPU is the server process's mean CPU over the phase, percent
	// of the CPUs of the host it was read on; nil when it was not read.
	ServerCPU *float64
	// OnHost says the server ran on the tool's host, and HostCores is
	// how many CPUs that host has (0: unknown), of which ServerCPU is a
	// share. Without OnHost the figure is already a share of the server's
	// own host (a monitoring API's normalized CPU).
	OnHost    bool
	HostCores int
	// CPUFromHost says ServerCPU is the server's host's CPU (a node
	// exporter, which has no per-process figures), not the process's.
	CPUFromHost bool
	// Limited is the run's diagnosis ("limited by: …"); empty when the
	// document has none.
	Limited string
	// Completed and Failed count the run's operations; Counts count
	// them per operation type.
	Completed, Failed int64
	Counts            map[string]OpCount
	// FailedThresholds are the run's thresholds that failed, each with
	// what was measured.
	FailedThresholds []string
}

// OpCount counts an operation type's completed operations (with or
// without an error) and those that failed.
type OpCount struct{ Completed, Failed int64 }

// Candidate is one deployment the plan considers.
type Candidate struct {
	Name        string
	Description string
	Baseline    bool
	// Monthly is the price per month in Currency.
	Monthly  float64
	Currency string
	// CPUs is how many CPUs the server may use (a profile's CPU list, or
	// the instance's vCPU); 0 when not known, which on the tool's host
	// means all of its CPUs.
	CPUs int
	Runs []Run `json:"-"`
}

// Measured is a candidate's runs combined: throughput is the median of
// the runs (with their range), latency comes from the exact merge of the
// runs' histograms, never from averaged percentiles.
type Measured struct {
	// Limited are the runs' diagnoses, each once, in run order: what
	// limited the candidate.
	Limited                      []string `json:",omitempty"`
	Repetitions                  int
	Throughput                   float64
	ThroughputMin, ThroughputMax float64
	Latency                      map[string]result.Dist
	// ServerCPU is the median over the runs of the server's CPU as a
	// percent of its own CPUs (100 is every CPU it may use busy); nil
	// when a run lacks it, and NoServerCPU says why.
	ServerCPU   *float64
	NoServerCPU string `json:",omitempty"`
	// CPUFromHost says ServerCPU is the server host's CPU from its node
	// exporter (no per-process figure), taken to be the server's alone.
	CPUFromHost           bool `json:",omitempty"`
	ErrorRate             float64
	Counts                map[string]OpCount `json:"-"`
	ThroughputPerCostUnit float64
	// FailedThresholds are the thresholds that failed in any run, as
	// "run ID: threshold (measured)"; such a candidate passes no stage.
	FailedThresholds []string `json:",omitempty"`
}

// Combine merges a candidate's runs. A run without an encoded histogram
// for an operation type makes that type's latency missing rather than
// approximated; a run without server CPU makes the candidate's missing.
func Combine(c Candidate) (Measured, error) {
	runs := c.Runs
	if len(runs) == 0 {
		return Measured{}, errors.New("no runs")
	}
	m := Measured{Repetitions: len(runs), Latency: map[string]result.Dist{}, Counts: map[string]OpCount{}}
	thr := make([]float64, len(runs))
	var cpus []float64
	var done, failed int64
	for i, r := range runs {
		thr[i] = r.Throughput
		if cpu, why := ownCPU(r, c.CPUs); why != "" {
			m.NoServerCPU = why
		} else {
			cpus = append(cpus, cpu)
		}
		m.CPUFromHost = m.CPUFromHost || r.CPUFromHost
		if r.Limited != "" && !slices.Contains(m.Limited, r.Limited) {
			m.Limited = append(m.Limited, r.Limited)
		}
		done += r.Completed
		failed += r.Failed
		for name, c := range r.Counts {
			sum := m.Counts[name]
			m.Counts[name] = OpCount{sum.Completed + c.Completed, sum.Failed + c.Failed}
		}
		for _, t := range r.FailedThresholds {
			m.FailedThresholds = append(m.FailedThresholds, "run "+r.RunID+": "+t)
		}
	}
	m.Throughput = median(thr)
	m.ThroughputMin, m.ThroughputMax = slices.Min(thr), slices.Max(thr)
	if len(cpus) == len(runs) {
		v := median(cpus)
		m.ServerCPU = &v
	}
	monthly := c.Monthly
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

// ownCPU is a run's server CPU as a percent of the server's own CPUs
// (cpus; 0: all of the host's): a share of the host's HostCores scaled
// by HostCores/cpus. A 1-CPU profile at 48% of a 2-CPU host is at 96%.
// It returns why when the run has no such figure.
func ownCPU(r Run, cpus int) (float64, string) {
	switch {
	case r.ServerCPU == nil:
		return 0, fmt.Sprintf("run %s has no server CPU figures (the tool reads them from /proc for a server on its own host, from the Atlas API, or from the server host's node exporter with --host-metrics)", r.RunID)
	case !r.OnHost:
		return *r.ServerCPU, ""
	case r.HostCores <= 0:
		return 0, fmt.Sprintf("run %s does not say how many CPUs its host has", r.RunID)
	case cpus == 0:
		cpus = r.HostCores
	}
	return *r.ServerCPU * float64(r.HostCores) / float64(cpus), ""
}

// mergeOp merges one operation type's histograms over every run; nil when
// a run lacks it.
func mergeOp(runs []Run, name string) (*result.Dist, error) {
	var ds []result.Dist
	for _, r := range runs {
		d, ok := r.Ops[name]
		if !ok || d.Hist == "" {
			return nil, nil
		}
		ds = append(ds, d)
	}
	d, err := hist.MergeDists(ds...)
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

// Stage is one step of growth: a name and either users or a rate (a
// recording's plan: its growth, the recording's rate times it).
type Stage struct {
	Name  string
	Users float64 // 0 when Rate is given
	Rate  float64 // required ops/s; derived from Users when 0
	// Growth is how many times the recorded traffic the stage replays
	// (a recording's plan); 0 otherwise.
	Growth float64 `json:",omitempty"`
}

// Demand turns growth stages into required operations per second. With
// Users set, the baseline calibrates it: today's Users users load the
// baseline to Load (a fraction, e.g. 0.8) of what By measures.
type Demand struct {
	Users float64
	Load  float64
	// By is what Load is a share of: the baseline's sustained throughput
	// (the default) or its server CPU.
	By     Calibration
	Stages []Stage
}

// Calibration is what a user model is calibrated by.
type Calibration int

// The calibrations of a user model.
const (
	// ByThroughput: Users users use Load of the throughput the baseline
	// sustains, so one user asks for Load × throughput / Users ops/s.
	ByThroughput Calibration = iota
	// ByCPU: Users users put the baseline's server at Load of its CPUs.
	// Throughput is taken to grow in proportion to the server's CPU, so
	// one user asks for throughput × Load / CPU / Users ops/s, where CPU
	// is the share of its CPUs the baseline used while sustaining its
	// throughput.
	ByCPU
)

// String names the calibration as a plan file does: "throughput" or "cpu".
func (c Calibration) String() string {
	if c == ByCPU {
		return "cpu"
	}
	return "throughput"
}

// MarshalText writes the calibration's name.
func (c Calibration) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// Plan is the whole question.
type Plan struct {
	Candidates []Candidate
	Demand     Demand
	// Constraints are thresholds (threshold.Parse) every candidate must
	// meet, relative ones against the baseline; headroom is per stage.
	Constraints []threshold.Threshold
	// Paced says every stage was measured at its own rate (a recording
	// replayed at each stage's growth): a candidate carries a stage when
	// its runs there kept KeepUp of the rate and met the constraints,
	// judged on those runs (Evaluate's paced answer).
	Paced bool
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
	// (0 without a calibrated user model).
	UsersSupported float64
	// VsBaseline are its figures over the baseline's.
	VsBaseline Ratios
}

// Ratios are a candidate's figures over the baseline's, as ratios: 2.6
// is 160% more, 0.8 is 20% less. A ratio is nil where either figure is
// missing or the baseline's is 0.
type Ratios struct {
	Throughput *float64
	// Latency is each operation type's p95 and p99 over the baseline's.
	Latency           map[string]LatencyRatios
	Cost              *float64
	ThroughputPerCost *float64
}

// LatencyRatios are an operation type's percentiles over the baseline's.
type LatencyRatios struct{ P95, P99 *float64 }

// ratios compares m (priced monthly) with the baseline's figures.
func ratios(m, base Measured, monthly, baseMonthly float64) Ratios {
	r := Ratios{
		Throughput:        ratioOf(m.Throughput, base.Throughput),
		Cost:              ratioOf(monthly, baseMonthly),
		ThroughputPerCost: ratioOf(m.ThroughputPerCostUnit, base.ThroughputPerCostUnit),
		Latency:           map[string]LatencyRatios{},
	}
	if m.ThroughputPerCostUnit == 0 {
		r.ThroughputPerCost = nil // no price: nothing per cost
	}
	for _, op := range sortedKeys(m.Latency, base.Latency) {
		lr := LatencyRatios{
			P95: optRatio(pick(m.Latency, op, "p95"), pick(base.Latency, op, "p95")),
			P99: optRatio(pick(m.Latency, op, "p99"), pick(base.Latency, op, "p99")),
		}
		if lr.P95 != nil || lr.P99 != nil {
			r.Latency[op] = lr
		}
	}
	return r
}

func ratioOf(v, base float64) *float64 {
	if base == 0 {
		return nil
	}
	x := v / base
	return &x
}

func optRatio(v, base *float64) *float64 {
	if v == nil || base == nil {
		return nil
	}
	return ratioOf(*v, *base)
}

// Passed reports whether every candidate-wide check passed.
func (a Assessment) Passed() bool { return allPass(a.Checks) }

// allPass reports whether every check passed.
func allPass(cs []Check) bool {
	return !slices.ContainsFunc(cs, func(c Check) bool { return !c.Pass })
}

// withThresholds adds to cs the failed check of a candidate's (or a
// stage's) runs whose thresholds failed; cs as it is when none did.
func withThresholds(cs []Check, failed []string) []Check {
	if len(failed) == 0 {
		return cs
	}
	return append(cs, Check{Constraint: "thresholds", Value: fmt.Sprintf("%d failed", len(failed)),
		Reason: "thresholds failed: " + strings.Join(failed, "; ")})
}

// StageFit is whether a candidate carries one stage. A stage in users
// whose demand could not be calibrated has no required rate, and neither
// carries nor passes, with the reason.
type StageFit struct {
	Stage    string
	Required float64 // 0 when not calibrated
	Headroom float64 // 1 - required/throughput
	Carries  bool    // within the minimum headroom (paced: kept the rate)
	Pass     bool    // carries it and passed every check
	Reason   string  // why not, when !Pass
	// A paced plan's stage: the stage's own runs combined, the share of
	// the required rate they kept (Achieved/Required) and the
	// constraints judged on them; nil when the stage has no runs.
	Measured *Measured `json:",omitempty"`
	Kept     float64   `json:",omitempty"`
	Checks   []Check   `json:",omitempty"`
}

// Recommendation is a stage's answer.
type Recommendation struct {
	Stage    Stage
	Required float64
	// Choice is the cheapest candidate that passes; "" when none does.
	Choice   string
	Headroom float64
	// Kept is the choice's share of the required rate, in a paced plan.
	Kept     float64 `json:",omitempty"`
	Rejected []Rejection
	// NotCalibrated says why a stage in users has no required rate: the
	// demand could not be calibrated (UserModel.Problem).
	NotCalibrated string `json:",omitempty"`
}

// Rejection names a candidate that does not serve the stage, and why.
type Rejection struct{ Candidate, Reason string }

// Answer is the plan's result.
type Answer struct {
	Baseline string
	// OpsPerUser is the calibrated user model's ops/s per user; 0 without
	// one, or when it could not be calibrated (Users says why).
	OpsPerUser float64
	// Users is the user model; nil when the demand is in rates.
	Users       *UserModel `json:",omitempty"`
	Assessments []Assessment
	Stages      []Recommendation
	Currency    string
	// Paced says each stage was measured at its own rate (Plan.Paced);
	// a candidate's own figures are then its first stage's.
	Paced bool `json:",omitempty"`
}

// UserModel is how the demand's users were turned into operations per
// second on the baseline.
type UserModel struct {
	// Users use Load (a fraction) of what By measures on the baseline.
	Users float64
	Load  float64
	By    Calibration
	// BaselineThroughput is what the baseline sustained; BaselineCPU its
	// server CPU meanwhile, percent of its own CPUs (nil: not measured).
	BaselineThroughput float64
	BaselineCPU        *float64
	// OpsPerUser is 0 when Problem says why the model could not be
	// calibrated.
	OpsPerUser float64
	Problem    string `json:",omitempty"`
	// Note says what to keep in mind about a calibration that was made,
	// such as a CPU share beyond the one the baseline's runs reached.
	Note string `json:",omitempty"`
}

// Evaluate answers the plan.
func Evaluate(p Plan) (Answer, error) {
	base, err := baseline(p.Candidates)
	if err != nil {
		return Answer{}, err
	}
	if p.Paced {
		return evaluatePaced(p, base)
	}
	as := make([]Assessment, len(p.Candidates))
	for i, c := range p.Candidates {
		m, err := Combine(c)
		if err != nil {
			return Answer{}, fmt.Errorf("candidate %s: %w", c.Name, err)
		}
		as[i] = Assessment{Candidate: c, Measured: m}
	}
	baseM, baseC := as[base].Measured, p.Candidates[base]
	ans := Answer{Baseline: baseC.Name, Currency: baseC.Currency}
	model, err := p.Demand.model(baseM)
	if err != nil {
		return Answer{}, err
	}
	ans.Users = model
	stages, err := p.Demand.rates(model)
	if err != nil {
		return Answer{}, err
	}
	var perUser float64
	if model != nil {
		perUser = model.OpsPerUser
	}
	ans.OpsPerUser = perUser
	headroom := minHeadroom(p.Constraints)
	carry := func(h float64) bool { return carries(p.Constraints, h) }
	for i := range as {
		as[i].Checks = check(p.Constraints, as[i].Measured, baseM)
		as[i].VsBaseline = ratios(as[i].Measured, baseM, as[i].Monthly, baseC.Monthly)
		as[i].Checks = withThresholds(as[i].Checks, as[i].FailedThresholds)
		if perUser > 0 {
			as[i].UsersSupported = as[i].Throughput * (1 - headroom) / perUser
		}
		for _, s := range stages {
			as[i].Stages = append(as[i].Stages, fit(as[i], s, headroom, carry, model))
		}
	}
	ans.Assessments = as
	for j, s := range stages {
		ans.Stages = append(ans.Stages, recommend(as, j, s, model))
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

// model calibrates the user model on the baseline's figures; nil without
// users. A model that cannot be calibrated (by CPU, the baseline's CPU
// not measured) says why in Problem rather than failing the plan.
func (d Demand) model(base Measured) (*UserModel, error) {
	if d.Users <= 0 {
		return nil, nil
	}
	if d.Load <= 0 || d.Load > 1 {
		return nil, fmt.Errorf("demand load %g: want a fraction in (0, 1]", d.Load)
	}
	m := &UserModel{Users: d.Users, Load: d.Load, By: d.By, BaselineThroughput: base.Throughput, BaselineCPU: base.ServerCPU}
	if d.By == ByThroughput {
		m.OpsPerUser = d.Load * base.Throughput / d.Users
		return m, nil
	}
	cpu := base.ServerCPU
	switch {
	case cpu == nil:
		m.Problem = "cannot calibrate the demand by server CPU: the baseline's " + base.NoServerCPU
	case *cpu <= 0:
		m.Problem = "cannot calibrate the demand by server CPU: the baseline's server CPU was 0% while it sustained " + num(base.Throughput) + " ops/s"
	case base.Throughput <= 0:
		m.Problem = "cannot calibrate the demand by server CPU: the baseline sustained no throughput"
	default:
		m.OpsPerUser = base.Throughput * d.Load / (*cpu / 100) / d.Users
		var notes []string
		if *cpu < d.Load*100 {
			notes = append(notes, fmt.Sprintf("the baseline's runs reached %s%% server CPU, below the %s calibrated at: its rate there is extrapolated in proportion",
				num(*cpu), pct(d.Load)))
		}
		if base.CPUFromHost {
			notes = append(notes, "the baseline's server CPU is its host's, from the host's node exporter (which has no per-process figures): the host is taken to run the server alone")
		}
		m.Note = strings.Join(notes, "; ")
	}
	return m, nil
}

// rates returns the stages with their required rates; a stage in users
// keeps rate 0 when the user model could not be calibrated.
func (d Demand) rates(m *UserModel) ([]Stage, error) {
	out := make([]Stage, len(d.Stages))
	for i, s := range d.Stages {
		switch {
		case s.Rate > 0:
		case s.Users > 0 && m != nil && m.OpsPerUser > 0:
			s.Rate = s.Users * m.OpsPerUser
		case s.Users > 0 && m != nil && m.Problem != "":
		case s.Users > 0:
			return nil, fmt.Errorf("stage %q is in users but the demand has no users calibration", s.Name)
		default:
			return nil, fmt.Errorf("stage %q needs users or a rate", s.Name)
		}
		out[i] = s
	}
	return out, nil
}

// fit judges whether a carries stage s: its headroom there is judged by
// the plan's headroom constraints (carry); headroom is the largest asked
// for, to say what the stage needs.
func fit(a Assessment, s Stage, headroom float64, carry func(float64) bool, m *UserModel) StageFit {
	f := StageFit{Stage: s.Name, Required: s.Rate}
	if s.Rate == 0 {
		f.Reason = m.Problem
		return f
	}
	if a.Throughput > 0 {
		f.Headroom = 1 - s.Rate/a.Throughput
	} else {
		f.Headroom = -1
	}
	f.Carries = carry(f.Headroom)
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
func recommend(as []Assessment, j int, s Stage, m *UserModel) Recommendation {
	r := Recommendation{Stage: s, Required: s.Rate}
	if s.Rate == 0 {
		r.NotCalibrated = m.Problem
		return r
	}
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
		r.Choice, r.Headroom, r.Kept = pass[0].Name, pass[0].Stages[j].Headroom, pass[0].Stages[j].Kept
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
