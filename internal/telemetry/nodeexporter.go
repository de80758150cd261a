package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mongobench/mongobench/internal/bounded"
)

// HostReader takes readings of the server's host: Host reads this
// machine's /proc, NodeExporter a remote host's Prometheus node exporter.
type HostReader interface {
	Read() (HostSample, error)
}

// Sources of host readings, stored with each series.
const (
	SourceLocal        = "local"
	SourceNodeExporter = "node_exporter"
)

// NodeExporter reads the counters of a remote server's host from its
// Prometheus node exporter: CPU time by mode, and the disk counters of the
// device that holds the data directory. The process's own CPU is not
// something the node exporter reports, so it is missing.
type NodeExporter struct {
	url    string
	client *http.Client
	device string // the disk counters' device; "" when none was found
	note   string // why there are no disk counters, when there are none
	// dropped is set once an answer passed bounded.NodeExporter: the
	// exporter is not scraped again, and its readings are missing.
	dropped atomic.Pointer[droppedAt]
}

type droppedAt struct {
	at  time.Time
	err error
}

// NewNodeExporter prepares to scrape the node exporter at url (its
// /metrics page; a URL without a path gets /metrics). The device is the
// one given, or else the device of the file system holding dataDir (the
// server's dbPath) as the exporter's node_filesystem metrics name it. It
// scrapes once to check the exporter answers, within timeout.
func NewNodeExporter(ctx context.Context, url, device, dataDir string, timeout time.Duration) (*NodeExporter, error) {
	n := &NodeExporter{url: metricsURL(url), client: &http.Client{Timeout: timeout}}
	fams, err := n.scrape(ctx)
	if err != nil {
		return nil, err
	}
	n.device, n.note = device, ""
	if n.device == "" {
		n.device, n.note = DataDevice(fams, dataDir)
	}
	return n, nil
}

// metricsURL adds /metrics to a URL that has no path.
func metricsURL(u string) string {
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	rest := u[strings.Index(u, "://")+3:]
	if !strings.Contains(rest, "/") {
		return u + "/metrics"
	}
	return u
}

// Device is the device whose disk counters are read, or "".
func (n *NodeExporter) Device() string { return n.device }

// Note says why the disk counters are missing, or "".
func (n *NodeExporter) Note() string { return n.note }

// Read scrapes the exporter once. A failed scrape returns a sample with
// every part missing, and the error.
func (n *NodeExporter) Read() (HostSample, error) { return n.ReadContext(context.Background()) }

// ReadContext is Read, ended early when ctx ends. An exporter whose
// answer once passed its bound is not scraped again (a 300MB page every
// second costs more than the figures are worth): its readings are
// missing from then on, and Dropped says why.
func (n *NodeExporter) ReadContext(ctx context.Context) (HostSample, error) {
	if d := n.dropped.Load(); d != nil {
		return HostSample{Time: time.Now(), Source: SourceNodeExporter}, d.err
	}
	ctx, cancel := context.WithTimeout(ctx, n.client.Timeout)
	defer cancel()
	fams, err := n.scrape(ctx)
	if errors.Is(err, bounded.ErrTooLarge) {
		n.dropped.CompareAndSwap(nil, &droppedAt{at: time.Now(), err: err})
	}
	if err != nil {
		return HostSample{Time: time.Now(), Source: SourceNodeExporter}, err
	}
	s := HostFromNodeExporter(fams, n.device)
	s.Time = time.Now()
	return s, nil
}

func (n *NodeExporter) scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.url, nil)
	if err != nil {
		return nil, fmt.Errorf("node exporter %s: %w", n.url, err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node exporter: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // read in full below; nothing to lose
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("node exporter %s: HTTP %s", n.url, resp.Status)
	}
	return ParseMetrics(bounded.Reader(resp.Body, "node exporter "+n.url, bounded.NodeExporter))
}

// Dropped says, once an answer passed its bound, when and why the
// exporter stopped being scraped; "" while it is scraped.
func (n *NodeExporter) Dropped() string {
	d := n.dropped.Load()
	if d == nil {
		return ""
	}
	return fmt.Sprintf("%s; not scraped again after %s, so its host figures are missing from then on", d.err, d.at.UTC().Format(time.RFC3339))
}

// ParseMetrics reads the Prometheus text exposition format with the
// Prometheus project's own parser.
func ParseMetrics(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if errors.Is(err, bounded.ErrTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("node exporter: parse metrics: %w", err)
	}
	return fams, nil
}

