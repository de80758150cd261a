package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hostmap"
	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/workload"
)

// Target is the server under test: the deployment as the user described
// it (spec.Target: URI, label, profile, instance, price, node exporters)
// and what was found when it was resolved.
type Target struct {
	spec.Target
	Kind string // "embedded-secantus", "embedded-mongod", "profile-…" or "external"
	// PID and DataDir identify a server process on this host, whose host
	// counters the run then records; zero when unknown or remote.
	PID     int
	DataDir string
	// CacheSize is the server's storage cache in bytes when the caller
	// knows it (a local server it started, or the user said); 0 when
	// unknown. Workloads that size a working set against the cache read
	// it when the server does not report its own; CacheSizeSource says
	// where the size came from.
	CacheSize       int64
	CacheSizeSource string
	// Atlas, when set, gives the host figures and the instance fields
	// from the Atlas API after the run.
	Atlas *AtlasSource
	// FTDC is the server's diagnostic.data directory on this host ("":
	// none): after the run, its window of the FTDC files is attached to
	// the run's series (the ftdc_files source).
	FTDC string
	// Telemetry are the names of the sources the run reads, in order
	// (CheckSources; empty: every default source, in Sources's order).
	Telemetry []string
	// Limits are the ceilings the user stated for the target's disk and
	// network link, which the run's diagnosis judges against.
	Limits diagnosis.Limits
}

// profileLabel is the label of the local profile the target is, "" when
// it is not one.
func (t Target) profileLabel() string {
	if t.Profile == nil {
		return ""
	}
	return t.Label
}

// Options configure one run.
type Options struct {
	Scenario    *spec.Scenario
	Registry    *workload.Registry
	Target      Target
	ToolVersion string
	// Variant holds the study's values that identify the run beyond its
	// scenario (e.g. an SLA study's stage); they join variant and _id.
	Variant result.Variant
	// MaxPoints is the most intervals the result keeps before they are
	// coarsened as the run goes (0: a result document's, merge.MaxPoints,
	// less the room a series needs for its boundary readings).
	MaxPoints int
	// OnConnected is called once the target answers, with its version
	// and topology and how the run is paced (the scenario's Describe); for
	// a SelfScheduled workload once it is prepared, with its schedule's
	// About. OnSetup reports setup progress (preloading);
	// OnInterval reports each closed interval of the measured phase. Each
	// may be nil.
	OnConnected func(version, topology, how string)
	OnSetup     func(stage string, done, total int64)
	// OnStart is called when the setup is over and the engine starts: the
	// warm-up (of the length given, unmeasured) begins, or the measured
	// phase when there is none; length is the measured phase's planned
	// length (a self-scheduled workload's own, 0 when bounded by its
	// operations alone).
	OnStart    func(warmup, length time.Duration)
	OnInterval func(*engine.Interval)
	// Tally, when set, is the run's tally, which its interval readers
	// (live line, abort judge, live metrics) hold: the engine adds each
	// closed interval to it before OnInterval, and the result is its
	// figures. Nil: the engine keeps its own.
	Tally *engine.Tally
	// OnTelemetry, when set, is called each sampling interval with the
	// server's and its host's figures of that interval (telemetry keys;
	// a figure that could not be derived is absent).
	OnTelemetry func(telemetry.Figures)
	// Pacing is how open-loop workers wait for their slots (empty: the
	// engine's default); bench/pacing.sh compares them.
	Pacing engine.Pacing
	// AtReturn ends operations when their task returns, not at their
	// reply's arrival; bench/responder.sh compares the two.
	AtReturn bool
	// Trace, when set, is the file the calibration mode writes every
	// measured operation's timeline to once the run is over
	// (bench/responder.sh joins it to the responder's).
	Trace string
	// Group, when set, makes the run one client of a run group.
	Group Group
	// OnMeasuring, when set, is called as the measured phase starts with
	// what the run's document holds by then (its identity and
	// configuration), so that the run can be registered before it ends.
	OnMeasuring func(*result.Doc)
	// Closing, when set, is the context of the sources read after the
	// measured phase: the command's, which a stop of the measured phase
	// alone (the abort judge's) does not end; nil: the run's.
	Closing context.Context
	// RunID is the run's id, when the caller names the run before it
	// starts (its live metrics carry it); empty: NewRunID of the measured
	// phase's start.
	RunID string
}

