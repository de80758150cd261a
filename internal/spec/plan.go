package spec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Plan is a capacity plan: the workload to measure, the candidate
// deployments, how many runs each, the demand to meet and the rules a
// candidate must keep.
type Plan struct {
	// Name identifies the plan's runs in the results (variant.plan).
	Name string
	// Scenario is the workload every candidate runs, as in a scenario
	// file; its uri is ignored (each candidate is a target).
	Scenario   *Scenario
	Runs       int
	Candidates []Target
	Demand     plan.Demand
	// Constraints are thresholds (threshold.Parse) a candidate must meet.
	Constraints []threshold.Threshold
	// RecordedRate is the rate (requests per second) of the recording
	// the scenario replays; 0 when it replays none. A recording's plan
	// is paced: each stage replays the recording at its own rate (its
	// growth times RecordedRate).
	RecordedRate float64
}

var planFile = fileKind{
	want: `a mapping with name, scenario, runs, candidates, demand and constraints`,
	one:  "one plan per file",
}

var (
	planKeys      = []string{"name", "scenario", "runs", "candidates", "demand", "constraints"}
	demandKeys    = []string{"users", "load", "calibrate", "stages"}
	calibrateKeys = []string{"users", "cpu", "throughput"}
	stageKeys     = []string{"name", "users", "rate", "growth"}
)

const (
	wantPlanName   = "a name such as image-app-2027"
	wantRuns       = "a whole number of runs per candidate, 1 to 100"
	wantLoad       = "a percentage such as 80%: the share of the baseline's sustainable throughput its users use today"
	wantCPULoad    = "a percentage such as 80%: the share of the baseline's server CPU its users use today"
	wantCalibrate  = "{users: 25000, cpu: 80%} or {users: 25000, throughput: 80%}: today's users, and the share of the baseline's server CPU or sustained throughput they use"
	wantUsers      = "a positive number of users such as 25000"
	wantStageRate  = "a positive rate such as 5000/s"
	wantConstraint = `a threshold on latency, errors, throughput or headroom such as "p95 READ <= +5%" (a change against the baseline), "p99(READ) <= 10ms", "errors <= 0.1%", "throughput >= -10%" or "headroom >= 20%"`
	wantStages     = "a list of stages, each {name, users} or {name, rate}"
	wantGrowth     = "a positive number of times the recorded traffic, such as 2 (or 2x), at most 1000"
	wantRecStages  = "a recording's stages, each {name, growth} (2: twice the recorded traffic) or {name, rate}"
)

// ParsePlanFile reads a plan file; see ParsePlan.
func ParsePlanFile(path string, reg Registry) (*Plan, error) {
	data, err := bounded.ReadFile(path, bounded.ScenarioFile)
	if err != nil {
		return nil, fmt.Errorf("read plan: %w", err)
	}
	return ParsePlan(path, data, reg)
}