// HostFromNodeExporter builds a host reading from a node exporter's
// metrics: CPU seconds by mode summed over CPUs, the number of CPUs, the
// disk counters of device (none when device is "" or not listed), and the
// pages swapped in and out (node_vmstat_pswpin, _pswpout).
// Proc is always missing. Time is left for the caller.
func HostFromNodeExporter(fams map[string]*dto.MetricFamily, device string) HostSample {
	s := HostSample{Source: SourceNodeExporter}
	if f := fams["node_cpu_seconds_total"]; f != nil {
		var c CPUTimes
		cpus := map[string]bool{}
		for _, m := range f.GetMetric() {
			v := value(m)
			cpus[label(m, "cpu")] = true
			switch label(m, "mode") {
			case "user":
				c.User += v
			case "nice":
				c.Nice += v
			case "system":
				c.System += v
			case "idle":
				c.Idle += v
			case "iowait":
				c.IOWait += v
			case "irq":
				c.IRQ += v
			case "softirq":
				c.SoftIRQ += v
			case "steal":
				c.Steal += v
			}
		}
		if len(cpus) > 0 {
			s.CPU, s.Cores = &c, len(cpus)
		}
	}
	if device != "" {
		s.Disk = diskFromNodeExporter(fams, device)
	}
	in, ok1 := fams["node_vmstat_pswpin"]
	out, ok2 := fams["node_vmstat_pswpout"]
	if ok1 && ok2 && len(in.GetMetric()) == 1 && len(out.GetMetric()) == 1 {
		s.Swap = &SwapPages{In: uint64(value(in.GetMetric()[0])), Out: uint64(value(out.GetMetric()[0]))}
	}
	return s
}

func diskFromNodeExporter(fams map[string]*dto.MetricFamily, device string) *DiskCounters {
	counter := func(name string) (uint64, bool) {
		for _, m := range fams[name].GetMetric() {
			if label(m, "device") == device {
				return uint64(value(m)), true
			}
		}
		return 0, false
	}
	reads, ok1 := counter("node_disk_reads_completed_total")
	writes, ok2 := counter("node_disk_writes_completed_total")
	readBytes, ok3 := counter("node_disk_read_bytes_total")
	written, ok4 := counter("node_disk_written_bytes_total")
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil
	}
	return &DiskCounters{Device: device, ReadIOs: reads, WriteIOs: writes,
		ReadSectors: readBytes / sectorBytes, WriteSectors: written / sectorBytes}
}

// partition matches a partition's name after its disk's: the node
// exporter's diskstats collector leaves partitions out by default, so a
// file system on sda1 or nvme0n1p2 is counted on sda or nvme0n1.
var partition = regexp.MustCompile(`^((?:[hsv]|xv)d[a-z]+|nvme\d+n\d+|mmcblk\d+)(?:p?\d+)$`)

// DataDevice finds the disk whose counters cover dataDir: the device of
// the file system with the longest mount point containing dataDir, as
// node_filesystem_size_bytes lists them, mapped to a device the diskstats
// metrics list. When it finds none it returns "" and why.
func DataDevice(fams map[string]*dto.MetricFamily, dataDir string) (string, string) {
	if dataDir == "" {
		return "", "the server's data directory is unknown (getCmdLineOpts not allowed?): give the device"
	}
	var best, mount string
	for _, m := range fams["node_filesystem_size_bytes"].GetMetric() {
		mp := label(m, "mountpoint")
		if underMount(dataDir, mp) && len(mp) > len(mount) {
			best, mount = label(m, "device"), mp
		}
	}
	if best == "" {
		return "", fmt.Sprintf("no file system the node exporter lists holds %s", dataDir)
	}
	disks := map[string]bool{}
	for _, m := range fams["node_disk_reads_completed_total"].GetMetric() {
		disks[label(m, "device")] = true
	}
	name := strings.TrimPrefix(best, "/dev/")
	if disks[name] {
		return name, ""
	}
	if p := partition.FindStringSubmatch(name); p != nil && disks[p[1]] {
		return p[1], ""
	}
	return "", fmt.Sprintf("the node exporter has no disk counters for %s (mounted at %s): give the device", best, mount)
}

// underMount reports whether dir is mount or below it.
func underMount(dir, mount string) bool {
	dir, mount = path.Clean(dir), path.Clean(mount)
	return mount == "/" || dir == mount || strings.HasPrefix(dir, mount+"/")
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func value(m *dto.Metric) float64 {
	switch {
	case m.GetCounter() != nil:
		return m.GetCounter().GetValue()
	case m.GetGauge() != nil:
		return m.GetGauge().GetValue()
	case m.GetUntyped() != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}