// A Group makes a run one client of a run group: the client does its
// Part of the load; a client other than the Lead waits before preparing
// until the lead has prepared the data, and attaches to it; every client
// waits at the group's barrier (Ready) for the instant its warm-up starts.
type Group interface {
	Part() engine.Share
	Lead() bool
	BeforePrepare(ctx context.Context) error
	Prepared(ctx context.Context) error
	Ready(ctx context.Context, warmup time.Duration) (time.Time, error)
	// Info is the result's group section, with the group's target rate.
	Info(targetRate float64) *result.Group
}

// Run executes the scenario and returns its result document. When ctx is
// cancelled during the measured phase, the result is returned marked
// partial; cancelled before it, Run returns the context's error.
func Run(ctx context.Context, o Options) (*result.Doc, error) {
	sc := o.Scenario
	w, err := o.Registry.Get(sc.Workload)
	if err != nil {
		return nil, err
	}
	if o.Group != nil {
		// each client's result is a row of its own, and the group's merged one another
		info := o.Group.Info(0)
		o.Variant.Group, o.Variant.ClientIndex = &info.ID, info.ClientIndex
	}
	client, err := Connect(ctx, o.Target.URI, sc.Threads+4)
	if err != nil {
		return nil, interrupted(ctx, "connecting", err)
	}
	defer disconnect(ctx, client)
	fp, err := fingerprint(ctx, client)
	if err != nil {
		return nil, interrupted(ctx, "connecting", err)
	}
	_, selfScheduled := w.(workload.SelfScheduled)
	if o.OnConnected != nil && !selfScheduled {
		o.OnConnected(fp.version, fp.topology, sc.Describe())
	}
	set := fp.set
	if len(o.Target.HostMetrics) > 0 {
		set = withHidden(ctx, client, set)
	}
	hosts, err := mapHosts(o, set)
	if err != nil {
		return nil, err
	}
	env := workload.Env{DB: client.Database(sc.Database), URI: o.Target.URI, Seed: sc.Seed, Progress: o.OnSetup,
		CacheSize: o.Target.CacheSize, CacheSizeSource: o.Target.CacheSizeSource, Rate: float64(sc.Rate)}
	if g := o.Group; g != nil {
		if err := workload.CheckGroup(w, sc.Params); err != nil {
			return nil, err
		}
		env.Share, env.Follower = g.Part(), !g.Lead()
		if err := g.BeforePrepare(ctx); err != nil {
			return nil, interrupted(ctx, "waiting for the group's lead", err)
		}
	}
	prepared, err := prepare(ctx, w, env, sc.Params)
	if err != nil {
		return nil, interrupted(ctx, "setup", err)
	}
	if o.OnConnected != nil && selfScheduled && prepared.Schedule != nil {
		o.OnConnected(fp.version, fp.topology, prepared.Schedule.About)
	}
	settings, err := prepared.Decided.TestConfig()
	if err != nil {
		return nil, fmt.Errorf("set up %s: %w", w.Name(), err)
	}
	o.Target = locate(ctx, client, o.Target)
	r := &run{opts: o, client: client, fp: fp, hosts: hosts, ops: w.Ops(sc.Params), settings: settings, warnings: prepared.Decided.Warnings, mix: prepared.Decided.Mix,
		own: prepared.Schedule, annotate: prepared.Annotate}
	if la, ok := w.(workload.LedgerAudited); ok {
		if lc, ok := la.AuditedLedger(); ok {
			r.ledger = &lc
		}
	}
	if g := o.Group; g != nil {
		if err := g.Prepared(ctx); err != nil {
			return nil, err
		}
		if r.startAt, err = g.Ready(ctx, time.Duration(sc.Warmup)); err != nil {
			return nil, interrupted(ctx, "waiting for the group", err)
		}
	}
	return r.measure(ctx, prepared.Tasks)
}

// mapHosts maps the target's node exporters to the members of set,
// before anything is measured.
func mapHosts(o Options, set hostmap.ReplicaSet) ([]hostmap.MemberHost, error) {
	return hostmap.Map(o.Target.HostMetrics, o.Target.HostDevice, set)
}

