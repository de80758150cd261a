package runner

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/uri"
)

// skeleton is the run's document as far as it is known when its measured
// phase starts at start: what identifies it (run id, test, variant, label,
// group) and how it is made (configuration, target, generator).
func (r *run) skeleton(start time.Time) *result.Doc {
	sc, t := r.opts.Scenario, r.opts.Target
	d := &result.Doc{
		SchemaVersion: result.SchemaVersion, RunID: r.opts.RunID, TestName: sc.Name,
		Label: sc.Label, Tags: sc.Tags, Repetition: sc.Repetition, Start: start.UTC(), End: start.UTC(),
		Variant: Variant(sc, r.opts.Variant), TestConfig: TestConfig(sc, r.opts.Variant), BenchConfig: r.benchConfig(),
		Target: result.Target{
			URI: secret.URI(t.URI), ServerVersion: r.fp.version, Topology: r.fp.topology, Kind: t.Kind,
			MonitoringMode: uri.MonitoringMode(t.URI), SameHost: t.PID != 0, Database: sc.Database,
		},
		Generator: generator(r.opts.ToolVersion),
	}
	if d.RunID == "" {
		d.RunID = NewRunID(start)
	}
	d.ID = ID(sc, r.opts.Variant)
	if g := r.opts.Group; g != nil {
		d.Group = g.Info(float64(sc.Rate))
	}
	cfg := r.engineConfig()
	d.Schedule = planned(cfg.Mode(), cfg.Workers, sc)
	return d
}

// document assembles the result of a finished engine run.
func (r *run) document(res *engine.Result, samples []telemetry.Sample) *result.Doc {
	sc := r.opts.Scenario
	phase := res.End.Sub(res.Start)
	d := r.skeleton(res.Start)
	d.End, d.Duration = res.End.UTC(), float64(phase)/float64(time.Millisecond)
	d.Partial, d.PartialReason = res.Partial, res.Reason
	d.BeforeStatus, d.AfterStatus = r.before.Doc, r.after.Doc
	base, every := time.Duration(r.opts.Scenario.Interval), r.ladder.Every()
	if every > base {
		samples = telemetry.Thin(samples, r.ladder.Start(), every)
		for i := range r.members {
			r.members[i].samples = telemetry.Thin(r.members[i].samples, r.ladder.Start(), every)
		}
	}
	d.Metrics = telemetry.Series(samples, res.Start, res.End, every)
	d.TestResults = result.TestResults{NOps: result.Ptr(res.Completed())}
	d.Schedule, d.Client = schedule(res, sc), client(res)
	if ran, waited, ok := telemetry.SchedBetween(r.schedBefore, r.schedAfter); ok && ran+waited > 0 {
		d.Client.CPUWait = result.F(float64(waited) / float64(ran+waited))
	}
	if g := r.opts.Group; g != nil && sc.Rate > 0 {
		d.Schedule.TargetRate = result.F(float64(sc.Rate) / float64(g.Part().Clients)) // this client's share
	}
	d.Ops = r.opStats(res.Ops, phase)
	d.Intervals = r.intervals(samples)
	if every > base {
		d.Resolution = &result.Resolution{IntervalSec: every.Seconds(), FullIntervalSec: base.Seconds(), FullIntervals: r.ladder.Full()}
	}
	r.memberSeries(&d.Metrics, res, every)
	d.Metrics.Measurements = append(d.Metrics.Measurements, r.gaugeSeries(res.Start, res.End, every)...)
	d.Metrics.Members = append(d.Metrics.Members, telemetry.LagSeries(samples, res.Start, res.End, every)...)
	d.Metrics.Members = append(d.Metrics.Members, telemetry.StateSeries(samples, res.Start, res.End, every)...)
	return d
}

// memberSeries names the member whose host the node exporter's series
// read, and adds the host series of the other mapped members.
func (r *run) memberSeries(m *result.Metrics, res *engine.Result, every time.Duration) {
	for _, h := range r.hosts {
		if h.Main && h.Member != "" {
			for _, list := range [][]result.Series{m.Measurements, m.DiskMetrics} {
				for i := range list {
					if list[i].Source == telemetry.SourceNodeExporter {
						list[i].Member, list[i].Role = h.Member, h.Role
					}
				}
			}
		}
	}
	for _, ms := range r.members {
		got := telemetry.Series(ms.samples, res.Start, res.End, every)
		for _, s := range append(got.Measurements, got.DiskMetrics...) {
			s.Member, s.Role = ms.host.Member, ms.host.Role
			m.Members = append(m.Members, s)
		}
	}
}

