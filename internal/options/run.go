package options

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// Run is the run command's flags: its scenario's settings (Setting
// values, checked by spec as a scenario file's are), -p, the target's
// URI, YCSB's -P files, two hidden engine settings, and the option set.
type Run struct {
	URI                string
	Params             []string
	Files              []string
	Pacing, Completion string // hidden: how open-loop workers wait (bench/pacing.sh); when operations end (bench/responder.sh)
	Trace              string // hidden: the calibration trace's file (bench/responder.sh)
	uriOptions         []ycsbprops.Option
	Measure
}

// settings are the scenario settings a flag of run sets, with help.
var settings = []struct{ name, help string }{
	{"workload", "workload to run (see 'mongobench workloads'); default kv"},
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

// Add declares run's flags on fl.
func (r *Run) Add(fl *pflag.FlagSet, h Help) {
	fl.StringVar(&r.URI, "uri", "", "target MongoDB URI (default: the scenario file's uri, else $MONGOBENCH_URI, else the embedded server, started if needed)")
	for _, s := range settings {
		fl.Var(NewSetting(s.name), s.name, s.help)
	}
	fl.StringArrayVarP(&r.Params, "param", "p", nil, "workload parameter name=value, repeatable (see 'mongobench workloads')")
	fl.StringVar(&r.Pacing, "pacing", "", "open loop: how workers wait for their slots: spin (default: a timerfd armed as early as the run's wake-ups are late, learnt as it goes, at most 100 µs, then a spin to the slot), dispatch (the wire client's requests of YCSB, kv, insert and hotdoc, built before their slots under every pacing, written by one dispatcher, itself waiting as spin does, instead of each by its own worker), timerfd, nanosleep, or timer (Go timers)")
	_ = fl.MarkHidden("pacing")
	fl.StringVar(&r.Completion, "completion", "arrival", "when an operation ends: arrival (its reply's kernel receive timestamp, where the wire client reads one) or return (when the worker has read it)")
	_ = fl.MarkHidden("completion")
	fl.StringVar(&r.Trace, "trace", "", "calibration: write every measured operation's intended start, the engine's call of its task, its send (its first request's kernel transmit stamp, where its service time begins), reply arrival, return, latency and service time, keyed by its request id, to this file once the run is over (bench/responder.sh)")
	_ = fl.MarkHidden("trace")
	AddPropertyFiles(fl, &r.Files)
	r.Measure.Add(fl, h)
	Alias(fl, "results-uri", "results")
}

// Scenario builds run's scenario from an optional scenario file (args)
// or YCSB property files, then the flags of fs, then -p parameters, and
// validates it against the workloads of reg; the file's Where (its uri,
// results, node exporters), or the property files' URI, comes with it.
func (r *Run) Scenario(fs *pflag.FlagSet, args []string, reg *workload.Registry) (*spec.Scenario, spec.Where, error) {
	sc, where := &spec.Scenario{}, spec.Where{}
	params := r.Params
	var errs []error
	switch {
	case len(r.Files) > 0 && len(args) == 1:
		return nil, where, errors.New("-P: YCSB property files take the place of a scenario file; give one or the other")
	case len(r.Files) > 0:
		workload := ""
		if f := fs.Lookup("workload"); f.Changed {
			workload = f.Value.String()
		}
		s, err := ycsbprops.Read(ycsbprops.Run, r.Files, r.Params, workload, reg)
		if err != nil {
			return nil, where, err
		}
		for _, st := range s.Scenario() {
			errs = append(errs, sc.SetFlag(st.Flag, st.Value))
		}
		where.Target.URI, r.uriOptions, params = s.URI, s.Options, s.Params
	case len(args) == 1:
		var err error
		if sc, where, err = spec.ParseFile(args[0], reg); err != nil {
			return nil, where, err
		}
	}
	errs = append(errs, applySettings(sc, fs))
	if sc.Workload == "" {
		sc.Workload = "kv"
	}
	for _, p := range params {
		errs = append(errs, sc.SetParam(reg, p))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, where, err
	}
	return sc, where, sc.Validate(reg)
}

// applySettings sets the settings the flags give over the file's. A
// setting given by its MONGOBENCH_ variable only (a default) does not
// override the file.
func applySettings(sc *spec.Scenario, fs *pflag.FlagSet) error {
	var errs []error
	for _, s := range settings {
		v := fs.Lookup(s.name).Value.(*Setting)
		if Explicit(fs, s.name) || v.set && !sc.Given(s.name) {
			errs = append(errs, sc.SetFlag(s.name, v.text))
		}
	}
	return errors.Join(errs...)
}

// Options checks the flags and makes the lab's Options for a run whose
// scenario file says where: the flags win over the file's target,
// results store and node exporters, and $MONGOBENCH_URI is the target
// when neither names one.
func (r *Run) Options(ctx context.Context, fs *pflag.FlagSet, where spec.Where, env Env) (lab.Options, error) {
	pacing, ok := engine.ParsePacing(r.Pacing)
	if !ok && r.Pacing != "" {
		return lab.Options{}, fmt.Errorf("--pacing: got %q, want spin, dispatch, timerfd, nanosleep or timer", r.Pacing)
	}
	if r.Completion != "arrival" && r.Completion != "return" {
		return lab.Options{}, fmt.Errorf("--completion: got %q, want arrival or return", r.Completion)
	}
	target := where.Target.URI
	if Explicit(fs, "uri") || target == "" {
		target = r.URI
	}
	if target == "" {
		target = env("MONGOBENCH_URI")
	}
	if err := CheckURI(target); err != nil {
		return lab.Options{}, fmt.Errorf("--uri: %w", err)
	}
	if !Explicit(fs, "results") && !Explicit(fs, "results-file") && (where.Results.URI != "" || where.Results.File != "") {
		r.ResultsURI, r.ResultsFile = where.Results.URI, where.Results.File
	}
	lo, err := r.Measure.Options(ctx, env)
	if err != nil {
		return lo, err
	}
	if !Explicit(fs, "host-metrics") && len(where.Target.HostMetrics) > 0 {
		lo.HostMetrics, lo.HostDevice = where.Target.HostMetrics, where.Target.HostDevice
	}
	lo.URI, lo.URIOptions = target, r.uriOptions
	lo.Announce, lo.Pacing, lo.AtReturn, lo.Trace = true, pacing, r.Completion == "return", r.Trace
	return lo, nil
}