// prepare claims the data database and prepares the workload's run.
func prepare(ctx context.Context, w workload.Workload, env workload.Env, p spec.Params) (workload.Run, error) {
	if _, free := w.(workload.DataFree); !free {
		if err := workload.Claim(ctx, env.DB); err != nil {
			return workload.Run{}, err
		}
	}
	prepared, err := w.Prepare(ctx, env, p)
	if err != nil {
		return workload.Run{}, fmt.Errorf("set up %s: %w", w.Name(), err)
	}
	return prepared, nil
}

// disconnect closes the client, within 5 s, or bounded.Grace once ctx
// has ended (a dead server would hold the driver's goodbye that long).
func disconnect(ctx context.Context, c *mongo.Client) {
	ctx, cancel := bounded.Step(ctx, 5*time.Second)
	defer cancel()
	_ = c.Disconnect(ctx) // nothing useful to do with a failed goodbye
}

// run is one measurement in progress.
type run struct {
	opts   Options
	client *mongo.Client
	fp     fingerprintInfo
	ops    []string
	// settings and warnings are what the workload's setup decided: its
	// effective settings (test_config fields) and notes.
	settings map[string]any
	warnings []string
	// mix is the workload's stated share of each operation type (nil:
	// none stated); the notes give the mix achieved against it.
	mix    map[string]float64
	before telemetry.Status
	after  telemetry.Status
	// schedBefore and schedAfter are this process's threads' scheduler
	// statistics at the measured phase's boundaries.
	schedBefore, schedAfter telemetry.Sched
	tasks                   []engine.Task
	// sampler samples the server and host during the run.
	sampler *telemetry.Sampler
	// hosts are the node exporters mapped to members; members samples
	// the hosts of those other than the main one.
	hosts   []hostmap.MemberHost
	members []memberSampler
	// bases hold each worker's counts at its first measured operation
	// (nil when it had none): the warm-up's part of its counts.
	bases []*result.Counts
	// ladder keeps the result's intervals as they close, in constant
	// memory (the engine forgets them); its grain thins the samplers'.
	ladder    *merge.Ladder
	ladderErr error
	grain     time.Duration
	// startAt is the run group's start instant (zero: not in a group).
	startAt time.Time
	errs    []error
	// ctx is the run's: the steps after the measured phase get
	// bounded.Grace once it ends.
	ctx context.Context
	// exporters are the node exporters read, named as the notes name them.
	exporters []namedExporter
	// ftdc read the hosts and the servers from getDiagnosticData, when it
	// is their source (the main member's, the other members'); closed
	// when the run ends.
	ftdc []*telemetry.DiagnosticData
	// main reads the main member's host (nil: its figures are missing),
	// chosen by the host sources (sources.go).
	main telemetry.HostReader
	// gauges sample the series sources (sources.go, gauges.go).
	gauges []*gaugeSampler
	// ledger is the ledger the workload asks to audit after the measured
	// phase (nil: none).
	ledger *workload.LedgerCollections
	// own is the workload's own schedule (nil: the scenario's); annotate
	// adds the workload's section to the result.
	own      *workload.Schedule
	annotate func(context.Context, *result.Doc)
}

type namedExporter struct {
	whose string
	n     *telemetry.NodeExporter
}