// ParsePlan reads a capacity plan from YAML:
//
//	name: image-app
//	scenario: {workload: ycsb-b, threads: 16, duration: 30s, warmup: 5s, params: {recordcount: 100000}}
//	runs: 2
//	candidates:            # targets, as in a targets file; one is the baseline
//	  - {label: today, uri: 'mongodb://db1/', price: 940 EUR/month, baseline: true}
//	  - {label: bigger, profile: {cpus: "0-1", cacheSize: 1GB}, price: 1391 EUR/month}
//	demand:
//	  calibrate: {users: 25000, cpu: 80%}   # 25,000 users put the baseline's server at 80% of its CPUs today
//	  stages: [{name: next year, users: 50000}, {name: in two years, users: 90000}]
//	constraints: ["p95 READ <= +5%", "p95 UPDATE <= +5%", "errors <= 0.1%"]
//
// The calibration is by server CPU (cpu: 80%) or by throughput
// (throughput: 80%: the users use 80% of what the baseline sustains);
// "users: 25000, load: 80%" directly under demand is the same as
// calibrate: {users: 25000, throughput: 80%}. Stages may give a rate
// (rate: 5000/s) instead of users, and then the demand needs no
// calibration. Every candidate needs a price. The error, if any, joins
// every problem found, each with file:line.
func ParsePlan(filename string, data []byte, reg Registry) (*Plan, error) {
	if filename == "" {
		filename = "<input>"
	}
	p := &parser{file: filename, kind: planFile}
	root := p.document(data)
	if root == nil {
		return nil, joinErrors(p.errs)
	}
	pl := &Plan{Runs: 1}
	given := map[string]bool{}
	for _, e := range p.entries(root, "", "key", planKeys) {
		given[e.name] = true
		switch e.name {
		case "name":
			pl.Name, _ = p.text("name", e.val, wantPlanName)
		case "scenario":
			pl.Scenario = p.planScenario(filename, e.val, reg)
		case "runs":
			if s, ok := p.text("runs", e.val, wantRuns); ok {
				pl.Runs = int(p.positiveInt("runs", e.val.Line, s, wantRuns))
				if pl.Runs > 100 {
					p.add(e.val.Line, &Error{Field: "runs", Value: s, Want: wantRuns})
				}
			}
		case "candidates":
			pl.Candidates = p.targetList("candidates", e.val)
		case "demand":
			pl.Demand = p.demand(e.val)
		case "constraints":
			pl.Constraints = p.constraints(e.val)
		}
	}
	for _, k := range []string{"name", "scenario", "candidates", "demand"} {
		if !given[k] {
			p.add(root.Line, &Error{Field: k, Problem: "is missing", Want: "a plan needs name, scenario, candidates and demand"})
		}
	}
	p.checkCandidates(pl.Candidates)
	p.paced(pl, reg)
	p.checkDemand(root.Line, pl.Demand)
	if len(p.errs) > 0 {
		return nil, joinErrors(p.errs)
	}
	return pl, nil
}

// planScenario reads the scenario mapping with the scenario file's rules.
func (p *parser) planScenario(filename string, val *yaml.Node, reg Registry) *Scenario {
	m := p.mappingOf("scenario", val, `a scenario such as {workload: ycsb-b, threads: 16, duration: 30s}`)
	if m == nil {
		return nil
	}
	s := &Scenario{src: &origin{file: filename, top: m.Line}}
	before := len(p.errs)
	var w Where // a plan's candidates are its targets; its scenario's own are checked, not used
	p.scenario(s, &w, m, reg)
	s.applyDefaults(reg)
	for _, e := range append(s.problems(reg), w.problems(s.origin())...) {
		e.Field = "scenario." + e.Field
		p.errs = append(p.errs, e)
	}
	for _, e := range p.errs[before:] {
		if e.Field != "" && !strings.HasPrefix(e.Field, "scenario") {
			e.Field = "scenario." + e.Field
		}
	}
	return s
}

func (p *parser) demand(val *yaml.Node) plan.Demand {
	var d plan.Demand
	m := p.mappingOf("demand", val, wantStages)
	if m == nil {
		return d
	}
	calibrated, shorthand := 0, false
	for _, e := range p.entries(m, "demand", "key", demandKeys) {
		f := "demand." + e.name
		s, ok := "", false
		if e.name != "stages" && e.name != "calibrate" {
			if s, ok = p.text(f, e.val, ""); !ok {
				continue
			}
		}
		switch e.name {
		case "users":
			d.Users, shorthand = p.positive(f, e.val.Line, s, wantUsers), true
		case "load":
			d.Load, shorthand = p.share(f, e.val.Line, s, wantLoad), true
		case "calibrate":
			calibrated = e.val.Line
			p.calibrate(&d, e.val)
		case "stages":
			d.Stages = p.stages(e.val)
		}
	}
	if calibrated > 0 && shorthand {
		p.add(calibrated, &Error{Field: "demand.calibrate", Problem: "is given with demand.users or demand.load", Want: "one calibration: " + wantCalibrate})
	}
	return d
}

// share reads a percentage in (0%, 100%] as a fraction.
func (p *parser) share(f string, line int, s, want string) float64 {
	if v, ok := parseDecimal(strings.TrimSuffix(s, "%")); ok && strings.HasSuffix(s, "%") && v > 0 && v <= 100 {
		return v / 100
	}
	p.add(line, &Error{Field: f, Value: s, Want: want})
	return 0
}

