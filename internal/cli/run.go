package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// runFlags are the run command's own flags; scenario settings are
// settingValue flags whose text is handed to spec.Scenario.SetFlag, so
// flags and files are checked by the same code.
type runFlags struct {
	params     []string
	json       bool
	reportDir  string
	noReport   bool
	pacing     string // hidden: how open-loop workers wait (bench/pacing.sh)
	completion string // hidden: when operations end (bench/responder.sh)
	metrics    string // --metrics-addr
	ycsb       ycsbFlags
	atlas      atlasFlags
	thresholds thresholdFlags
	limits     limitFlags
	group      groupFlags
}

// scenarioFlags are the scenario settings a flag can set, with help.
var scenarioFlags = []struct{ name, help string }{
	{"workload", "workload to run (see 'mongobench workloads'); default kv"},
	{"uri", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server, started if needed)"},
	{"name", "test name stored as _id.testname (default: the workload name)"},
	{"database", "database for the workload's data; must be empty or made by mongobench (default mongobench_data)"},
	{"rate", "open loop: target operations per second, e.g. 2000/s, 1.5k, 120/m; omit for closed loop"},
	{"threads", "closed loop: workers (default 8); open loop: most operations in flight (default 64)"},
	{"duration", "measured phase length, e.g. 60s, 5m (default 30s unless --ops is given)"},
	{"ops", "measured operations; the run stops at --duration or --ops, whichever comes first"},
	{"warmup", "unmeasured phase before the measured one, e.g. 10s"},
	{"interval", "reporting interval (default 1s)"},
	{"max-lag", "open loop: an operation later than this behind its schedule is dropped and counted (default 10s)"},
	{"stages", "open loop in stages instead of --rate: DURATION:TARGET, comma-separated, each ramping from the previous target (0 before the first), e.g. 30s:1000/s,1m:1000/s,30s:4000/s"},
	{"arrival", "open loop: constant (evenly spaced, default) or poisson (exponential gaps averaging --rate, seeded by --seed)"},
	{"host-metrics", hostMetricsHelp},
	{"host-device", hostDeviceHelp},
	{"seed", "random seed (default 1)"},
	{"label", "free-text label, e.g. the instance type; part of the result's _id"},
	{"tags", "comma-separated tags stored with the result"},
	{"repetition", "repetition number within a series"},
	{"results", "MongoDB URI for results (default: $MONGOBENCH_RESULTS_URI, else the target server), database mongobench"},
	{"results-file", "append the result to this JSON Lines file instead of a results collection"},
}