func (r *run) measure(ctx context.Context, tasks workload.Tasks) (*result.Doc, error) {
	sc := r.opts.Scenario
	r.ctx = ctx
	defer func() {
		for _, d := range r.ftdc {
			_ = d.Close(context.Background()) // the samples are taken; a slow goodbye changes nothing
		}
	}()
	host, err := r.hostSources(ctx)
	if err != nil {
		return nil, err
	}
	sampler := telemetry.NewSampler(r.opts.Target.URI, host)
	sampler.OnSample = r.opts.OnTelemetry
	sampler.ReplicaSet = r.fp.set.Name != "" // the members' states, and with several members their lags
	r.sampler = sampler
	if err := sampler.Start(ctx, time.Duration(sc.Interval)); err != nil {
		return nil, fmt.Errorf("start telemetry: %w", err)
	}
	for _, m := range r.members {
		if err := m.sampler.Start(ctx, time.Duration(sc.Interval)); err != nil {
			sampler.Stop()
			r.stopMembers()
			return nil, fmt.Errorf("start telemetry of member %s: %w", m.host.Member, err)
		}
	}
	r.startGauges(ctx, time.Duration(sc.Interval))
	if r.opts.OnStart != nil {
		warmup, length := time.Duration(sc.Warmup), time.Duration(sc.Duration)
		if r.own != nil {
			warmup, length = 0, r.own.Length // the workload's own schedule has no warm-up
		}
		r.opts.OnStart(warmup, length)
	}
	cfg := r.engineConfig()
	offset := cfg.Share.First(int64(sc.Threads)) // a group client's workers are the group's from here
	workers := cfg.Workers
	if cfg.Share.Grouped() {
		workers = int(cfg.Share.Part(int64(workers))) // as the engine asks
	}
	built, err := buildTasks(ctx, tasks, int(offset), workers, r.opts.OnSetup)
	if err != nil {
		sampler.Stop()
		r.stopMembers()
		return nil, interrupted(ctx, "connecting the workers", err)
	}
	r.tasks = built
	r.ladder, r.grain = merge.NewLadder(time.Duration(sc.Interval), r.maxPoints()), time.Duration(sc.Interval)
	r.bases = make([]*result.Counts, len(built))
	if r.opts.Trace != "" {
		cfg.Trace = engine.NewTrace(engine.MaxTrace)
	}
	res, err := engine.Run(ctx, cfg, func(worker int) (engine.Task, error) { return built[worker], nil })
	if err == nil && cfg.Trace != nil {
		err = writeTrace(r.opts.Trace, r.ops, cfg.Trace)
	}
	samples := sampler.Stop()
	r.stopMembers()
	closeTasks(r.tasks)
	if err != nil {
		return nil, err
	}
	if res.Intended == 0 && res.Partial && ctx.Err() != nil {
		return nil, interrupted(ctx, "warm-up", ctx.Err())
	}
	for _, e := range r.exporters {
		if why := e.n.Dropped(); why != "" {
			r.warnings = append(r.warnings, e.whose+" figures are missing: "+why)
		}
	}
	d := r.document(res, samples)
	if r.annotate != nil {
		r.annotate(ctx, d)
	}
	r.addNotes(d)
	r.auditLedger(ctx, d)
	closing := ctx
	if r.opts.Closing != nil {
		closing = r.opts.Closing
	}
	r.afterSources(closing, d)
	if ctx.Err() != nil && !d.Partial {
		// Ctrl-C after the measured phase cut its closing figures short
		d.Partial, d.PartialReason = true, "interrupted after the measured phase, while taking its closing figures (serverStatus, telemetry, Atlas): those cut short are missing"
	}
	d.Diagnosis = diagnosis.Diagnose(d, r.opts.Target.Limits)
	return d, errors.Join(r.errs...)
}

// memberSampler samples the host of a replica set member other than the
// main one.
type memberSampler struct {
	host    hostmap.MemberHost
	sampler *telemetry.Sampler
	samples []telemetry.Sample
}

// stopMembers stops the members' samplers, keeping their samples, and
// the series sources' samplers.
func (r *run) stopMembers() {
	for i := range r.members {
		r.members[i].samples = r.members[i].sampler.Stop()
	}
	r.stopGauges()
}

func (r *run) engineConfig() engine.Config {
	sc := r.opts.Scenario
	cfg := engine.Config{
		Ops: r.ops, Workers: sc.Threads,
		Warmup: time.Duration(sc.Warmup), Duration: time.Duration(sc.Duration), Count: sc.Ops,
		Interval: time.Duration(sc.Interval), DropAfter: time.Duration(sc.MaxLag),
		Classify: workload.Classify, AtPhase: r.countsAt, AtWorkerMeasured: r.workerMeasured, OnPhase: r.snapshot, OnInterval: r.onInterval, ForgetIntervals: true, Tally: r.opts.Tally,
		Pacing: r.opts.Pacing, AtReturn: r.opts.AtReturn, StartAt: r.startAt,
	}
	if g := r.opts.Group; g != nil {
		cfg.Share = g.Part()
	}
	switch {
	case len(sc.Stages) > 0:
		p, err := engine.NewStages(engineStages(sc.Stages)...)
		if err == nil {
			cfg.Pacer = p
		} else {
			cfg.Pacer = engine.NewConstant(float64(sc.Rate)) // unreachable: spec checked the stages
		}
	case sc.Rate > 0 && sc.Arrival == spec.ArrivalPoisson:
		cfg.Pacer = engine.NewPoisson(float64(sc.Rate), uint64(sc.Seed))
	case sc.Rate > 0:
		cfg.Pacer = engine.NewConstant(float64(sc.Rate))
	}
	if o := r.own; o != nil {
		// The workload's schedule: every operation sent, however late.
		cfg.Pacer, cfg.Count, cfg.Workers = o.Pacer, o.Count, o.Workers
		cfg.Warmup, cfg.Duration, cfg.DropAfter = 0, 0, time.Duration(math.MaxInt64)
	}
	return cfg
}

