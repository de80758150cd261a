package options

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/uri"
	"github.com/mongobench/mongobench/internal/validity"
)

// Env looks up an environment variable ("" when unset): the cli's, so
// that nothing else reads the environment.
type Env func(name string) string

// Measure is the option set every command that measures accepts,
// declared once (Add) and turned into the lab's Options once (Options):
// where results go, thresholds and the abort judge, the run group, the
// host's telemetry (node exporters, Atlas), the diagnosis's stated
// limits, live metrics, reports and output.
type Measure struct {
	ResultsURI, ResultsFile string
	Stream                  bool
	Thresholds              []string
	AbortOnFail             bool
	Clients, ClientIndex    int
	Group                   string
	GroupTimeout            time.Duration
	// HostMetrics and HostDevice are comma-separated lists, each
	// repetition of the flag adding to its list.
	HostMetrics, HostDevice string
	Atlas                   Atlas
	DiskLimit, Link         string
	MetricsAddr             string
	ReportDir               string
	NoReport                bool
	JSON                    bool
	// StatusInterval is how often a run whose standard error is not a
	// terminal prints a status line.
	StatusInterval time.Duration
	// FTDC is the target server's diagnostic.data directory on this host.
	FTDC string
	// Validity are --validity's RULE=SUSPECT[,INVALID] bounds; Canary
	// takes the client host's noise canary around each run.
	Validity       []string
	Canary         bool
	IncludeInvalid bool
	// Telemetry names the telemetry sources to read, in order (a
	// comma-separated list, each repetition of the flag adding to it).
	Telemetry string
	// noGroup says why the command cannot run as a run group ("" when it
	// can).
	noGroup string
}

// Help is what the option set says that differs between commands.
type Help struct {
	ReportDir string // --report-dir's default
	JSON      string // what --json prints
	// NoGroup, when set, is why the command cannot run as a run group.
	NoGroup string
}

// DefaultStatusInterval is how often a run not on a terminal prints a
// status line, as YCSB's -s does.
const DefaultStatusInterval = 10 * time.Second

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

// Add declares the option set on fl.
func (o *Measure) Add(fl *pflag.FlagSet, h Help) {
	o.noGroup = h.NoGroup
	fl.StringVar(&o.ResultsURI, "results", "", "results MongoDB URI, database mongobench (default: $MONGOBENCH_RESULTS_URI, else the target server)")
	fl.StringVar(&o.ResultsFile, "results-file", "", "append results to this JSON Lines file instead of a results collection")
	fl.BoolVar(&o.Stream, "stream", true, "send every interval and telemetry sample to the results store as the run goes: a run of any length keeps its full resolution, "+
		"and a client that dies loses only its last seconds (--stream=false: the result alone, at the end; past 1,000 intervals it keeps them coarsened only)")
	fl.StringArrayVar(&o.Thresholds, "threshold", nil, thresholdHelp)
	fl.BoolVar(&o.AbortOnFail, "abort-on-fail", false, "stop a run's measured phase as soon as a threshold cannot hold (an error count passed at once; any other after "+
		lab.AbortSettle.String()+" or half the phase, whichever is shorter), keep the partial result and exit 99")
	fl.IntVar(&o.Clients, "clients", 1, "run as one of this many clients of a run group (the same --group and settings on each); each does 1/N of the rate or threads and its slice of the keys")
	fl.IntVar(&o.ClientIndex, "client-index", unsetIndex, "this client's index in the group, 0 to clients-1 (default: $JOB_COMPLETION_INDEX, set by a Kubernetes Indexed Job); client 0 prepares the data")
	fl.StringVar(&o.Group, "group", "", "run group id shared by its clients (letters, digits, '.', '_', '-'; one id per run)")
	fl.DurationVar(&o.GroupTimeout, "group-timeout", group.DefaultTimeout, "how long a client waits for the others at the start, and for a silent client before the group's result is stored without it")
	fl.Var(ListText{&o.HostMetrics}, "host-metrics", hostMetricsHelp)
	fl.Var(ListText{&o.HostDevice}, "host-device", hostDeviceHelp)
	o.Atlas.add(fl)
	fl.StringVar(&o.DiskLimit, "disk-limit", "", "the target disk's ceiling, for the diagnosis of what limited each run: throughput, IOPS or both, e.g. 225MB/s,3000iops")
	fl.StringVar(&o.Link, "link", "", "the network link to the target, for the diagnosis: e.g. 10Gbit/s")
	fl.StringVar(&o.FTDC, "ftdc", "", "the target server's diagnostic.data directory, for a server on this host: after each run, the run's seconds of its FTDC files "+
		"attached to the run's series at full resolution (source ftdc), as 'results attach-ftdc' does")
	fl.StringArrayVar(&o.Validity, "validity", nil, "a validity rule's bounds, RULE=SUSPECT[,INVALID] in its unit, or RULE=off (repeatable): every run is judged valid, suspect or invalid before any statistic sees it (docs/validity.md)")
	IncludeInvalid(fl, &o.IncludeInvalid)
	fl.BoolVar(&o.Canary, "canary", true, "measure the client host's noise (a CPU loop, a memory walk, a loopback round trip, the pacer's wake-up: about a fifth of a second) before and after each run, stored with it (docs/validity.md)")
	fl.Var(ListText{&o.Telemetry}, "telemetry", "the telemetry sources every run reads, in order of preference for a member's host (the first that reads it wins), "+
		"comma-separated, of "+strings.Join(runner.SourceNames(), ", ")+" (default: "+strings.Join(runner.DefaultSourceNames(), ",")+"; a source reads nothing it is not configured for; docs/options.md)")
	fl.StringVar(&o.MetricsAddr, "metrics-addr", "", "while running, serve live figures on HOST:PORT: Prometheus metrics at /metrics, the intervals at /live (for 'mongobench serve --live'), e.g. 127.0.0.1:9464")
	dirHelp := "directory for every run's Markdown and HTML report (and the study's)"
	if h.ReportDir == "" {
		dirHelp += " (default: none)"
	}
	fl.StringVar(&o.ReportDir, "report-dir", h.ReportDir, dirHelp)
	fl.BoolVar(&o.NoReport, "no-report", false, "write no report files")
	fl.BoolVar(&o.JSON, "json", false, h.JSON)
	fl.DurationVar(&o.StatusInterval, "status-interval", DefaultStatusInterval,
		"when standard error is not a terminal: print a status line this often (elapsed, ops/s, p99, errors, late); 0 prints none")
}

