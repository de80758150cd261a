package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/uri"
)

// measureOptions are the options every command that measures accepts,
// declared once (add) and turned into the lab's Options once (open):
// where results go, thresholds and the abort judge, the run group, the
// host's telemetry (node exporters, Atlas), the diagnosis's stated
// limits, live metrics, reports and output.
type measureOptions struct {
	resultsURI, resultsFile string
	thresholds              []string
	abortOnFail             bool
	clients, clientIndex    int
	group                   string
	groupTimeout            time.Duration
	hostMetrics, hostDevice string
	atlas                   atlasFlags
	diskLimit, link         string
	metricsAddr             string
	reportDir               string
	noReport                bool
	json                    bool
	// groups says whether the command can run as a run group; when not,
	// why ("" when it can).
	noGroup string
}

// optionHelp is what the option set says that differs between commands.
type optionHelp struct {
	reportDir string // --report-dir's default
	json      string // what --json prints
	// noGroup, when set, is why the command cannot run as a run group.
	noGroup string
}

// thresholdHelp is --threshold's help, with the grammar in brief.
const thresholdHelp = `threshold judged on every run, repeatable; a failed one exits 99: METRIC CMP VALUE, such as
'p99(READ) < 5ms', 'svc.p50 < 1ms' (service time), 'errors < 0.1%', 'errors(timeout) < 1',
'rate >= 99%', 'clientbound == false' (docs/options.md, Thresholds)`

// The help of --host-metrics and --host-device.
const (
	hostMetricsHelp = "Prometheus node exporter URL of the server's host: host CPU and disk from it instead of this host's /proc; for a replica set's members, repeat it or separate by commas, each URL (matched to the member on its host) or MEMBER=URL, MEMBER the member's host:port as the set names it"
	hostDeviceHelp  = "with --host-metrics: the disk to read (default: the one holding the server's dbPath); for one member, MEMBER=DEVICE, repeatable"
)

const unsetIndex = -1

// add declares the option set on fl.
func (o *measureOptions) add(a *app, fl *pflag.FlagSet, h optionHelp) {
	o.noGroup = h.noGroup
	fl.StringVar(&o.resultsURI, "results", "", "results MongoDB URI, database mongobench (default: $MONGOBENCH_RESULTS_URI, else the target server)")
	fl.StringVar(&o.resultsFile, "results-file", "", "append results to this JSON Lines file instead of a results collection")
	fl.StringArrayVar(&o.thresholds, "threshold", nil, thresholdHelp)
	fl.BoolVar(&o.abortOnFail, "abort-on-fail", false, "stop a run's measured phase as soon as a threshold cannot hold (an error count passed at once; any other after "+
		lab.AbortSettle.String()+" or half the phase, whichever is shorter), keep the partial result and exit 99")
	fl.IntVar(&o.clients, "clients", 1, "run as one of this many clients of a run group (the same --group and settings on each); each does 1/N of the rate or threads and its slice of the keys")
	fl.IntVar(&o.clientIndex, "client-index", unsetIndex, "this client's index in the group, 0 to clients-1 (default: $JOB_COMPLETION_INDEX, set by a Kubernetes Indexed Job); client 0 prepares the data")
	fl.StringVar(&o.group, "group", "", "run group id shared by its clients (letters, digits, '.', '_', '-'; one id per run)")
	fl.DurationVar(&o.groupTimeout, "group-timeout", group.DefaultTimeout, "how long a client waits for the others at the start, and for a silent client before the group's result is stored without it")
	fl.Var(listText{&o.hostMetrics}, "host-metrics", hostMetricsHelp)
	fl.Var(listText{&o.hostDevice}, "host-device", hostDeviceHelp)
	o.atlas.add(fl)
	fl.StringVar(&o.diskLimit, "disk-limit", "", "the target disk's ceiling, for the diagnosis of what limited each run: throughput, IOPS or both, e.g. 225MB/s,3000iops")
	fl.StringVar(&o.link, "link", "", "the network link to the target, for the diagnosis: e.g. 10Gbit/s")
	fl.StringVar(&o.metricsAddr, "metrics-addr", "", "while running, serve live figures on HOST:PORT: Prometheus metrics at /metrics, the intervals at /live (for 'mongobench serve --live'), e.g. 127.0.0.1:9464")
	dirHelp := "directory for every run's Markdown and HTML report (and the study's)"
	if h.reportDir == "" {
		dirHelp += " (default: none)"
	}
	fl.StringVar(&o.reportDir, "report-dir", h.reportDir, dirHelp)
	fl.BoolVar(&o.noReport, "no-report", false, "write no report files")
	fl.BoolVar(&o.json, "json", false, h.json)
	a.statusFlag(fl)
}

