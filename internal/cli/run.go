package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// runFlags are the run command's own flags; scenario settings are
// settingValue flags whose text is handed to spec.Scenario.SetFlag, so
// flags and files are checked by the same code.
type runFlags struct {
	params     []string
	pacing     string // hidden: how open-loop workers wait (bench/pacing.sh)
	completion string // hidden: when operations end (bench/responder.sh)
	ycsb       ycsbFlags
	measureOptions
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
	{"seed", "random seed (default 1)"},
	{"label", "free-text label, e.g. the instance type; part of the result's _id"},
	{"tags", "comma-separated tags stored with the result"},
	{"repetition", "repetition number within a series"},
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
			return a.runScenario(cmd.Context(), sc, &rf, cmd.Flags())
		},
	}
	for _, f := range scenarioFlags {
		cmd.Flags().Var(newSettingValue(f.name), f.name, f.help)
	}
	cmd.Flags().StringArrayVarP(&rf.params, "param", "p", nil, "workload parameter name=value, repeatable (see 'mongobench workloads')")
	cmd.Flags().StringVar(&rf.pacing, "pacing", "", "open loop: how workers wait for their slots: spin (default: a timerfd, then a spin of up to 50 µs), timerfd, nanosleep, or timer (Go timers)")
	_ = cmd.Flags().MarkHidden("pacing")
	cmd.Flags().StringVar(&rf.completion, "completion", "arrival", "when an operation ends: arrival (its reply's kernel receive timestamp, where the wire client reads one) or return (when the worker has read it)")
	_ = cmd.Flags().MarkHidden("completion")
	rf.ycsb.add(cmd.Flags())
	rf.add(a, cmd.Flags(), optionHelp{reportDir: "mongobench-reports", json: "print the result document as JSON instead of the summary"})
	deprecatedAlias(cmd.Flags(), "results-uri", "results")
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
	fromFile := sc.Given
	for _, f := range scenarioFlags {
		v := fs.Lookup(f.name).Value.(*settingValue)
		if explicit(fs, f.name) || v.set && !fromFile(f.name) {
			set(f.name, v.text)
		}
	}
	if sc.URI == "" && env("MONGOBENCH_URI") != "" {
		set("uri", env("MONGOBENCH_URI"))
	}
	return errors.Join(errs...)
}

// runScenario runs sc as a one-run study through the lab: the scenario
// file's results store and node exporters count where no flag gives
// them.
func (a *app) runScenario(ctx context.Context, sc *spec.Scenario, rf *runFlags, fs *pflag.FlagSet) error {
	pacing, ok := engine.ParsePacing(rf.pacing)
	if !ok && rf.pacing != "" {
		return usage(fmt.Errorf("--pacing: got %q, want timerfd, nanosleep, spin or timer", rf.pacing))
	}
	if rf.completion != "arrival" && rf.completion != "return" {
		return usage(fmt.Errorf("--completion: got %q, want arrival or return", rf.completion))
	}
	if err := checkURI(sc.URI); err != nil {
		return err
	}
	if !explicit(fs, "results") && !explicit(fs, "results-file") && (sc.ResultsURI != "" || sc.ResultsFile != "") {
		rf.resultsURI, rf.resultsFile = sc.ResultsURI, sc.ResultsFile
	}
	lo, err := rf.options(ctx, a)
	if err != nil {
		return err
	}
	if !explicit(fs, "host-metrics") && len(sc.HostMetrics) > 0 {
		lo.HostMetrics, lo.HostDevice = sc.HostMetrics, sc.HostDevice
	}
	sc.HostMetrics, sc.HostDevice = nil, nil
	if err := checkThresholds(builtin.Registry(), sc, sc.Rate > 0, lo.Thresholds...); err != nil {
		return err
	}
	lo.URI, lo.URIOptions = sc.URI, rf.ycsb.options
	lo.Announce, lo.Pacing, lo.AtReturn = true, pacing, rf.completion == "return"
	l, err := a.open(ctx, lo)
	if err != nil {
		return err
	}
	defer l.Close()
	d, err := study.Single{Scenario: sc}.Run(ctx, l.Env(builtin.Registry()))
	if d == nil {
		return l.Outcome(err)
	}
	if err != nil && d.Partial && !errors.Is(err, study.ErrStopped) {
		err = fmt.Errorf("%w: run %s stopped early: %w", study.ErrStopped, d.RunID, err) // the store failed: still exit 130
	}
	if serr := a.showRun(d, rf.json, l.Reports()); serr != nil {
		return errors.Join(err, serr)
	}
	if err == nil {
		a.say("result %s stored in %s\n", d.RunID, l.Store().Where())
		return lab.ThresholdsFailed(d)
	}
	return l.Outcome(err)
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