func (a *app) runCmd() *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "run [SCENARIO.yaml]",
		Short: "Run one benchmark and store its result",
		Long: `Run one benchmark: set up the workload's data in a database mongobench owns,
run an optional warm-up, then the measured phase, and store the result.

Open loop (--rate): operations have intended start times on a fixed schedule;
latency is measured from the intended start, service time from the actual
send. A slow server never slows the schedule: late operations are counted,
and past --max-lag dropped and counted. Closed loop (no --rate): --threads
workers each send the next operation when the last one returns.

Flags override the settings of a scenario file. Ctrl-C stops the run and
still stores what was measured, marked partial.`,
		Example: `  mongobench run --workload kv --rate 2000/s --duration 60s --warmup 10s
  mongobench run --workload kv --threads 32 --ops 1000000 -p records=100000 -p docSize=4KB
  mongobench run --uri mongodb://db1:27017/?replicaSet=rs0 --rate 500 --label m6i.large
  mongobench run --uri 'mongodb://db1,db2,db3/?replicaSet=rs0' --rate 500 --host-metrics http://db1:9100,http://db2:9100,db3:27017=http://10.0.0.3:9100
  mongobench run scenario.yaml --label nightly --json > result.json
  mongobench run -P workloads/workloada -p recordcount=100000 -p threadcount=16 -p target=5000
  mongobench run --workload ycsb-b --rate 1000/s --threshold 'p99(READ) < 5ms' --threshold 'errors < 0.1%' --abort-on-fail`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scenario := a.scenario
			if len(rf.ycsb.files) > 0 {
				scenario = rf.ycsb.scenario
			}
			sc, err := scenario(cmd.Flags(), args, rf.params)
			if err != nil {
				return err
			}
			if err := rf.thresholds.addTo(sc); err != nil {
				return err
			}
			if err := checkThresholds(builtin.Registry(), sc, sc.Rate > 0); err != nil {
				return err
			}
			return a.runScenario(cmd.Context(), sc, rf)
		},
	}
	for _, f := range scenarioFlags {
		cmd.Flags().Var(newSettingValue(f.name), f.name, f.help)
	}
	deprecatedAlias(cmd.Flags(), "results-uri", "results")
	cmd.Flags().StringArrayVarP(&rf.params, "param", "p", nil, "workload parameter name=value, repeatable (see 'mongobench workloads')")
	cmd.Flags().BoolVar(&rf.json, "json", false, "print the result document as JSON instead of the summary")
	cmd.Flags().StringVar(&rf.reportDir, "report-dir", "mongobench-reports", "directory for the Markdown report and its charts")
	cmd.Flags().BoolVar(&rf.noReport, "no-report", false, "do not write a report file")
	cmd.Flags().StringVar(&rf.pacing, "pacing", "", "open loop: how workers wait for their slots: spin (default: a timerfd, then a spin of up to 50 µs), timerfd, nanosleep, or timer (Go timers)")
	_ = cmd.Flags().MarkHidden("pacing")
	cmd.Flags().StringVar(&rf.completion, "completion", "arrival", "when an operation ends: arrival (its reply's kernel receive timestamp, where the wire client reads one) or return (when the worker has read it)")
	_ = cmd.Flags().MarkHidden("completion")
	rf.ycsb.add(cmd.Flags())
	rf.atlas.add(cmd.Flags())
	metricsFlag(cmd.Flags(), &rf.metrics)
	a.statusFlag(cmd.Flags())
	rf.thresholds.add(cmd.Flags(), true)
	rf.limits.add(cmd.Flags())
	rf.group.add(cmd.Flags())
	return cmd
}

