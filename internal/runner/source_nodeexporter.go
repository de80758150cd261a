package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/telemetry"
)

// nodeExporterSource reads, during the run, the Prometheus node
// exporters --host-metrics names, each mapped to the member on its host
// (run.hosts): the main member's feeds the run's series, every other
// mapped member's has a host-only sampler of its own. An exporter that
// does not answer at the start ends the run: the user asked for it.
type nodeExporterSource struct{}

func (nodeExporterSource) Name() string { return "node_exporter" }
func (nodeExporterSource) Reads() string {
	return "the Prometheus node exporters --host-metrics names, for the member on each one's host: host CPU, disk and memory"
}
func (nodeExporterSource) When() When    { return During }
func (nodeExporterSource) Default() bool { return true }

func (nodeExporterSource) hosts(ctx context.Context, r *run) error {
	t := r.opts.Target
	for _, h := range r.hosts {
		if (h.Main && r.reads("")) || (!h.Main && r.reads(h.Member)) {
			continue
		}
		var dir string
		switch {
		case h.Main && t.DataDir != "":
			dir = t.DataDir
		case h.Main:
			dir = dbPath(ctx, r.client)
		default:
			dir = memberDBPath(ctx, t.URI, h.Member)
		}
		n, err := telemetry.NewNodeExporter(ctx, h.URL, h.Device, dir, 5*time.Second)
		if err != nil {
			if h.Member != "" {
				return fmt.Errorf("--host-metrics: member %s: %w", h.Member, err)
			}
			return fmt.Errorf("--host-metrics: %w", err)
		}
		whose := "host"
		if !h.Main {
			whose = "host of member " + h.Member
		}
		if note := n.Note(); note != "" {
			r.warnings = append(r.warnings, whose+" disk figures are missing: "+note)
		}
		r.exporters = append(r.exporters, namedExporter{whose: whose, n: n})
		if h.Main {
			r.readMain(n)
		} else {
			r.readMember(h, n)
		}
	}
	if len(r.hosts) > 0 && !r.reads("") {
		r.warnings = append(r.warnings, fmt.Sprintf("--host-metrics names no node exporter on the host of %s, the member the run's resource figures read: "+
			"they come from this host's /proc when the server runs here, else are missing", r.fp.set.Main()))
	}
	return nil
}