// parseThresholds reads the thresholds given, naming the one that does
// not parse.
func (o *measureOptions) parseThresholds() ([]threshold.Threshold, error) {
	ts, err := threshold.ParseAll(o.thresholds)
	if err != nil {
		return nil, usage(fmt.Errorf("--threshold: %w", err))
	}
	return ts, nil
}

// options checks the option set and makes the lab's Options from it;
// the command fills in what is its own (the target, URI options).
func (o *measureOptions) options(ctx context.Context, a *app) (lab.Options, error) {
	var lo lab.Options
	var err error
	if lo.Thresholds, err = o.parseThresholds(); err != nil {
		return lo, err
	}
	lo.AbortOnFail = o.abortOnFail
	hostMetrics, hostDevice := spec.ParseHostMetrics(o.hostMetrics), spec.ParseHostDevices(o.hostDevice)
	if err := spec.CheckHostFlags(hostMetrics, hostDevice); err != nil {
		return lo, usage(err)
	}
	lo.HostMetrics, lo.HostDevice = hostMetrics, hostDevice
	if lo.Limits, err = o.limits(); err != nil {
		return lo, err
	}
	if lo.Group, err = o.groupOf(); err != nil {
		return lo, usage(err)
	}
	if o.metricsAddr != "" {
		if _, _, err := net.SplitHostPort(o.metricsAddr); err != nil {
			return lo, usage(fmt.Errorf("--metrics-addr: %q is not valid: want HOST:PORT, e.g. 127.0.0.1:9464", o.metricsAddr))
		}
	}
	lo.MetricsAddr = o.metricsAddr
	if o.resultsURI != "" && runner.CheckURI(o.resultsURI) != nil {
		return lo, usage(fmt.Errorf("--results: %q is not valid: want a MongoDB URI such as mongodb://localhost:27017/ or mongodb+srv://cluster.example.net/", uri.Redact(o.resultsURI)))
	}
	lo.ResultsFile = o.resultsFile
	if lo.ResultsURI, err = a.resultsURI(o.resultsURI, o.resultsFile); err != nil {
		return lo, err
	}
	if !o.noReport {
		lo.ReportDir = o.reportDir
	}
	lo.Collect = o.json
	if lo.Atlas, err = o.atlas.source(ctx); err != nil {
		return lo, err
	}
	return lo, nil
}

// limits parses --disk-limit and --link; a bad value is a usage error
// naming the flag.
func (o *measureOptions) limits() (diagnosis.Limits, error) {
	var l diagnosis.Limits
	if o.diskLimit != "" {
		d, err := diagnosis.ParseDiskLimit(o.diskLimit)
		if err != nil {
			return l, usage(fmt.Errorf("--disk-limit: %w", err))
		}
		l = d
	}
	if o.link != "" {
		v, err := diagnosis.ParseLink(o.link)
		if err != nil {
			return l, usage(fmt.Errorf("--link: %w", err))
		}
		l.LinkBytesPerSec = v
	}
	return l, nil
}

