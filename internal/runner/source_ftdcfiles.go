package runner

import (
	"context"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// ftdcFilesSource reads, after the run, the run's seconds of the target
// server's FTDC files (Target.FTDC, --ftdc: a server on this host) into
// its series at full resolution (telemetry.AttachRunFTDC: marked ftdc).
// The files never cost the run: what cannot be attached is a note.
type ftdcFilesSource struct{}

func (ftdcFilesSource) Name() string { return "ftdc_files" }
func (ftdcFilesSource) Reads() string {
	return "the server's own FTDC files (diagnostic.data) over the run's window, each second: its serverStatus sections, replication lags and systemMetrics (with --ftdc)"
}
func (ftdcFilesSource) When() When    { return After }
func (ftdcFilesSource) Default() bool { return true }

func (ftdcFilesSource) after(ctx context.Context, r *run, d *result.Doc) {
	t := r.opts.Target
	if t.FTDC == "" {
		return
	}
	telemetry.AttachRunFTDC(ctx, d, t.FTDC, t.Limits)
}
