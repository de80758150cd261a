// Package lab is the measuring environment every command that measures
// opens once: the target and the results store, the live metrics, the
// Atlas and node-exporter sources, the limits the diagnosis judges
// against, the thresholds that judge (and may stop) every run, and the run
// group the runs belong to. It hands a study its study.Env: Measure runs
// one scenario through the single-run runner, Keep stores, notes and
// reports it. The cli fills its Options from the one option set every
// measuring command declares; nothing here reads flags, the environment
// or prints except through the UI it is given.
package lab

import (
	"context"
	"errors"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/validity"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// Options are what every measuring command shares beside its own
// settings, already parsed and checked by the cli.
type Options struct {
	// URI is the target ("" the embedded server); URIOptions are added to
	// it (YCSB's -P connection properties).
	URI        string
	URIOptions []ycsbprops.Option
	// ResultsURI and ResultsFile say where results go: the file, else the
	// URI, else the target's server (or, with Targets, the embedded one).
	ResultsURI, ResultsFile string
	// Targets makes the study run on the targets it is handed (catalog
	// with a targets file, plan): no target is resolved when the lab
	// opens, and results never go to a target's server.
	Targets bool
	// HostMetrics and HostDevice name the node exporters of the target's
	// host or its members'; Atlas, the Atlas cluster measured.
	HostMetrics []spec.HostMetric
	HostDevice  []spec.HostDevice
	Atlas       *runner.AtlasSource
	// Limits are the ceilings the diagnosis judges every run against.
	Limits diagnosis.Limits
	// FTDC is the target server's diagnostic.data directory on this host
	// ("" none): after each run, its window of the FTDC files is attached
	// to the run's series (runner's ftdc_files source).
	FTDC string
	// Telemetry names the telemetry sources every run reads, in order
	// (runner.CheckSources; none: runner.Sources's defaults).
	Telemetry []string
	// Thresholds judge every run (with its scenario's own); with
	// AbortOnFail a run stops as soon as one cannot hold.
	Thresholds  []threshold.Threshold
	AbortOnFail bool
	// NoStream keeps a run from its store until it ends (--stream=false).
	NoStream bool
	// Group makes every run one client's part of a run group.
	Group Group
	// MetricsAddr serves the live figures while running ("" none).
	MetricsAddr string
	// ReportDir receives every run's report ("" none).
	ReportDir string
	// Collect keeps every kept run's document for Kept (a command's
	// --json); without it none is held.
	Collect bool
	// CacheSize replaces the target's storage cache size (catalog run
	// --cache-size); 0 keeps what is known.
	CacheSize int64
	// Announce says, for each run, what it runs against once connected.
	Announce bool
	// Pacing, AtReturn and Trace are run's hidden engine settings
	// (bench/).
	Pacing   engine.Pacing
	AtReturn bool
	// Validity are the bounds of the rules that judge every run valid,
	// suspect or invalid (nil: the defaults).
	Validity validity.Bounds
	// Canary takes the client host's noise canary before and after
	// every run.
	Canary bool
	// IncludeInvalid lets a study read the stored runs judged invalid
	// too (a plan's stored runs); by default they are left out.
	IncludeInvalid bool
	// Trace is the calibration mode's file of every operation's stamps
	// (run --trace, bench/responder.sh); "" none.
	Trace string
}

// Group is a run group's settings: Share is this client's part (the zero
// Share: not a group's run), ID the group's id, Timeout how long a
// client waits for the others.
type Group struct {
	Share   engine.Share
	ID      string
	Timeout time.Duration
	Host    string
	PID     int
}

// grouped reports whether the runs are a group's.
func (g Group) grouped() bool { return g.Share.Grouped() || g.ID != "" }

// Progress shows one run as it goes (the cli's live or status line).
type Progress interface {
	Setup(stage string, done, total int64)
	Start(warmup, length time.Duration)
	Interval(*engine.Interval)
	Done()
}

// UI is how the lab speaks to the user: the cli fills it.
type UI struct {
	// Say writes a progress note for people.
	Say func(format string, args ...any)
	// Progress makes the progress display of a run of sc, which reads the
	// run's tally.
	Progress func(sc *spec.Scenario, tally *engine.Tally) Progress
	// Step is told of a study's next run (a header line with the time
	// left).
	Step func(study.StepInfo)
	// WarnURI warns about a connection string given (options the driver
	// ignores, w=0); nil: no warnings.
	WarnURI func(uri string)
	// AbortJudged, when set, is handed each run's cumulative figures the
	// abort judge judges (the tests that compare them with the stored
	// document's).
	AbortJudged func(threshold.Figures)
	// ToolVersion is stored with every result.
	ToolVersion string
}

// Lab is an open measuring environment.
type Lab struct {
	opts    Options
	ui      UI
	servers Servers
	target  runner.Target
	store   store.Store
	groups  store.Coordinator // nil: the store cannot coordinate a run group
	live    *liveMetrics
	closers []func()

	noted   map[string]bool
	reports []string
	kept    []result.Doc
	// runs counts the runs judged on thresholds, failed those whose
	// thresholds failed.
	runs, failed int
	joined       *joined  // the group the run being measured joined
	aborted      *aborted // the run the abort judge stopped
}

// Servers says where the embedded server and local profiles live.
type Servers struct {
	Dir string
	Env server.Env
}

// Open resolves the target (unless the study brings its own targets),
// opens the results store, checks what a run group needs of it, and
// starts the live metrics.
func Open(ctx context.Context, o Options, ui UI, srv Servers) (*Lab, error) {
	if ui.Say == nil {
		ui.Say = func(string, ...any) {}
	}
	l := &Lab{opts: o, ui: ui, servers: srv, noted: map[string]bool{}}
	if err := l.open(ctx); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// open does Open's work; what it opened is closed on an error.
func (l *Lab) open(ctx context.Context) (err error) {
	o, ui := l.opts, l.ui
	if !o.Targets {
		t, err := l.resolve(ctx, o.URI)
		if err != nil {
			return err
		}
		t.URI = ycsbprops.WithOptions(t.URI, o.URIOptions)
		l.target = l.configure(t)
	}
	if err := l.openStore(ctx); err != nil {
		return err
	}
	if o.Group.grouped() {
		m, ok := l.store.(store.Coordinator)
		if !ok {
			return ErrGroupStore
		}
		l.groups = m
	}
	if l.live, err = startMetrics(ctx, o.MetricsAddr, ui.Say); err != nil {
		return err
	}
	if l.live != nil {
		l.closers = append(l.closers, func() { l.live.stop(ctx, ui.Say) })
	}
	return nil
}

// ErrGroupStore is the error of a run group given a store that cannot
// coordinate it.
var ErrGroupStore = errors.New("--clients: a run group coordinates through a MongoDB results store (database mongobench, collection groups); give --results, or neither for the target's")

// Close stops the live metrics and closes the store.
func (l *Lab) Close() {
	for i := len(l.closers) - 1; i >= 0; i-- {
		l.closers[i]()
	}
	l.closers = nil
}

// Target is the resolved target; the zero Target when the study brings
// its own.
func (l *Lab) Target() runner.Target { return l.target }

// LedgerAudit audits the ledger workload's accounts in the data database
// db of the target, after the runs (runner.LedgerAudit), in one line.
func (l *Lab) LedgerAudit(ctx context.Context, db string) string {
	return runner.LedgerAudit(context.WithoutCancel(ctx), l.target.URI, db)
}

// Store is where the results go.
func (l *Lab) Store() store.Store { return l.store }

// Kept is every run kept so far, in order, with Options.Collect; nil
// without.
func (l *Lab) Kept() []result.Doc { return l.kept }

// Reports are the paths of the runs' Markdown reports written so far.
func (l *Lab) Reports() []string { return l.reports }

// Env is the seam a study runs through, over the workloads of reg.
func (l *Lab) Env(reg *workload.Registry) study.Env {
	env := study.Env{Measure: l.measurer(reg), Keep: l.keep, Registry: reg, Say: l.ui.Say, Step: l.ui.Step, OnTarget: l.onTarget, Audit: l.LedgerAudit,
		Stored: l.store.ListLight, Where: l.store.Where(), IncludeInvalid: l.opts.IncludeInvalid}
	if l.opts.Group.grouped() {
		env.Merged = l.merged
	}
	return env
}

// ThresholdsVerdict is the verdict of a study that has none of its own
// (catalog run): every run's thresholds held.
func (l *Lab) ThresholdsVerdict() (bool, string) {
	if l.failed == 0 {
		return true, ""
	}
	return false, plural(l.failed, l.runs)
}
