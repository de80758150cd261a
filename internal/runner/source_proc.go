package runner

import (
	"context"

	"github.com/mongobench/mongobench/internal/telemetry"
)

// procSource reads, during the run, this machine's /proc for a server
// running on it (Target.PID): the host's CPU, the server process's CPU
// and the data directory's block device.
type procSource struct{}

func (procSource) Name() string { return "proc" }
func (procSource) Reads() string {
	return "this machine's /proc, for the main member when it runs here: host CPU, the server process's CPU, the data directory's disk"
}
func (procSource) When() When    { return During }
func (procSource) Default() bool { return true }

func (procSource) hosts(_ context.Context, r *run) error {
	t := r.opts.Target
	if t.PID == 0 || r.reads("") {
		return nil
	}
	h, err := telemetry.NewHost(t.PID, t.DataDir)
	if err != nil {
		return nil // the next source reads it, else its figures are missing
	}
	r.readMain(h)
	return nil
}