// calibrate reads demand.calibrate: users and exactly one of cpu and
// throughput.
func (p *parser) calibrate(d *plan.Demand, val *yaml.Node) {
	shares, users := 0, false
	p.scalars("demand.calibrate", val, wantCalibrate, calibrateKeys, func(name, f, s string, line int) {
		switch name {
		case "users":
			d.Users, users = p.positive(f, line, s, wantUsers), true
		case "cpu":
			d.Load, d.By = p.share(f, line, s, wantCPULoad), plan.ByCPU
			shares++
		case "throughput":
			d.Load, d.By = p.share(f, line, s, wantLoad), plan.ByThroughput
			shares++
		}
	})
	if resolve(val).Kind == yaml.MappingNode && (shares != 1 || !users) {
		p.add(val.Line, &Error{Field: "demand.calibrate", Problem: "needs users and exactly one of cpu and throughput", Want: wantCalibrate})
	}
}

func (p *parser) stages(val *yaml.Node) []plan.Stage {
	n := resolve(val)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		p.add(val.Line, &Error{Field: "demand.stages", Problem: kindName(n) + " is not valid", Want: wantStages})
		return nil
	}
	var out []plan.Stage
	for i, item := range n.Content {
		path := fmt.Sprintf("demand.stages[%d]", i)
		if resolve(item).Kind != yaml.MappingNode {
			p.add(item.Line, &Error{Field: path, Problem: kindName(resolve(item)) + " is not valid", Want: wantStages})
			continue
		}
		st := plan.Stage{}
		p.stageLines = append(p.stageLines, item.Line)
		p.scalars(path, item, wantStages, stageKeys, func(name, f, s string, line int) {
			switch name {
			case "name":
				st.Name = s
			case "users":
				st.Users = p.positive(f, line, s, wantUsers)
			case "growth":
				g, err := strconv.ParseFloat(strings.TrimRight(strings.TrimPrefix(strings.TrimSpace(s), "×"), "x×"), 64)
				if err != nil || !(g > 0) || g > 1000 {
					p.add(line, &Error{Field: f, Value: s, Want: wantGrowth})
				} else {
					st.Growth = g
				}
			case "rate":
				if r, err := ParseRate(s); err != nil {
					p.add(line, &Error{Field: f, Value: s, Want: wantStageRate})
				} else {
					st.Rate = float64(r)
				}
			}
		})
		if st.Name == "" {
			st.Name = fmt.Sprintf("stage %d", i+1)
		}
		given := 0
		for _, v := range []float64{st.Users, st.Rate, st.Growth} {
			if v > 0 {
				given++
			}
		}
		if given != 1 {
			p.add(item.Line, &Error{Field: path, Problem: "give exactly one of users, rate and growth", Want: wantStages + " (a recording's: {name, growth})"})
		}
		out = append(out, st)
	}
	return out
}

// constraints reads the plan's constraints: threshold expressions, in
// the threshold grammar (with the plan file's form "p95 READ <= +5%"),
// of the kinds a plan judges.
func (p *parser) constraints(val *yaml.Node) []threshold.Threshold {
	n := resolve(val)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.add(val.Line, &Error{Field: "constraints", Problem: kindName(n) + " is not valid", Want: "a list of " + wantConstraint})
		return nil
	}
	var out []threshold.Threshold
	for i, item := range n.Content {
		f := fmt.Sprintf("constraints[%d]", i)
		s, ok := p.text(f, item, wantConstraint)
		if !ok {
			continue
		}
		c, err := threshold.Parse(s)
		var te *threshold.Error
		switch {
		case errors.As(err, &te) && te.Word != "":
			p.add(item.Line, &Error{Field: f, Problem: fmt.Sprintf("%q is not valid at %q (column %d)", s, te.Word, te.Column), Want: wantConstraint})
		case err != nil:
			p.add(item.Line, &Error{Field: f, Value: s, Want: wantConstraint})
		case plan.CheckConstraint(c) != nil:
			p.add(item.Line, &Error{Field: f, Problem: fmt.Sprintf("%q is not valid in a plan", s), Want: wantConstraint})
		default:
			out = append(out, c)
		}
	}
	return out
}

