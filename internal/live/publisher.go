package live

import (
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
)

// Run names the run being measured: its metrics' labels and its entry in
// the feed.
type Run struct {
	ID, Test, Label, Workload string
	// Step is the study's step in words ("" for a single run), e.g.
	// "sweepStep=3 rate=2000".
	Step string
	// Target is the schedule's rate in operations per second over
	// [from, to) of the measured phase (open loop); nil in closed loop,
	// which has no target.
	Target func(from, to time.Duration) float64
	// Tally is the run's tally, which the engine adds each interval to
	// before Interval is called with it: the counters and the run's
	// achieved rate are its figures, read at each scrape. Nil: none are
	// published.
	Tally *engine.Tally
}

// Quantiles are the latency and service-time percentiles published for
// the last interval, as the value of the quantile label; "1" is the
// maximum.
var Quantiles = []string{"0.5", "0.95", "0.99", "0.999", "1"}

// keepRuns bounds the runs the feed remembers (a long study makes many).
const keepRuns = 32

var (
	runLabels = []string{"test", "label", "run_id"}
	opLabels  = []string{"test", "label", "run_id", "op"}
)

// Publisher holds the live figures: Prometheus metrics of the current
// run and the feed of this process's runs. Its methods may be called from
// any goroutine.
type Publisher struct {
	mu      sync.Mutex
	reg     *prometheus.Registry
	m       metrics
	runs    []*RunFeed
	current *RunFeed
	run     Run
	// last is the Index of the current run's last interval published
	// (-1 before the first): the engine hands the final one again when a
	// short tail joins it, and it then replaces the feed's last interval.
	last  int
	step  int // runs begun in this process
	first time.Time
	cores int
	// seq counts updates; scraped is the seq that the last completed
	// scrape of /metrics saw, at scrapedAt, after a gap of scrapeGap.
	seq, scraped int64
	scrapedAt    time.Time
	scrapeGap    time.Duration
}

type metrics struct {
	rate, errRate, latency, service                 *prometheus.GaugeVec
	achieved, target, lagP99, lagMax, inFlight, cpu *prometheus.GaugeVec
	info, step, running                             *prometheus.GaugeVec
	server, host                                    *prometheus.GaugeVec
}

// New returns a publisher with its metrics registered, and no run yet.
func New() *Publisher {
	reg := prometheus.NewRegistry()
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "mongobench", Name: name, Help: help}, labels)
		reg.MustRegister(g)
		return g
	}
	withClass := append(append([]string{}, opLabels...), "class")
	withQuantile := append(append([]string{}, opLabels...), "quantile")
	withStep := append(append([]string{}, runLabels...), "workload", "step")
	m := metrics{
		rate:     gauge("ops_per_second", "Successful operations per second in the last interval.", opLabels...),
		errRate:  gauge("errors_per_second", "Failed operations per second in the last interval, by error class.", withClass...),
		latency:  gauge("latency_seconds", "Latency (from intended start) percentile of the last interval's successful operations; quantile 1 is the maximum.", withQuantile...),
		service:  gauge("service_time_seconds", "Service time (from actual send) percentile of the last interval's successful operations; quantile 1 is the maximum.", withQuantile...),
		achieved: gauge("achieved_ops_per_second", "Completed operations (successes and errors, parts of operations left out) per second in the last interval.", runLabels...),
		target:   gauge("target_ops_per_second", "The schedule's rate in the last interval (open loop).", runLabels...),
		lagP99:   gauge("send_lag_p99_seconds", "99th percentile of the send lag (intended start to send) in the last interval (open loop).", runLabels...),
		lagMax:   gauge("send_lag_max_seconds", "Largest schedule lag in the last interval (open loop).", runLabels...),
		inFlight: gauge("in_flight_peak", "Most operations in flight at once in the last interval.", runLabels...),
		cpu:      gauge("client_cpu_percent", "CPU of this process in the last interval, percent of all cores.", runLabels...),
		info:     gauge("run_info", "The run being measured (value 1), with its workload and study step.", withStep...),
		step:     gauge("study_step", "The run's number among the runs of this process (1 for a single run).", runLabels...),
		running:  gauge("run_running", "1 while the run's measured phase goes, 0 once it has ended.", runLabels...),
		server: gauge("server_figure", "The server's figures of the last sampling interval, from serverStatus (figure: connections, opcounters per second, cache bytes, checkpoints, write conflicts per second, mean operation latency in ms, …; as stored in intervals[].server).",
			append(append([]string{}, runLabels...), "figure")...),
		host: gauge("host_figure", "The server host's figures of the last sampling interval (figure: cpuUserPct, cpuKernelPct, cpuIowaitPct, procCpuUserPct, diskIops, diskWriteBytesPerSec, …; as stored in intervals[].host), from /proc, or the node exporter with --host-metrics.",
			append(append([]string{}, runLabels...), "figure")...),
	}
	p := &Publisher{reg: reg, m: m, cores: runtime.GOMAXPROCS(0), last: -1}
	reg.MustRegister(newTallied(p))
	return p
}

// Registry is where the metrics are registered.
func (p *Publisher) Registry() *prometheus.Registry { return p.reg }

// Begin starts publishing a run: the previous run's series are removed,
// the feed gains an entry.
func (p *Publisher) Begin(r Run) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current != nil {
		p.deleteSeries(p.current.RunID)
	}
	p.step++
	p.run, p.first, p.last = r, time.Time{}, -1
	p.current = &RunFeed{RunID: r.ID, Test: r.Test, Label: r.Label, Workload: r.Workload, Step: r.Step, Started: time.Now().UTC(), Running: true}
	p.runs = append(p.runs, p.current)
	if len(p.runs) > keepRuns {
		p.runs = p.runs[len(p.runs)-keepRuns:]
	}
	l := p.labels()
	p.m.info.With(prometheus.Labels{"test": r.Test, "label": r.Label, "run_id": r.ID, "workload": r.Workload, "step": r.Step}).Set(1)
	p.m.step.With(l).Set(float64(p.step))
	p.m.running.With(l).Set(1)
	p.seq++
}

