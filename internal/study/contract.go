package study

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Study is the one contract of a measuring command (run, load, sweep,
// sla, calibrate, catalog run, plan): the cli checks it, opens the lab,
// runs it and finishes its command alike for every study (text, JSON,
// report files, exit code).
type Study interface {
	// Name names the study in its failed verdict ("sweep s-…", "sla");
	// "" for a single run, whose verdict names the run.
	Name() string
	// Thresholds are the study's own thresholds (a sweep's criteria, an
	// SLA), judged by the lab on each of its runs
	// (spec.Scenario.StudyThresholds); nil when it has none.
	Thresholds() []threshold.Threshold
	// Check says what is wrong with the study's settings and the
	// scenarios it builds from the workloads of reg, and whether the
	// command's thresholds ts apply to them, before anything connects.
	Check(reg spec.Registry, ts []threshold.Threshold) error
	// Run measures through env and returns what the command shows, also
	// when it ends with an error (what was measured until then).
	Run(ctx context.Context, env Env) (Outcome, error)
}

// Outcome is what a study hands the cli to finish its command.
type Outcome struct {
	// Runs are the runs the study kept, in order (what --json prints);
	// the lab fills them when the command asks for them.
	Runs []result.Doc
	// Run is a one-run study's run (run, load): --json prints it alone,
	// the terminal its own view unless Result is set, and the command
	// says where it is stored.
	Run *result.Doc
	// Result is what the study found, which its view shows
	// (studyview.Of): a SweepResult, AuditedSLA, CalibrateResult,
	// CatalogResult, PlanResult, LoadResult, Interleaved, Comparison or
	// RunsComparison; nil when there is nothing to show.
	Result any
	// Verdict is the study's own verdict; nil: every run's thresholds
	// held.
	Verdict func() (bool, string)
	// Answer, when set, is what --json prints instead of the runs (a
	// plan's answer).
	Answer any
	// Said are lines of the view that --json would lose (an SLA's ledger
	// audit): with --json the cli says them on standard error.
	Said []string
}

// AuditedSLA is an SLA study's result with the ledger's audit ("" for
// none).
type AuditedSLA struct {
	SLAResult
	Audit string
}

// CatalogResult is what a catalog run measured: each of its tests'
// result documents, in the order of its tests.
type CatalogResult struct {
	Catalog Catalog
	Docs    [][]*result.Doc
}

// PlanResult is a capacity plan and its answer.
type PlanResult struct {
	Spec   *spec.Plan
	Answer plan.Answer
}

// LoadResult is a load's run.
type LoadResult struct{ Doc *result.Doc }

// CheckThresholds says which of the thresholds ts (with sc's own) cannot
// apply to a run of sc: an operation type its workload lacks (when reg
// knows the workload's operation types), a share of the target rate in
// a closed loop.
func CheckThresholds(reg spec.Registry, sc *spec.Scenario, openLoop bool, ts ...threshold.Threshold) error {
	run := threshold.Run{Workload: sc.Workload, OpenLoop: openLoop}
	if o, ok := reg.(opsRegistry); ok {
		run.Ops = o.Ops(sc.Workload, sc.Params)
	}
	return threshold.Check(slices.Concat(sc.Thresholds, ts), run)
}

// opsRegistry is a registry that knows its workloads' operation types.
type opsRegistry interface {
	Ops(workload string, p spec.Params) []string
}

// SingleRunVerdict is the verdict of one run: every threshold held, or
// which failed ("run ID: 1 of 2 thresholds failed: p99 < 5ms: 7.1 ms
// (READ)").
func SingleRunVerdict(d *result.Doc) func() (bool, string) {
	return func() (bool, string) {
		failed := threshold.Failed(d.Thresholds)
		if len(failed) == 0 {
			return true, ""
		}
		return false, "run " + d.RunID + ": " + strconv.Itoa(len(failed)) + " of " + strconv.Itoa(len(d.Thresholds)) + " thresholds failed: " + VerdictList(failed)
	}
}

// VerdictList lists verdicts on one line: "p99 < 5ms: 7.1 ms (READ);
// errors < 1: 3 errors".
func VerdictList(vs []result.ThresholdVerdict) string {
	var b []byte
	for i, v := range vs {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = append(b, v.Expression+": "+threshold.Measured(v)...)
	}
	return string(b)
}

// Study is the single run as the contract's study.
func (s Single) Study() Study { return singleStudy{s} }

type singleStudy struct{ s Single }

func (singleStudy) Name() string                      { return "" }
func (singleStudy) Thresholds() []threshold.Threshold { return nil }
func (x singleStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	return CheckThresholds(reg, x.s.Scenario, x.s.Scenario.Rate > 0, ts...)
}

func (x singleStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	d, err := x.s.Run(ctx, env)
	if d == nil {
		return Outcome{}, err
	}
	return Outcome{Run: d, Verdict: SingleRunVerdict(d)}, StoppedEarly(d, err) // the store failed after it stopped early: still interrupted
}

// Study is the load as the contract's study.
func (l Load) Study() Study { return loadStudy{l} }

type loadStudy struct{ l Load }

func (loadStudy) Name() string                      { return "" }
func (loadStudy) Thresholds() []threshold.Threshold { return nil }
func (x loadStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	sc, err := x.l.Scenario(reg)
	if err != nil {
		return err
	}
	return CheckThresholds(reg, sc, false, ts...)
}

func (x loadStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	d, err := x.l.Run(ctx, env)
	if d == nil {
		return Outcome{}, err
	}
	return Outcome{Run: d, Result: LoadResult{d}, Verdict: SingleRunVerdict(d)}, err
}

// Study is the sweep as the contract's study.
func (s SweepStudy) Study() Study { return sweepStudy{s} }

type sweepStudy struct{ s SweepStudy }

func (x sweepStudy) Name() string                      { return "sweep " + x.s.ID }
func (x sweepStudy) Thresholds() []threshold.Threshold { return x.s.Criteria.Thresholds() }
func (x sweepStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	if err := x.s.Check(Env{Registry: reg}); err != nil {
		return err
	}
	return checkBase(reg, x.s.Base, true, slices.Concat(x.Thresholds(), ts))
}

func (x sweepStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	res, err := x.s.Run(ctx, env)
	out := Outcome{Verdict: res.Verdict}
	if len(res.Steps) > 0 {
		out.Result = res
	}
	return out, err
}

// Study is the SLA study as the contract's study.
func (s SLAStudy) Study() Study { return slaStudy{s} }

type slaStudy struct{ s SLAStudy }

func (slaStudy) Name() string                        { return "sla" }
func (x slaStudy) Thresholds() []threshold.Threshold { return x.s.SLA.Thresholds() }
func (x slaStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	if err := x.s.Check(Env{Registry: reg}); err != nil {
		return err
	}
	return checkBase(reg, x.s.Base, true, slices.Concat(x.Thresholds(), ts))
}

func (x slaStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	res, err := x.s.Run(ctx, env)
	out := Outcome{Verdict: res.Verdict}
	if len(res.Runs) == 0 {
		return out, err
	}
	var audit string
	if env.Audit != nil {
		audit = env.Audit(ctx, x.s.Base.Scenario.Database)
	}
	if audit != "" {
		out.Said = []string{"audit: " + audit}
	}
	out.Result = AuditedSLA{res, audit}
	return out, err
}

// Study is the calibration as the contract's study.
func (c CalibrateStudy) Study() Study { return calibrateStudy{c} }

type calibrateStudy struct{ c CalibrateStudy }

func (x calibrateStudy) Name() string                    { return "calibrate " + x.c.ID }
func (calibrateStudy) Thresholds() []threshold.Threshold { return nil }
func (x calibrateStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	if err := x.c.Check(Env{Registry: reg}); err != nil {
		return err
	}
	return checkBase(reg, x.c.Base, false, ts)
}

func (x calibrateStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	res, err := x.c.Run(ctx, env)
	out := Outcome{}
	if len(res.Steps) > 0 {
		out.Result = res
	}
	return out, err
}

// checkBase checks the thresholds ts against a run of the study's base
// scenario with its -p parameters; a base the study itself refuses is
// not checked here (its own check says what is wrong).
func checkBase(reg spec.Registry, b Base, openLoop bool, ts []threshold.Threshold) error {
	sc, err := Scenario(reg, b.Scenario, b.Params)
	if err != nil {
		return nil //nolint:nilerr // the study's own check says what is wrong
	}
	return CheckThresholds(reg, sc, openLoop, ts...)
}

// Study is the catalog as the contract's study.
func (c Catalog) Study() Study { return catalogStudy{c} }

type catalogStudy struct{ c Catalog }

func (catalogStudy) Name() string                                     { return "catalog run" }
func (catalogStudy) Thresholds() []threshold.Threshold                { return nil }
func (catalogStudy) Check(spec.Registry, []threshold.Threshold) error { return nil }

func (x catalogStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	docs, err := x.c.Run(ctx, env)
	out := Outcome{}
	for _, ds := range docs {
		if len(ds) > 0 {
			out.Result = CatalogResult{x.c, docs}
			break
		}
	}
	return out, err
}

// Study is the plan as the contract's study: it measures (unless
// FromResults) and answers from every stored run of the plan.
func (p Plan) Study() Study { return planStudy{p} }

type planStudy struct{ p Plan }

func (x planStudy) Name() string                    { return "plan " + x.p.Spec.Name }
func (planStudy) Thresholds() []threshold.Threshold { return nil }
func (x planStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	return CheckThresholds(reg, x.p.Spec.Scenario, x.p.Spec.Scenario.Rate > 0, ts...)
}

func (x planStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	if x.p.Stored == nil {
		x.p.Stored, x.p.Where, x.p.IncludeInvalid = env.Stored, env.Where, env.IncludeInvalid
	}
	if x.p.Say == nil {
		x.p.Say = env.Say
	}
	var runErr error
	if !x.p.FromResults {
		runErr = x.p.Measure(ctx, env)
		if errors.Is(runErr, ErrStopped) && ctx.Err() != nil { // Ctrl-C: no answer
			return Outcome{}, runErr
		}
	}
	ans, err := x.p.Answer(ctx)
	if err != nil {
		return Outcome{}, errors.Join(runErr, err)
	}
	return Outcome{
		Answer:  ans,
		Result:  PlanResult{x.p.Spec, ans},
		Verdict: func() (bool, string) { return PlanVerdict(ans) },
	}, runErr
}