// checkCandidates asks for a baseline and a price on every candidate, in
// one currency.
func (p *parser) checkCandidates(ts []Target) {
	if len(ts) == 0 {
		return
	}
	base := false
	currency := ""
	for i, t := range ts {
		base = base || t.Baseline
		f := fmt.Sprintf("candidates[%d].price", i)
		switch {
		case t.Price == nil:
			p.add(t.Line, &Error{Field: f, Problem: "is missing", Want: price.Want})
		case currency == "":
			currency = t.Price.Currency
		case t.Price.Currency != currency:
			p.add(t.Line, &Error{Field: f, Value: t.Price.Currency, Want: "the currency of the other candidates, " + currency})
		}
	}
	if !base {
		p.add(ts[0].Line, &Error{Field: "candidates", Problem: "no candidate is the baseline", Want: "baseline: true on the deployment the others are compared with"})
	}
}

// paced makes a recording's plan paced: its scenario's workload
// replays a recording (reg says so and gives the recording's own rate),
// and each stage's rate is its growth times that rate. A stage in users,
// a headroom constraint or the replay's own speed in a recording's plan,
// and a growth in any other plan, are errors.
func (p *parser) paced(pl *Plan, reg Registry) {
	rr, ok := reg.(Recordings)
	sc := pl.Scenario
	if !ok || sc == nil || sc.Workload == "" || len(p.errs) > 0 {
		return
	}
	rate, isRec, err := rr.RecordedRate(sc.Workload, sc.Params)
	stages := pl.Demand.Stages
	if !isRec {
		for i, s := range stages {
			if s.Growth > 0 {
				p.add(p.stageLines[i], &Error{Field: fmt.Sprintf("demand.stages[%d].growth", i), Value: strconv.FormatFloat(s.Growth, 'g', -1, 64),
					Problem: fmt.Sprintf("a growth multiplies a recording's traffic, and the scenario's workload %s is not a recording", sc.Workload),
					Want:    "users or a rate, or a recording's path as the scenario's workload"})
			}
		}
		return
	}
	at := sc.origin().at("workload")
	switch {
	case err != nil:
		at.Field, at.Value, at.Want, at.Err = "scenario.workload", sc.Workload, "a recording mongobench can read and replay", err
		at.Problem = err.Error()
		p.errs = append(p.errs, at)
		return
	case !(rate > 0):
		at.Field, at.Value, at.Want = "scenario.workload", sc.Workload, "a recording of at least two requests over some time"
		at.Problem = "the recording has no rate to grow"
		p.errs = append(p.errs, at)
		return
	}
	if v, ok := sc.Params["speed"].(float64); ok && v != 1 {
		e := sc.origin().at("params.speed")
		e.Field, e.Value, e.Want = "scenario.params.speed", strconv.FormatFloat(v, 'g', -1, 64), "no speed: each stage's growth is the speed it replays at"
		p.errs = append(p.errs, e)
	}
	for _, c := range pl.Constraints {
		if c.Kind == threshold.Headroom {
			p.add(0, &Error{Field: "constraints", Value: c.Text, Problem: fmt.Sprintf("%q cannot be judged in a recording's plan: each stage replays the recording at its rate, so no throughput to spare is measured", c.Text),
				Want: "latency and error bounds, such as \"p99 <= 20ms\""})
		}
	}
	pl.RecordedRate = rate
	for i := range stages {
		switch {
		case stages[i].Users > 0:
			p.add(p.stageLines[i], &Error{Field: fmt.Sprintf("demand.stages[%d].users", i), Problem: "a recording's stage grows the recorded traffic, not a user model", Want: wantRecStages})
		case stages[i].Growth > 0:
			stages[i].Rate = stages[i].Growth * rate
		}
	}
}

func (p *parser) checkDemand(line int, d plan.Demand) {
	inUsers := false
	for _, s := range d.Stages {
		inUsers = inUsers || s.Users > 0
	}
	if inUsers && (d.Users == 0 || d.Load == 0) {
		p.add(line, &Error{Field: "demand", Problem: "stages are in users, but the calibration (today's users on the baseline, at what share of its server CPU or throughput) is missing", Want: "demand: {calibrate: {users: 25000, cpu: 80%}, stages: [...]}"})
	}
}