// NewRunID is sortable by time and unique: UTC start, then random hex.
func NewRunID(start time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return start.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// ID identifies the test and variant: the test name, the label, then the
// variant's values in name order. A re-run of the same variant replaces
// its row in the results collection.
func ID(sc *spec.Scenario, extra result.Variant) result.Ordered {
	id := result.Ordered{{Key: "testname", Value: sc.Name}}
	if sc.Label != "" {
		id = append(id, result.KV{Key: "label", Value: sc.Label})
	}
	v := Variant(sc, extra)
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		id = append(id, result.KV{Key: k, Value: v[k]})
	}
	return id
}

// Variant is what a run varies: the workload's parameters, the pacing,
// the concurrency, and any extra identifying values.
func Variant(sc *spec.Scenario, extra result.Variant) map[string]any {
	v := extra.Over(plainParams(sc.Params))
	v["numberOfThreads"] = sc.Threads
	if sc.Rate > 0 {
		v["targetRate"] = float64(sc.Rate)
	}
	if len(sc.Stages) > 0 {
		v["stages"] = spec.StagesText(sc.Stages)
	}
	if sz, ok := sc.Params["docSize"].(spec.Size); ok {
		v["docSizeKB"] = float64(sz) / 1024
	}
	return v
}

// TestConfig is the scenario's full effective configuration.
func TestConfig(sc *spec.Scenario, extra result.Variant) map[string]any {
	c := Variant(sc, extra)
	c["workload"] = sc.Workload
	c["loop"] = "closed"
	if sc.Rate > 0 {
		c["loop"] = "open"
	}
	c["durationSec"] = time.Duration(sc.Duration).Seconds()
	c["warmupSec"] = time.Duration(sc.Warmup).Seconds()
	c["intervalSec"] = time.Duration(sc.Interval).Seconds()
	c["maxLagSec"] = time.Duration(sc.MaxLag).Seconds()
	c["ops"] = sc.Ops
	c["seed"] = sc.Seed
	return c
}

// plainParams converts typed parameter values to plain numbers and text.
func plainParams(p spec.Params) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		switch x := v.(type) {
		case spec.Size:
			out[k] = int64(x)
		case spec.Duration:
			out[k] = time.Duration(x).String()
		default:
			out[k] = x
		}
	}
	return out
}

// benchConfig describes the environment in the schema's Atlas-shaped
// terms: for a server on this host what the host says of itself (CPUs
// the server may use, CPU model, memory, the server's cache, the data
// directory's disk), the target's description over it where given, and
// the profile's label or the target's kind as its instance type when no
// type is given; nothing it cannot know. Prices stay in variant.instance.
func (r *run) benchConfig() map[string]any {
	t := r.opts.Target
	in := result.Instance{AtlasInstanceType: cmp.Or(t.profileLabel(), t.Kind)}
	if gb, dev, ok := diskOf(t.DataDir); ok {
		in.AtlasDiskSizeGB, in.AtlasDiskType = gb, dev
	}
	if t.PID != 0 {
		in = localInstance(in, t)
	}
	c := t.Described().Over(in).Fields()
	for _, k := range []string{"cost", "price", "currency"} {
		delete(c, k)
	}
	return c
}

// localInstance adds to in what the host of a server on this machine
// says of itself. What cannot be read is left out.
func localInstance(in result.Instance, t Target) result.Instance {
	m, _ := telemetry.DescribeMachine(t.PID, t.DataDir) // a part not read is absent
	in.VCPU, in.RAMGB, in.CPUModel = int64(m.CPUs), m.MemoryGB, m.CPUModel
	in.Device, in.Filesystem, in.Rotational = m.Device, m.Filesystem, m.Rotational
	if t.CacheSize > 0 {
		in.CacheSizeMB = t.CacheSize >> 20
	}
	if kind := diskKind(m); kind != "" {
		in.AtlasDiskType = kind
	}
	return in
}

// diskKind names a local disk as in "local SSD (ext4 on nvme0n1p2)" or
// "local rotational disk (xfs on sda1)", by the kernel's rotational flag;
// "local overlay" for a filesystem without a block device; "" when the
// data directory's filesystem is unknown.
func diskKind(m telemetry.Machine) string {
	switch {
	case m.Filesystem == "":
		return ""
	case m.Device == "":
		return "local " + m.Filesystem
	case m.Rotational == nil:
		return fmt.Sprintf("local disk (%s on %s)", m.Filesystem, m.Device)
	case *m.Rotational:
		return fmt.Sprintf("local rotational disk (%s on %s)", m.Filesystem, m.Device)
	}
	return fmt.Sprintf("local SSD (%s on %s)", m.Filesystem, m.Device)
}