// scenario builds the scenario from an optional file, then flags, then
// -p parameters, and validates it.
func (a *app) scenario(fs *pflag.FlagSet, args []string, params []string) (*spec.Scenario, error) {
	reg := builtin.Registry()
	sc := &spec.Scenario{}
	if len(args) == 1 {
		var err error
		if sc, err = spec.ParseFile(args[0], reg); err != nil {
			return nil, usage(err)
		}
	}
	if err := applyFlags(sc, fs); err != nil {
		return nil, usage(err)
	}
	if sc.Workload == "" {
		sc.Workload = "kv"
	}
	for _, p := range params {
		if err := sc.SetParam(reg, p); err != nil {
			return nil, usage(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		return nil, usage(err)
	}
	return sc, nil
}

// applyFlags sets the settings the flags give over the file's. A setting
// given by its MONGOBENCH_ variable only (a default) does not override the
// file.
func applyFlags(sc *spec.Scenario, fs *pflag.FlagSet) error {
	var errs []error
	set := func(name, value string) {
		if err := sc.SetFlag(name, value); err != nil {
			errs = append(errs, err)
		}
	}
	fromFile := func(name string) bool {
		if name == "results" || name == "results-file" {
			return sc.Given("results") || sc.Given("results-file") // one store
		}
		return sc.Given(name)
	}
	for _, f := range scenarioFlags {
		v := fs.Lookup(f.name).Value.(*settingValue)
		if explicit(fs, f.name) || v.set && !fromFile(f.name) {
			set(f.name, v.text)
		}
	}
	if sc.URI == "" && env("MONGOBENCH_URI") != "" {
		set("uri", env("MONGOBENCH_URI"))
	}
	if sc.ResultsURI == "" && sc.ResultsFile == "" && env("MONGOBENCH_RESULTS_URI") != "" {
		set("results", env("MONGOBENCH_RESULTS_URI"))
	}
	return errors.Join(errs...)
}

func (a *app) runScenario(ctx context.Context, sc *spec.Scenario, rf runFlags) error {
	pacing, ok := engine.ParsePacing(rf.pacing)
	if !ok && rf.pacing != "" {
		return usage(fmt.Errorf("--pacing: got %q, want timerfd, nanosleep, spin or timer", rf.pacing))
	}
	if rf.completion != "arrival" && rf.completion != "return" {
		return usage(fmt.Errorf("--completion: got %q, want arrival or return", rf.completion))
	}
	for _, u := range []string{sc.URI, sc.ResultsURI} {
		if err := checkURI(u); err != nil {
			return err
		}
	}
	limits, err := rf.limits.limits()
	if err != nil {
		return err
	}
	share, err := groupFlagsOf(&rf.group, sc.ResultsFile)
	if err != nil {
		return err
	}
	src, err := rf.atlas.source(ctx)
	if err != nil {
		return err
	}
	lm, stopMetrics, err := a.startMetrics(ctx, rf.metrics)
	if err != nil {
		return err
	}
	defer stopMetrics()
	t, st, closeStore, err := a.targetAndStore(ctx, sc.URI, sc.ResultsURI, sc.ResultsFile)
	if err != nil {
		return err
	}
	defer closeStore()
	gc, err := a.joinGroup(ctx, &rf.group, share, st, groupScenario(sc), "")
	if err != nil {
		return err
	}
	var g runner.Group
	if gc != nil {
		g = gc
		defer gc.Leave()
	}
	t.URI = rf.ycsb.withOptions(t.URI)
	t.Atlas, t.Limits = src, limits
	// The run's one tally: the engine adds each closed interval to it,
	// and the live line, the abort judge and the live metrics read it.
	tally := engine.NewTally()
	p := newProgress(a.stderr, a.term, a.statusInterval, sc, tally)
	announce := func(version, topology string) {
		a.say("%s: %s against %s (MongoDB %s, %s)\n", sc.Name, sc.Describe(), redact(t.URI), version, topology)
	}
	rctx, watch, cancel := abortOn(ctx, sc, rf.thresholds.abort, tally)
	defer cancel()
	runID, published, ended := lm.begin(sc, result.Variant{}, tally)
	d, err := runner.Run(rctx, runner.Options{
		Scenario: sc, Registry: builtin.Registry(), Target: t, ToolVersion: Version,
		OnConnected: announce, OnSetup: p.setup, OnStart: p.start, OnInterval: watch.wrap(both(p.interval, published)), Tally: tally, Pacing: pacing, AtReturn: rf.completion == "return", Group: g, RunID: runID, OnTelemetry: lm.telemetry(),
	})
	ended()
	p.done()
	if err != nil {
		return err
	}
	watch.mark(d)
	judge(d, sc.Thresholds)
	ferr := watch.outcome(a.finish(d, st, rf), d)
	return errors.Join(ferr, a.finishGroup(ctx, gc, d))
}

// finish stores the result, then shows it and writes the report. A result
// that cannot be stored is written to a local file so it is never lost.
func (a *app) finish(d *result.Doc, st store.Store, rf runFlags) error {
	saveErr := a.save(a.ctx, st, d)
	if err := a.show(d, rf); err != nil {
		return errors.Join(saveErr, err)
	}
	if saveErr != nil && d.Partial {
		return fmt.Errorf("%w: run %s stopped early: %w", errInterrupted, d.RunID, saveErr) // still exit 130
	}
	if saveErr != nil {
		return saveErr
	}
	a.say("result %s stored in %s\n", d.RunID, st.Where())
	if d.Partial {
		return fmt.Errorf("%w: run %s stopped early; its partial result is stored", errInterrupted, d.RunID)
	}
	return nil
}

// checkURI rejects a connection string the driver cannot use before
// anything is started or announced; an empty one is left to the default.
func checkURI(s string) error {
	if s == "" {
		return nil
	}
	if err := runner.CheckURI(s); err != nil {
		return usage(err)
	}
	return nil
}