// Options checks the option set and makes the lab's Options from it,
// reading the variables it defaults to with env; the command fills in
// what is its own (the target, URI options).
func (o *Measure) Options(ctx context.Context, env Env) (lab.Options, error) {
	var lo lab.Options
	var err error
	if o.StatusInterval < 0 {
		return lo, fmt.Errorf("--status-interval: got %s, want 0 (no status lines) or a positive duration such as 10s", o.StatusInterval)
	}
	if lo.Thresholds, err = threshold.ParseAll(o.Thresholds); err != nil {
		return lo, fmt.Errorf("--threshold: %w", err)
	}
	lo.AbortOnFail, lo.NoStream = o.AbortOnFail, !o.Stream
	lo.HostMetrics, lo.HostDevice = spec.ParseHostMetrics(o.HostMetrics), spec.ParseHostDevices(o.HostDevice)
	if err := spec.CheckHostFlags(lo.HostMetrics, lo.HostDevice); err != nil {
		return lo, err
	}
	if lo.Limits, err = o.limits(); err != nil {
		return lo, err
	}
	lo.Validity = validity.Default()
	for _, v := range o.Validity {
		if err := validity.Parse(lo.Validity, v); err != nil {
			return lo, fmt.Errorf("--validity: %w", err)
		}
	}
	lo.Canary, lo.IncludeInvalid = o.Canary, o.IncludeInvalid
	if lo.Group, err = o.group(env); err != nil {
		return lo, err
	}
	if o.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(o.MetricsAddr); err != nil {
			return lo, fmt.Errorf("--metrics-addr: %q is not valid: want HOST:PORT, e.g. 127.0.0.1:9464", o.MetricsAddr)
		}
	}
	lo.MetricsAddr = o.MetricsAddr
	if o.FTDC != "" {
		if _, err := ftdc.Files(o.FTDC); err != nil {
			return lo, fmt.Errorf("--ftdc: %w", err)
		}
		lo.FTDC = o.FTDC
	}
	if o.Telemetry != "" {
		lo.Telemetry = strings.Split(o.Telemetry, ",")
		for i := range lo.Telemetry {
			lo.Telemetry[i] = strings.TrimSpace(lo.Telemetry[i])
		}
		if err := runner.CheckSources(lo.Telemetry); err != nil {
			return lo, err
		}
	}
	if o.ResultsURI != "" && runner.CheckURI(o.ResultsURI) != nil {
		hint := ""
		if !strings.Contains(o.ResultsURI, "://") {
			hint = "; to append the results to a JSON Lines file, use --results-file PATH"
		}
		return lo, fmt.Errorf("--results: %q is not valid: want a MongoDB URI such as mongodb://localhost:27017/ or mongodb+srv://cluster.example.net/%s", uri.Redact(o.ResultsURI), hint)
	}
	lo.ResultsFile = o.ResultsFile
	if lo.ResultsURI, err = ResultsURI(o.ResultsURI, o.ResultsFile, env); err != nil {
		return lo, err
	}
	if !o.NoReport {
		lo.ReportDir = o.ReportDir
	}
	lo.Collect = o.JSON
	if lo.Atlas, err = o.Atlas.source(ctx, env); err != nil {
		return lo, err
	}
	return lo, nil
}