func (r *run) opStats(ops []engine.OpTotals, phase time.Duration) []result.OpStats {
	out := make([]result.OpStats, 0, len(ops))
	for i := range ops {
		s, err := ops[i].Result(phase)
		if err != nil {
			r.errs = append(r.errs, err)
		}
		out = append(out, s)
	}
	return out
}

// planned is the schedule as far as it is known before the run: its
// mode, workers, bounds and target.
func planned(mode string, workers int, sc *spec.Scenario) result.Schedule {
	s := result.Schedule{Mode: mode, Workers: workers, LateThreshold: ms(10 * time.Millisecond), DropBound: ms(time.Duration(sc.MaxLag))}
	if sc.Rate > 0 {
		s.TargetRate = result.F(float64(sc.Rate))
	}
	return s
}

func schedule(res *engine.Result, sc *spec.Scenario) result.Schedule {
	s := planned(res.Mode, res.Workers, sc)
	s.Pacer, s.Intended, s.Late, s.Dropped, s.Abandoned, s.MaxLag = res.Pacer, res.Intended, res.Late, res.Dropped, res.Abandoned, ms(res.MaxLag)
	s.AchievedRate, s.SuccessRate, s.FailedRate = res.AchievedRate(), res.SuccessRate(), res.FailedRate()
	s.WarmupSkipped, s.Skipped = res.WarmupSkipped, res.Skipped
	if res.Mode == "open" {
		s.Pacing = string(res.Pacing)
	}
	s.Precision = precision(res.Precision)
	s.SendLag, s.ReceiveLag = lagSummary(res.Lag), lagSummary(res.ReceiveLag)
	return s
}

// lagSummary summarises a lag histogram; nil when there is none.
func lagSummary(h *hist.H) *result.Dist {
	if h == nil {
		return nil
	}
	d, err := hist.Summarize(h)
	if err != nil {
		return nil
	}
	return &d
}

// precision copies the engine's precision verdict; a verdict it could
// not give carries its reason and no figure.
func precision(p engine.Precision) *result.Precision {
	out := &result.Precision{Judged: p.Judged, Note: p.Note, Bound: engine.PrecisionBound, FloorMs: ms(engine.PrecisionFloor), Flagged: p.Flagged}
	if p.Judged {
		out.SendLagP99, out.LatencyP50 = result.F(ms(p.SendLagP99)), result.F(ms(p.LatencyP50))
		out.Op, out.Share = p.Op, result.F(p.Share)
	}
	return out
}

func client(res *engine.Result) result.Client {
	c := result.Client{
		CPUSeconds: res.CPU.Seconds(), Cores: res.Cores,
		CPUPercent:  engine.CPUPercent(res.CPU, res.End.Sub(res.Start), res.Cores),
		ClientBound: res.ClientBound, ServerBound: res.ServerBound, NotJudged: res.NotJudged,
	}
	if res.ServerBound {
		c.ServerReasons = res.Reasons
	} else {
		c.Reasons = res.Reasons
	}
	if n := res.Completed(); n > 0 {
		c.CPUPerOp = result.F(float64(res.CPU.Microseconds()) / float64(n))
	}
	return c
}

// intervals are the result's intervals, those its ladder kept (the
// engine forgets them), each with the server's and host's figures over
// its span.
func (r *run) intervals(samples []telemetry.Sample) []result.Interval {
	ivs, err := r.ladder.Intervals()
	if err == nil {
		err = r.ladderErr
	}
	if err != nil {
		r.warnings = append(r.warnings, fmt.Sprintf("the run's intervals could not be kept: %v", err))
	}
	out := slices.Clone(ivs)
	for i := range out {
		iv := &out[i]
		iv.Server, iv.Host = telemetry.Window(samples, iv.Start, iv.Start.Add(time.Duration(iv.Seconds*float64(time.Second))))
	}
	return out
}

func generator(tool string) result.Generator {
	host, _ := os.Hostname()
	return result.Generator{
		Host: host, ToolVersion: tool, DriverVersion: "go " + version.Driver,
		GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH, Cores: runtime.NumCPU(),
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// diskOf returns the size in GB of the filesystem holding dir and its
// kind, when dir is known.
func diskOf(dir string) (float64, string, bool) {
	if dir == "" {
		return 0, "", false
	}
	gb, err := filesystemGB(dir)
	if err != nil {
		return 0, "", false
	}
	return gb, fmt.Sprintf("local filesystem of %s", dir), true
}