// engineStages converts the scenario's stages (k6's form: ramp from the
// previous target to this one) to the engine's (from and to rates over a
// length); a stage of zero duration is a jump, the start of the next.
func engineStages(st []spec.Stage) []engine.Stage {
	var out []engine.Stage
	prev := 0.0
	for _, s := range st {
		to := float64(s.Target)
		if s.Duration > 0 {
			out = append(out, engine.Stage{Length: time.Duration(s.Duration), From: prev, To: to})
		}
		prev = to
	}
	return out
}

// maxPoints is the most intervals the result keeps (merge.Ladder):
// by default below merge.MaxPoints by the room a series needs for the
// readings at the phase's boundaries, so a document the ladder made fits
// as it is.
func (r *run) maxPoints() int {
	if n := r.opts.MaxPoints; n > 0 {
		return n
	}
	return merge.LadderPoints
}

// onInterval keeps a closed interval in the ladder, bounds the samplers
// to its grain when it grows, then hands the interval on (on the
// engine's callback goroutine, in order).
func (r *run) onInterval(iv *engine.Interval) {
	if err := r.ladder.Add(iv.Index, iv.Result(runtime.GOMAXPROCS(0))); err != nil && r.ladderErr == nil {
		r.ladderErr = err
	}
	if every := r.ladder.Every(); every != r.grain {
		r.grain = every
		origin := r.ladder.Start()
		r.sampler.Bound(2*r.maxPoints(), origin, every)
		for _, m := range r.members {
			m.sampler.Bound(2*r.maxPoints(), origin, every)
		}
		for _, g := range r.gauges {
			g.bound(2*r.maxPoints(), origin, every)
		}
	}
	if on := r.opts.OnInterval; on != nil {
		on(iv)
	}
}

// countsAt takes, on the engine's goroutine at the measured phase's
// boundaries, the host's counters: a sample stamped at the boundary, so a
// phase shorter than the sampling interval has host figures. The
// workload's counts are split from the warm-up per worker instead
// (workerMeasured), where the split is exact.
func (r *run) countsAt(_ engine.Phase, t time.Time) {
	if r.sampler != nil {
		r.sampler.Mark(t)
	}
	for _, m := range r.members {
		m.sampler.Mark(t)
	}
	for _, g := range r.gauges {
		g.mark(t)
	}
}

// snapshot takes serverStatus at the measured phase's boundaries (on the
// engine's callback goroutine).
func (r *run) snapshot(p engine.Phase, t time.Time) {
	if p == engine.MeasureStart {
		r.schedBefore = telemetry.ReadSched()
	} else {
		r.schedAfter = telemetry.ReadSched()
	}
	ctx, cancel := bounded.Step(r.ctx, 5*time.Second)
	defer cancel()
	st, err := telemetry.ServerStatus(ctx, r.client)
	if err != nil {
		st = telemetry.Status{Time: time.Now()}
	}
	if p == engine.MeasureStart {
		r.before = st
		if on := r.opts.OnMeasuring; on != nil {
			if r.opts.RunID == "" {
				r.opts.RunID = NewRunID(t) // the id registered is the id stored
			}
			on(r.skeleton(t))
		}
	} else {
		r.after = st
	}
}

// closeTasks closes the tasks that hold connections of their own.
func closeTasks(tasks []engine.Task) {
	for _, t := range tasks {
		if c, ok := t.(io.Closer); ok {
			_ = c.Close() // the run is over; a failed close changes nothing
		}
	}
}