// ResultsURI is the results store's URI: the one given, else, when no
// results file is given either, $MONGOBENCH_RESULTS_URI; "" when neither
// names one. A store that would not acknowledge its writes (w=0) is
// refused: a result that failed to store would look stored.
func ResultsURI(given, file string, env Env) (string, error) {
	if file == "" && given == "" {
		given = env("MONGOBENCH_RESULTS_URI")
	}
	if secret.Unacknowledged(given) {
		return "", fmt.Errorf("results store %s: w=0 would leave stored results unacknowledged (a lost result would look stored); drop w=0 from the results URI", secret.URI(given))
	}
	return given, nil
}

// limits parses --disk-limit and --link.
func (o *Measure) limits() (diagnosis.Limits, error) { return Limits(o.DiskLimit, o.Link) }

// Limits reads the stated limits a diagnosis judges against: --disk-limit
// (diagnosis.ParseDiskLimit) and --link (diagnosis.ParseLink), either
// empty when not stated.
func Limits(diskLimit, link string) (diagnosis.Limits, error) {
	var l diagnosis.Limits
	if diskLimit != "" {
		d, err := diagnosis.ParseDiskLimit(diskLimit)
		if err != nil {
			return l, fmt.Errorf("--disk-limit: %w", err)
		}
		l = d
	}
	if link != "" {
		v, err := diagnosis.ParseLink(link)
		if err != nil {
			return l, fmt.Errorf("--link: %w", err)
		}
		l.LinkBytesPerSec = v
	}
	return l, nil
}

// group checks the group options and returns the run group's settings;
// the zero Group when the runs are not a group's.
func (o *Measure) group(env Env) (lab.Group, error) {
	if o.Clients == 1 && o.Group == "" {
		return lab.Group{}, nil
	}
	if o.noGroup != "" {
		return lab.Group{}, fmt.Errorf("--clients, --group: %s", o.noGroup)
	}
	if o.Clients < 1 || o.Clients > spec.MaxClients {
		return lab.Group{}, fmt.Errorf("--clients: got %d, want 1 to %d", o.Clients, spec.MaxClients)
	}
	if err := result.CheckID("--group", o.Group); err != nil {
		return lab.Group{}, fmt.Errorf("%w (one id per group run)", err)
	}
	if o.ResultsFile != "" {
		return lab.Group{}, fmt.Errorf("--clients %d with --results-file %s: a run group coordinates through a MongoDB results store (database mongobench, collection groups), which a JSON Lines file cannot do; give --results, or neither for the target's", o.Clients, o.ResultsFile)
	}
	if o.GroupTimeout <= 0 || o.GroupTimeout > spec.MaxGroupTimeout {
		return lab.Group{}, fmt.Errorf("--group-timeout: got %v, want a positive duration up to %v", o.GroupTimeout, spec.MaxGroupTimeout)
	}
	idx := o.ClientIndex
	if idx == unsetIndex {
		v := env("JOB_COMPLETION_INDEX")
		if v == "" {
			return lab.Group{}, fmt.Errorf("--client-index: not given and JOB_COMPLETION_INDEX is not set; want 0 to %d", o.Clients-1)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return lab.Group{}, fmt.Errorf("JOB_COMPLETION_INDEX: got %q, want 0 to %d", v, o.Clients-1)
		}
		idx = n
	}
	if idx < 0 || idx >= o.Clients {
		return lab.Group{}, fmt.Errorf("--client-index: got %d, want 0 to %d for --clients %d", idx, o.Clients-1, o.Clients)
	}
	host, _ := os.Hostname()
	return lab.Group{Share: engine.Share{Clients: o.Clients, Index: idx}, ID: o.Group, Timeout: o.GroupTimeout, Host: host, PID: os.Getpid()}, nil
}

// CheckURI refuses a connection string the driver cannot use, before
// anything is started or announced; an empty one is left to the default.
func CheckURI(s string) error {
	if s == "" {
		return nil
	}
	return runner.CheckURI(s)
}
