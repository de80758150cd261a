package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// studyFlags are the flags the study commands share: the target and its
// data database, where results go, the label and -p parameters of the
// runs, and where their reports go.
type studyFlags struct {
	uri, database, resultsURI, file, label string
	hostMetrics, hostDevice                string
	atlas                                  atlasFlags
	limits                                 limitFlags
	params                                 []string
	reportDir                              string
	uriOptions                             []ycsbprops.Option // added to the target's URI (-P)
	json                                   bool
	metricsAddr                            string
	thresholds                             thresholdFlags
}

// The help of --host-metrics and --host-device, the same on every command.
const (
	hostMetricsHelp = "Prometheus node exporter URL of the server's host: host CPU and disk from it instead of this host's /proc; for a replica set's members, repeat it or separate by commas, each URL (matched to the member on its host) or MEMBER=URL, MEMBER the member's host:port as the set names it"
	hostDeviceHelp  = "with --host-metrics: the disk to read (default: the one holding the server's dbPath); for one member, MEMBER=DEVICE, repeatable"
)

// studyHelp is what a command's shared flags say that differs between
// commands; an empty params or reportDir declares no such flag.
type studyHelp struct {
	each      string // what the label is stored with: "every run", "the run"
	results   string // what --results-file appends: "results", "the result"
	params    string // -p
	reportDir string // --report-dir
	json      string // --json
	// hostMetrics declares --host-metrics and --host-device (commands
	// that measure one target from these flags).
	hostMetrics bool
}

// add declares the flags on fl.
func (f *studyFlags) add(fl *pflag.FlagSet, h studyHelp) {
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the target)")
	fl.StringVar(&f.file, "results-file", "", "append "+h.results+" to this JSON Lines file instead")
	fl.StringVar(&f.label, "label", "", "label stored with "+h.each+", e.g. the instance type")
	f.limits.add(fl)
	if h.hostMetrics {
		fl.Var(listText{&f.hostMetrics}, "host-metrics", hostMetricsHelp)
		fl.Var(listText{&f.hostDevice}, "host-device", hostDeviceHelp)
		f.atlas.add(fl)
	}
	if h.params != "" {
		fl.StringArrayVarP(&f.params, "param", "p", nil, h.params)
	}
	if h.reportDir != "" {
		fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", h.reportDir)
	}
	if h.json != "" {
		fl.BoolVar(&f.json, "json", false, h.json)
	}
	metricsFlag(fl, &f.metricsAddr)
}

// runOn runs a study of the workloads of reg on the one target the flags
// name: check builds its scenarios first, so bad parameters fail before
// anything connects; then run runs it with the target resolved and the
// results store open.
func (a *app) runOn(ctx context.Context, f studyFlags, reg *workload.Registry, check func(study.Env) error, run func(*studyRun) error) error {
	if err := check(study.Env{Registry: reg}); err != nil {
		return usage(err)
	}
	hostMetrics, hostDevice := spec.ParseHostMetrics(f.hostMetrics), spec.ParseHostDevices(f.hostDevice)
	if err := spec.CheckHostFlags(hostMetrics, hostDevice); err != nil {
		return usage(err)
	}
	limits, err := f.limits.limits()
	if err != nil {
		return err
	}
	src, err := f.atlas.source(ctx)
	if err != nil {
		return err
	}
	lm, stopMetrics, err := a.startMetrics(ctx, f.metricsAddr)
	if err != nil {
		return err
	}
	defer stopMetrics()
	t, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	t.URI = ycsbprops.WithOptions(t.URI, f.uriOptions)
	t.HostMetrics, t.HostDevice, t.Atlas = hostMetrics, hostDevice, src
	s := newStudy(a, t, st, f.reportDir)
	s.registry, s.json, s.limits, s.metrics = reg, f.json, limits, lm
	return run(s)
}

// The typed flag values of spec and study are flag values.
var (
	_ pflag.Value = (*spec.SettingFlag)(nil)
	_ pflag.Value = (*spec.Duration)(nil)
	_ pflag.Value = (*spec.Rate)(nil)
	_ pflag.Value = (*spec.Size)(nil)
	_ pflag.Value = (*study.Bound)(nil)
	_ pflag.Value = (*study.Rates)(nil)
	_ pflag.Value = (*study.Costs)(nil)
	_ pflag.Value = (*study.Prices)(nil)
)