// groupOf checks the group options and returns the run group's settings;
// the zero Group when the runs are not a group's.
func (o *measureOptions) groupOf() (lab.Group, error) {
	if o.clients == 1 && o.group == "" {
		return lab.Group{}, nil
	}
	if o.noGroup != "" {
		return lab.Group{}, fmt.Errorf("--clients, --group: %s", o.noGroup)
	}
	if o.clients < 1 || o.clients > spec.MaxClients {
		return lab.Group{}, fmt.Errorf("--clients: got %d, want 1 to %d", o.clients, spec.MaxClients)
	}
	if err := result.CheckID("--group", o.group); err != nil {
		return lab.Group{}, fmt.Errorf("%w (one id per group run)", err)
	}
	if o.resultsFile != "" {
		return lab.Group{}, fmt.Errorf("--clients %d with --results-file %s: a run group coordinates through a MongoDB results store (database mongobench, collection groups), which a JSON Lines file cannot do; give --results, or neither for the target's", o.clients, o.resultsFile)
	}
	if o.groupTimeout <= 0 || o.groupTimeout > spec.MaxGroupTimeout {
		return lab.Group{}, fmt.Errorf("--group-timeout: got %v, want a positive duration up to %v", o.groupTimeout, spec.MaxGroupTimeout)
	}
	idx := o.clientIndex
	if idx == unsetIndex {
		v := env("JOB_COMPLETION_INDEX")
		if v == "" {
			return lab.Group{}, fmt.Errorf("--client-index: not given and JOB_COMPLETION_INDEX is not set; want 0 to %d", o.clients-1)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return lab.Group{}, fmt.Errorf("JOB_COMPLETION_INDEX: got %q, want 0 to %d", v, o.clients-1)
		}
		idx = n
	}
	if idx < 0 || idx >= o.clients {
		return lab.Group{}, fmt.Errorf("--client-index: got %d, want 0 to %d for --clients %d", idx, o.clients-1, o.clients)
	}
	host, _ := os.Hostname()
	return lab.Group{Share: engine.Share{Clients: o.clients, Index: idx}, ID: o.group, Timeout: o.groupTimeout, Host: host, PID: os.Getpid()}, nil
}

// open opens the lab with lo: the cli's UI (notes, the progress line,
// step headers, URI warnings) and the embedded server's place.
func (a *app) open(ctx context.Context, lo lab.Options) (*lab.Lab, error) {
	return lab.Open(ctx, lo, a.ui(), a.servers())
}

// ui is how the lab speaks through the cli.
func (a *app) ui() lab.UI {
	var clock report.StepClock
	return lab.UI{
		Say: a.say,
		Progress: func(sc *spec.Scenario, tally *engine.Tally) lab.Progress {
			return newProgress(a.stderr, a.term, a.statusInterval, sc, tally)
		},
		Step: func(info study.StepInfo) {
			a.say("%s\n", report.StepLine(clock.Next(info.N, info.Total, info.What, info.Planned, time.Now())))
		},
		WarnURI:     a.warnURI,
		AbortJudged: abortJudged,
		ToolVersion: Version,
	}
}

// abortJudged, when set (by tests, OnAbortJudged), is handed each
// cumulative document the abort judge judges.
var abortJudged func(*result.Doc)

// servers says where the embedded server and local profiles live.
func (a *app) servers() lab.Servers { return lab.Servers{Dir: serverDir(), Env: serverEnv()} }

// finishStudy prints a study's view after its progress lines (with
// --json, the stored documents of its runs as one JSON array instead)
// and writes its report, name.md and name.html, from the same view;
// view is handed the links to the runs' reports.
func (a *app) finishStudy(l *lab.Lab, o *measureOptions, runs int, view func(runs []report.Link) *report.StudyView) error {
	if o.json {
		if err := store.WriteJSON(a.stdout, l.Kept()); err != nil || runs == 0 {
			return err
		}
	} else {
		if runs == 0 {
			return nil
		}
		fmt.Fprintln(a.stdout)
		if err := view(nil).Text(a.stdout); err != nil {
			return err
		}
	}
	path, err := l.WriteStudyReport(view)
	if err != nil || path == "" {
		return err
	}
	a.sayReport(path)
	return nil
}