// End marks the current run ended; its last figures stay published
// until the next run begins.
func (p *Publisher) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return
	}
	p.current.Running = false
	p.m.running.With(p.labels()).Set(0)
	p.seq++
}

func (p *Publisher) labels() prometheus.Labels {
	return prometheus.Labels{"test": p.run.Test, "label": p.run.Label, "run_id": p.run.ID}
}

func (p *Publisher) opLabels(op string) prometheus.Labels {
	l := p.labels()
	l["op"] = op
	return l
}

func (p *Publisher) deleteSeries(runID string) {
	for _, g := range []*prometheus.GaugeVec{p.m.rate, p.m.errRate, p.m.latency, p.m.service, p.m.achieved, p.m.target,
		p.m.lagP99, p.m.lagMax, p.m.inFlight, p.m.cpu, p.m.info, p.m.step, p.m.running, p.m.server, p.m.host} {
		g.DeletePartialMatch(prometheus.Labels{"run_id": runID})
	}
}

// Telemetry publishes the server's and its host's figures of the last
// sampling interval of the current run (the runner's OnTelemetry): one
// gauge per figure; a figure absent from this interval is removed, never
// set to 0. Without a current run it does nothing.
func (p *Publisher) Telemetry(server, host map[string]float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil {
		return
	}
	for _, set := range []struct {
		g    *prometheus.GaugeVec
		figs map[string]float64
	}{{p.m.server, server}, {p.m.host, host}} {
		set.g.DeletePartialMatch(prometheus.Labels{"run_id": p.run.ID})
		for name, v := range set.figs {
			l := p.labels()
			l["figure"] = name
			set.g.With(l).Set(v)
		}
	}
	p.seq++
}

// Interval publishes a closed interval of the current run (the engine's
// OnInterval): the last interval's gauges and the feed; the counters
// read the run's tally. Without a current run it does nothing.
func (p *Publisher) Interval(iv *engine.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.current == nil || iv.Length <= 0 {
		return
	}
	if p.first.IsZero() {
		p.first = iv.Start
	}
	secs := iv.Length.Seconds()
	l := p.labels()
	for _, op := range iv.Ops {
		ol := p.opLabels(op.Name)
		p.m.rate.With(ol).Set(float64(op.Count) / secs)
		for class, n := range op.Errors {
			cl := p.opLabels(op.Name)
			cl["class"] = engine.Class(class).String()
			p.m.errRate.With(cl).Set(float64(n) / secs)
		}
		setQuantiles(p.m.latency, ol, op.Latency)
		setQuantiles(p.m.service, ol, op.Service)
	}
	p.m.achieved.With(l).Set(float64(iv.Completed()) / secs)
	fi := FeedInterval{Interval: feedInterval(iv, p.cores), SendLagP99: iv.Lag.P99, InFlight: iv.PeakInFlight}
	if p.run.Target != nil {
		from := iv.Start.Sub(p.first)
		target := p.run.Target(from, from+iv.Length)
		p.m.target.With(l).Set(target)
		p.m.lagMax.With(l).Set(iv.MaxLag.Seconds())
		fi.TargetRate = result.F(target)
	}
	setOrDelete(p.m.lagP99, l, iv.Lag.P99)
	p.m.inFlight.With(l).Set(float64(iv.PeakInFlight))
	if fi.ClientCPU != nil {
		p.m.cpu.With(l).Set(*fi.ClientCPU)
	}
	if iv.Index == p.last && len(p.current.Intervals) > 0 {
		p.current.Intervals[len(p.current.Intervals)-1] = fi
	} else {
		p.current.Intervals = append(p.current.Intervals, fi)
		if n := len(p.current.Intervals); n >= 2*FeedKeep {
			// A run of any length: the feed holds its latest intervals.
			p.current.Intervals = append(p.current.Intervals[:0], p.current.Intervals[n-FeedKeep:]...)
		}
	}
	p.last = iv.Index
	p.seq++
}

// setQuantiles publishes d's percentiles in seconds; an interval with no
// successful operation has none, and its series are removed rather than
// shown as 0.
func setQuantiles(g *prometheus.GaugeVec, l prometheus.Labels, d result.Dist) {
	for i, v := range []*float64{d.P50, d.P95, d.P99, d.P999, d.Max} {
		ql := prometheus.Labels{"quantile": Quantiles[i]}
		for k, x := range l {
			ql[k] = x
		}
		setOrDelete(g, ql, v)
	}
}

// setOrDelete sets the gauge to ms milliseconds, in seconds, or removes
// the series when the value is missing.
func setOrDelete(g *prometheus.GaugeVec, l prometheus.Labels, ms *float64) {
	if ms == nil {
		g.Delete(l)
		return
	}
	g.With(l).Set(*ms / 1000)
}

// feedInterval is a closed engine interval in the result document's form,
// without the encoded histograms (the feed carries the percentiles).
// FeedKeep is how many of a run's latest intervals the live feed holds
// at least (at most twice as many): an hour of one-second intervals.
const FeedKeep = 3600

func feedInterval(iv *engine.Interval, cores int) result.Interval {
	ri := iv.Result(cores)
	for i := range ri.Ops {
		ri.Ops[i].Latency.Hist, ri.Ops[i].Service.Hist = "", ""
	}
	return ri
}
