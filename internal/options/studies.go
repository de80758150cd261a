package options

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"

	"github.com/mongobench/mongobench/internal/ftdcwindow"
	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/workload"
)

// Sweep is sweep's flags: the target rates (a list, or auto and its
// ladder), the criteria, the repetitions, the price, and the base
// scenario's workload, duration, warm-up and threads.
type Sweep struct {
	Rates              study.Rates
	Start, Factor, Max float64
	Criteria           study.Criteria
	Repeat             int
	Price              *price.Price
	Base               *spec.Scenario
	Study
}

// NewSweep is sweep's flags at their defaults.
func NewSweep() *Sweep {
	return &Sweep{Criteria: study.Criteria{MinFraction: study.DefaultSweepFraction}, Base: &spec.Scenario{}}
}

// Add declares the flags on fl.
func (f *Sweep) Add(fl *pflag.FlagSet) {
	fl.Var(f.Base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.Var(&f.Rates, "rate", "target rates: a list (1000,2000,5000) or auto (required)")
	Alias(fl, "rates", "rate")
	fl.Float64Var(&f.Start, "start-rate", 500, "auto: first rate")
	fl.Float64Var(&f.Factor, "rate-factor", 2, "auto: multiply the rate by this while steps hold")
	fl.Float64Var(&f.Max, "max-rate", 100000, "auto: highest rate tried")
	Alias(fl, "start", "start-rate")
	Alias(fl, "factor", "rate-factor")
	Alias(fl, "max", "max-rate")
	Criteria(fl, &f.Criteria, "bound on the p99 of every operation type, e.g. 20ms (default: not checked)", "largest share of failed operations a step may have")
	fl.Var(f.Base.Flag("duration", "20s"), "duration", "measured phase of each step")
	fl.Var(f.Base.Flag("warmup", "5s"), "warmup", "warm-up of each step")
	fl.IntVar(&f.Repeat, "repeat", 1, "runs per target rate")
	fl.Var(f.Base.Flag("threads", ""), "threads", "most operations in flight (default 64)")
	fl.Var(PriceOf(&f.Price), "price", "the target's price, e.g. '3.20 USD/h' or '694 EUR/month', stored as _id.instance.cost (cents per hour), price and currency (for compare)")
	fl.Var(DollarsOf(&f.Price), "cost-per-hour", "the target's price in dollars per hour")
	Deprecate(fl, "cost-per-hour", "price")
	f.Study.Add(fl, "workload parameter name=value", Help{ReportDir: "mongobench-reports", JSON: "print the runs' stored documents as one JSON array instead of the tables"})
	AddPropertyFiles(fl, &f.Files)
}

// Sweep is the sweep the flags ask for, its id new (a run id) or, in a
// run group, the group's: every client's steps carry the same sweep.
func (f *Sweep) Sweep() study.SweepStudy {
	f.Base.Database, f.Base.Label = f.Database, f.Label
	s := study.SweepStudy{Base: study.Base{Scenario: f.Base, Params: f.Params}, Rates: f.Rates.Search(study.Auto{Start: f.Start, Factor: f.Factor, Max: f.Max}),
		Repeat: f.Repeat, Criteria: f.Criteria, Price: f.Price, ID: runner.NewRunID(time.Now())}
	if f.Group != "" {
		s.ID = f.Group
	}
	return s
}

// SLA is sla's flags: the target rates (a list, or auto and its
// ladder), the bounds and how many runs must hold them, the repetitions,
// the modes, the stage, and the base scenario's duration, warm-up and
// threads (the ledger workload).
type SLA struct {
	Rates            study.Rates
	Start, Step, Max float64
	Bounds           study.SLA
	Repeat           int
	Modes, Stage     string
	Base             *spec.Scenario
	Study
}

// NewSLA is sla's flags at their defaults.
func NewSLA() *SLA {
	return &SLA{Bounds: study.SLA{MinRateFraction: study.DefaultRateFraction}, Base: &spec.Scenario{Workload: "ledger", Name: study.TestName}}
}

// Add declares the flags on fl.
func (f *SLA) Add(fl *pflag.FlagSet) {
	fl.Var(&f.Rates, "rate", "target transactions per second: a list (500,1000) or auto (required)")
	fl.Float64Var(&f.Start, "start-rate", 250, "auto: first rate")
	fl.Float64Var(&f.Step, "rate-step", 250, "auto: step between rates")
	fl.Float64Var(&f.Max, "max-rate", 100000, "auto: highest rate tried")
	Alias(fl, "tps", "rate")
	for old, canonical := range map[string]string{"start": "start-rate", "tps-start": "start-rate", "step": "rate-step", "tps-step": "rate-step", "max": "max-rate", "tps-max": "max-rate"} {
		Alias(fl, old, canonical)
	}
	SLABounds(fl, &f.Bounds, "SLA on p99 latency, e.g. 20ms (required)")
	fl.Var(f.Base.Flag("duration", "30s"), "duration", "measured phase of each run")
	fl.Var(f.Base.Flag("warmup", "5s"), "warmup", "warm-up of each run")
	fl.IntVar(&f.Repeat, "repeat", 5, "runs of each mode at each rate")
	Alias(fl, "runs", "repeat")
	fl.StringVar(&f.Modes, "modes", workload.ModePerOp+","+workload.ModeClientBulk, "modes to compare")
	fl.StringVar(&f.Stage, "stage", "", "free-text stage of a tuning journey (see 'sla journey'); part of the result's _id")
	fl.Var(f.Base.Flag("threads", ""), "threads", "most transactions in flight (default 64)")
	f.Study.Add(fl, "ledger parameter name=value (see 'mongobench workloads')", Help{ReportDir: "mongobench-reports",
		JSON: "print the runs' stored documents as one JSON array instead of the tables", NoGroup: "sla cannot run as a run group (each run is judged by the process that made it); run the ledger with 'mongobench run --workload ledger --clients N' instead"})
	fl.Var(&f.Bounds.Require, "require", "runs of each mode and rate that must pass, as K/N with N = --repeat, e.g. 5/5 (default: a majority, more than half of --repeat)")
}

// SLA is the SLA study the flags ask for.
func (f *SLA) SLA() study.SLAStudy {
	f.Base.Database, f.Base.Label = f.Database, f.Label
	return study.SLAStudy{SLA: f.Bounds, Rates: f.Rates.Search(study.Ladder{Start: f.Start, Step: f.Step, Max: f.Max}),
		Runs: f.Repeat, Modes: strings.Split(f.Modes, ","), Stage: f.Stage, Base: study.Base{Scenario: f.Base, Params: f.Params}}
}

// Calibrate is calibrate's flags: the thread ladder, the smallest gain
// that counts, and the base scenario's workload, duration and warm-up.
type Calibrate struct {
	Search study.Calibration
	Base   *spec.Scenario
	Study
}

// NewCalibrate is calibrate's flags at their defaults.
func NewCalibrate() *Calibrate { return &Calibrate{Base: &spec.Scenario{}} }

// Add declares the flags on fl.
func (f *Calibrate) Add(fl *pflag.FlagSet) {
	fl.Var(f.Base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.IntVar(&f.Search.Start, "start-threads", 1, "threads of the first step")
	fl.IntVar(&f.Search.Factor, "threads-factor", 2, "multiply the threads by this each step")
	fl.IntVar(&f.Search.Max, "max-threads", 256, "most threads tried")
	Alias(fl, "start", "start-threads")
	Alias(fl, "factor", "threads-factor")
	Alias(fl, "max", "max-threads")
	fl.Float64Var(&f.Search.MinGain, "min-gain", study.DefaultMinGain, "smallest throughput gain over the step before that still counts as rising")
	fl.Var(f.Base.Flag("duration", "10s"), "duration", "measured phase of each step")
	fl.Var(f.Base.Flag("warmup", "2s"), "warmup", "warm-up of each step")
	f.Study.Add(fl, "workload parameter name=value", Help{ReportDir: "mongobench-reports", JSON: "print the runs' stored documents as one JSON array instead of the tables",
		NoGroup: "calibrate cannot run as a run group (each step's thread count is the whole client's); calibrate one client, then run the group with 'mongobench run --clients N --threads T'"})
	AddPropertyFiles(fl, &f.Files)
}

// Calibrate is the calibration the flags ask for, its id new.
func (f *Calibrate) Calibrate() study.CalibrateStudy {
	f.Base.Database, f.Base.Label = f.Database, f.Label
	return study.CalibrateStudy{Search: f.Search, Base: study.Base{Scenario: f.Base, Params: f.Params}, ID: runner.NewRunID(time.Now())}
}

// Compare is compare's flags: the labels whose latest sweeps (of the
// workload) to compare, their prices and the criteria, or with --runs
// their stored single runs compared metric by metric.
type Compare struct {
	Sweeps    study.CompareStudy
	JSON      bool
	ReportDir string
	// compare --runs
	Runs, FailOnRegression bool
	// how metrics are judged, per step of two sweeps and with --runs
	MinEffect  MinEffects
	Judging    significance.Settings
	Correction string
	// IncludeInvalid counts the runs judged invalid too.
	IncludeInvalid bool
	// compare --interleave: the two sides' scenario files and the plan's
	// bounds of runs a side.
	Interleave       bool
	Scenarios        []string
	MinRuns, MaxRuns int
}

// IncludeInvalid declares --include-invalid, the one flag of every
// command that reads stored runs into a statistic (compare, changes,
// sla journey, and the measuring commands for a plan's stored runs).
func IncludeInvalid(fl *pflag.FlagSet, v *bool) {
	fl.BoolVar(v, "include-invalid", false, "count the stored runs judged invalid too (by default they are left out, and the output says how many: docs/validity.md)")
}

// NewCompare is compare's flags at their defaults.
func NewCompare() *Compare {
	return &Compare{Sweeps: study.CompareStudy{Criteria: study.Criteria{MinFraction: study.DefaultSweepFraction}}}
}

// Add declares the flags on fl.
func (f *Compare) Add(fl *pflag.FlagSet) {
	fl.StringArrayVar(&f.Sweeps.Labels, "label", nil, "a label whose latest sweep to compare (at least two; the first is compared with each other)")
	fl.StringVar(&f.Sweeps.Workload, "workload", "", "compare sweeps of this workload (default: each label's latest sweep)")
	fl.Var(&f.Sweeps.Prices, "price", "a label's price, label=PRICE such as 'r6g=3.20 USD/h' or 'r5=2920 EUR/month', repeatable; every price in one currency (default: the price stored with its sweep)")
	fl.Var(study.Costs{Prices: &f.Sweeps.Prices}, "cost-per-hour", "a label's price, label=dollars per hour")
	Deprecate(fl, "cost-per-hour", "price")
	Criteria(fl, &f.Sweeps.Criteria, "bound on the p99 of every operation type for the highest target held, e.g. 20ms (default: not checked)", "largest share of failed operations a held target may have")
	fl.BoolVar(&f.JSON, "json", false, "print the comparison as JSON")
	fl.StringVar(&f.ReportDir, "report-dir", "mongobench-reports", "directory for the Markdown report and charts (empty: none)")
	fl.BoolVar(&f.Runs, "runs", false, "compare each label's stored single runs (not sweeps), metric by metric: medians, intervals, Mann–Whitney p-value, bootstrap ratio interval, ~ for likely noise")
	fl.BoolVar(&f.FailOnRegression, "fail-on-regression", false, "with --runs or --interleave: exit 99 when a metric is significantly worse by at least its minimum effect")
	MinEffect(fl, &f.MinEffect, "per step of the sweeps and with --runs: ")
	fl.Uint64Var(&f.Judging.Seed, "seed", significance.DefaultSeed, "the bootstrap's seed")
	fl.Float64Var(&f.Judging.Alpha, "alpha", significance.DefaultAlpha, "the adjusted p-value below which a difference is significant")
	fl.StringVar(&f.Correction, "correction", string(significance.DefaultCorrection), "how the p-values of the metrics judged together are adjusted for their number: bh (Benjamini–Hochberg), holm (Holm–Bonferroni) or none")
	IncludeInvalid(fl, &f.IncludeInvalid)
	fl.BoolVar(&f.Interleave, "interleave", false, "run the two --scenario files alternately (A B, B A, …) until every metric is decided or --max-runs a side, stopping early by a sequential test (docs/sweep.md)")
	fl.StringArrayVar(&f.Scenarios, "scenario", nil, "with --interleave: a side's scenario file (its workload, settings, uri and label), twice: A then B")
	fl.IntVar(&f.MinRuns, "min-runs", 5, "with --interleave: runs a side at the first look")
	fl.IntVar(&f.MaxRuns, "max-runs", 20, "with --interleave: the most runs a side (at most 1000)")
}

// Check says what is wrong with the flags, for the comparison they ask
// for (of sweeps, with --runs of single runs, or interleaved).
func (f *Compare) Check() error {
	switch {
	case f.Interleave && f.Runs:
		return errors.New("--interleave: compares runs it measures itself; --runs compares stored runs: give one or the other")
	case f.Interleave && len(f.Scenarios) != 2:
		return fmt.Errorf("--scenario: --interleave needs two scenario files, A then B; got %d", len(f.Scenarios))
	case !f.Interleave && len(f.Scenarios) > 0:
		return errors.New("--scenario: only with --interleave")
	case f.Interleave:
		p := significance.Sequential{Alpha: f.Judging.Alpha, MinRuns: f.MinRuns, MaxRuns: f.MaxRuns}
		return errors.Join(p.Check(), study.CheckJudging(f.judging()))
	}
	if f.Runs {
		return f.ByRuns().Check()
	}
	return errors.Join(f.Sweeps.Check(), study.CheckJudging(f.judging()))
}

// judging is how the metrics are judged, as the flags say.
func (f *Compare) judging() significance.Settings {
	j := f.Judging
	j.MinEffect, j.Correction = f.MinEffect, significance.Correction(f.Correction)
	return j
}

// ByRuns is the comparison of the labels' single runs (compare --runs).
func (f *Compare) ByRuns() study.CompareRunsStudy {
	return study.CompareRunsStudy{Labels: f.Sweeps.Labels, Workload: f.Sweeps.Workload, Judging: f.judging()}
}

// Interleaved is the interleaved comparison of the two scenario files
// (compare --interleave), each side named by its label (the scenario's,
// else its target's, else "a" and "b"), and the lab's Options for its
// runs: the option set's defaults, the results store the flags name
// (else A's file's), the report directory and --json; each side's
// target is its file's uri, else $MONGOBENCH_URI, else the embedded
// server.
func (f *Compare) Interleaved(ctx context.Context, resultsURI, resultsFile string, reg *workload.Registry, env Env) (study.InterleaveStudy, *Measure, lab.Options, error) {
	s := study.InterleaveStudy{Plan: significance.Sequential{Alpha: f.Judging.Alpha, MinRuns: f.MinRuns, MaxRuns: f.MaxRuns},
		Judging: f.judging(), IncludeInvalid: f.IncludeInvalid}
	m := &Measure{}
	m.Add(pflag.NewFlagSet("interleave", pflag.ContinueOnError), Help{})
	var results spec.Results
	for i, path := range f.Scenarios {
		sc, where, err := spec.ParseFile(path, reg)
		if err != nil {
			return s, m, lab.Options{}, fmt.Errorf("--scenario %s: %w", path, err)
		}
		if i == 0 {
			results = where.Results
		}
		t := where.Target
		if t.URI == "" && t.Profile == nil {
			t.URI = env("MONGOBENCH_URI")
		}
		if err := CheckURI(t.URI); err != nil {
			return s, m, lab.Options{}, fmt.Errorf("--scenario %s: uri: %w", path, err)
		}
		name := sc.Label
		if name == "" {
			name = t.Label
		}
		if name == "" {
			name = string(rune('a' + i))
		}
		s.Sides[i] = study.InterleaveSide{Name: name, Scenario: sc, Target: t}
	}
	if a, b := s.Sides[0].Name, s.Sides[1].Name; a == b { // one label for both (an A/A comparison of one file)
		s.Sides[0].Name, s.Sides[1].Name = a+"-a", b+"-b"
	}
	m.ResultsURI, m.ResultsFile = resultsURI, resultsFile
	if resultsURI == "" && resultsFile == "" {
		m.ResultsURI, m.ResultsFile = results.URI, results.File
	}
	m.ReportDir, m.JSON, m.IncludeInvalid = f.ReportDir, f.JSON, f.IncludeInvalid
	lo, err := m.Options(ctx, env)
	lo.Targets, lo.Announce = true, true
	return s, m, lo, err
}

// BySweeps is the comparison of the labels' latest sweeps, each step
// both ran judged as the flags say.
func (f *Compare) BySweeps() study.CompareStudy {
	s := f.Sweeps
	s.Judging = f.judging()
	return s
}

// Changes is the flags of a look for change points over stored runs.
type Changes struct {
	Test, Label string
	Look        changes.Look
	MinEffect   MinEffects
	FailOnNew   bool
	JSON        bool
	ReportDir   string
}

// Add declares the flags on fl.
func (f *Changes) Add(fl *pflag.FlagSet) {
	fl.StringVar(&f.Test, "test", "", "only series of this test (as runs name it, such as kv or ycsb)")
	fl.StringVar(&f.Label, "label", "", "only series of runs with this label")
	fl.StringArrayVar(&f.Look.Tags, "tag", nil, "a tag that parts series: runs with it and runs without it are two series (repeatable)")
	fl.StringArrayVar(&f.Look.Metrics, "metric", nil, `only this metric, such as throughput, errors or "p99 READ" (repeatable)`)
	fl.IntVar(&f.Look.Window, "window", 50, "the most runs each side of a change point a split looks at")
	fl.Float64Var(&f.Look.P, "p", 0.001, "the largest p-value of a change point")
	MinEffect(fl, &f.MinEffect, "")
	fl.BoolVar(&f.FailOnNew, "fail-on-new", false, "exit 99 on a new regression not failed on before")
	fl.BoolVar(&f.Look.All, "all", false, "list hidden changes too")
	IncludeInvalid(fl, &f.Look.IncludeInvalid)
	fl.BoolVar(&f.JSON, "json", false, "print the changes as JSON")
	fl.StringVar(&f.ReportDir, "report-dir", "mongobench-reports", "directory for changes.md and changes.html, each changed series' chart with its change points marked (empty: none)")
}

// Checked is the look the flags ask for, checked.
func (f *Changes) Checked() (changes.Look, error) {
	l := f.Look
	l.MinEffect = f.MinEffect
	return l, l.Check()
}

// Plan is plan's flags: run nothing (--from-results), the runs of each
// candidate, and the option set.
type Plan struct {
	FromResults bool
	Runs        int
	Measure
}

// Add declares the flags on fl.
func (f *Plan) Add(fl *pflag.FlagSet) {
	fl.BoolVar(&f.FromResults, "from-results", false, "run nothing: compute the plan from the stored runs")
	fl.IntVar(&f.Runs, "repeat", 0, "runs of each candidate in this invocation (default: the plan's runs)")
	Alias(fl, "runs", "repeat")
	f.Measure.Add(fl, Help{ReportDir: "mongobench-reports", JSON: "print the answer as JSON instead of tables",
		NoGroup: "plan cannot run as a run group (it alternates candidates, each started for its runs); run a candidate with 'mongobench run --clients N'"})
}

// Options reads the plan file at path with the workloads of reg and
// checks it with the flags (its candidates' CPU sets unless nothing
// runs), and makes the lab's Options: every candidate a target of its
// own, no live metrics when nothing runs.
func (f *Plan) Options(ctx context.Context, path string, env Env, reg *workload.Registry) (*spec.Plan, lab.Options, error) {
	pl, err := spec.ParsePlanFile(path, reg)
	if err != nil {
		return nil, lab.Options{}, err
	}
	if f.Runs < 0 {
		return nil, lab.Options{}, fmt.Errorf("--repeat: got %d, want 0 (the plan's) or more", f.Runs)
	}
	lo, err := f.Measure.Options(ctx, env)
	if err != nil {
		return nil, lo, err
	}
	if !f.FromResults {
		if err := spec.CheckCPUs(path, pl.Candidates, server.CheckCPUs); err != nil {
			return nil, lo, err
		}
	}
	lo.Targets = true // every candidate is a target of its own; results go to the results store
	if f.FromResults {
		lo.MetricsAddr = "" // nothing runs
	}
	return pl, lo, nil
}

// Load is load's flags: the YCSB workload whose records to load, and a
// study's flags with -P.
type Load struct {
	Workload string
	Study
}

// Add declares the flags on fl.
func (f *Load) Add(fl *pflag.FlagSet) {
	fl.StringVar(&f.Workload, "workload", "", "YCSB workload whose records to load, ycsb-a … ycsb-f (required)")
	f.Study.Add(fl, "workload parameter name=value (recordcount, insertstart, insertcount, batchSize, loaders, …)",
		Help{ReportDir: "mongobench-reports", JSON: "print the stored result document as JSON instead of the summary line"})
	AddPropertyFiles(fl, &f.Files)
}

// Load is the measured load the flags ask for (after YCSBLoad has read
// -P).
func (f *Load) Load() (study.Load, error) {
	if f.Workload == "" {
		return study.Load{}, errors.New("--workload: required, one of ycsb-a … ycsb-f")
	}
	return study.Load{Workload: f.Workload, Params: f.Params, Database: f.Database, Label: f.Label}, nil
}

// FTDC is ftdc's flags: the window of the files to read, the figures to
// summarise, and where the summary goes.
type FTDC struct {
	From, To spec.Time
	Metrics  []string
	JSON     bool
	HTML     string
}

// Add declares the flags on fl.
func (f *FTDC) Add(fl *pflag.FlagSet) {
	fl.Var(&f.From, "from", "the window's start (RFC 3339, or a UTC date and time); default: the first sample")
	fl.Var(&f.To, "to", "the window's end; default: the last sample")
	fl.StringArrayVar(&f.Metrics, "metric", nil, "summarise only this figure (repeatable): "+strings.Join(ftdcwindow.FigureNames(), ", "))
	fl.BoolVar(&f.JSON, "json", false, "print the summary as JSON")
	fl.StringVar(&f.HTML, "html", "", "also write the window's page, with its charts, to this file")
}

// Window checks the flags and returns the window, its zero times open.
func (f *FTDC) Window() (from, to time.Time, err error) {
	from, to = time.Time(f.From), time.Time(f.To)
	if !from.IsZero() && !to.IsZero() && !to.After(from) {
		return from, to, fmt.Errorf("--to %s is not after --from %s", f.To, f.From)
	}
	if err := ftdcwindow.CheckFigures(f.Metrics); err != nil {
		return from, to, fmt.Errorf("--metric: %w", err)
	}
	return from, to, nil
}
