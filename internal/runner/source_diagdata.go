package runner

import (
	"context"
	"strings"
	"sync"

	"github.com/mongobench/mongobench/internal/hostmap"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// diagnosticDataSource reads, during the run, the server's own
// diagnostic data (getDiagnosticData: the latest sample of its FTDC
// collectors) of each member no source before it reads: its
// systemMetrics as the host and its serverStatus section as the
// server's, in one sample at the sample's own start. The main member
// over the run's connection string, every other member of a replica set
// over a direct connection to it, the members asked at once. A node
// exporter the user names wins for the whole deployment (the user chose
// that source), and this machine's /proc for a server running here (it
// reads the data directory's own device and the server process's CPU,
// which systemMetrics lacks). A member that does not give its diagnostic
// data has a note, and its series are missing; when the main member
// refuses, the others are not asked: its note stands for the deployment.
type diagnosticDataSource struct{}

func (diagnosticDataSource) Name() string { return "diagnostic_data" }
func (diagnosticDataSource) Reads() string {
	return "each member's getDiagnosticData (the server's own FTDC sample): systemMetrics as its host, and its serverStatus, for a member no source before it reads"
}
func (diagnosticDataSource) When() When    { return During }
func (diagnosticDataSource) Default() bool { return true }

func (diagnosticDataSource) hosts(ctx context.Context, r *run) error {
	if len(r.exporters) > 0 {
		return nil
	}
	if !r.reads("") {
		d, err := telemetry.NewDiagnosticData(ctx, r.opts.Target.URI)
		if err != nil {
			r.warnings = append(r.warnings, "host figures are missing: "+err.Error())
			return nil // the other members are not asked
		}
		r.ftdc = append(r.ftdc, d)
		r.readMain(d)
	}
	set := r.fp.set
	if len(set.Members) < 2 {
		return nil
	}
	type answer struct {
		d   *telemetry.DiagnosticData
		err error
	}
	answers := make([]answer, len(set.Members))
	var wg sync.WaitGroup
	for i, m := range set.Members {
		if strings.EqualFold(m, set.Main()) || r.reads(m) {
			continue
		}
		wg.Go(func() {
			d, err := memberDiagnosticData(ctx, r.opts.Target.URI, m)
			answers[i] = answer{d, err}
		})
	}
	wg.Wait()
	for i, m := range set.Members {
		switch a := answers[i]; {
		case a.err != nil:
			r.warnings = append(r.warnings, "member "+m+"'s host and server figures are missing: "+a.err.Error())
		case a.d != nil:
			r.ftdc = append(r.ftdc, a.d)
			r.readMember(hostmap.MemberHost{Member: m, Role: set.Role(m)}, a.d)
		}
	}
	return nil
}
