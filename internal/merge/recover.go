package merge

import (
	"errors"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Recover is what 'results rebuild' makes of a stored run and its
// full-resolution intervals at now. A lost run's result is rebuilt from
// them (Rebuild), marked partial with the reason; a running one is
// refused; for a complete run it returns nil once Check finds the
// intervals' histograms equal to the stored ones.
func Recover(d *result.Doc, ivs []result.Interval, now time.Time) (*result.Doc, error) {
	switch d.State(now) {
	case result.StateRunning:
		return nil, fmt.Errorf("run %s is running: its client wrote %s ago; a run is lost, and can be rebuilt, after %s of silence",
			d.RunID, now.Sub(d.Live.Heartbeat).Round(time.Second), result.LostAfter)
	case "":
		return nil, Check(d, ivs)
	}
	r, err := Rebuild(d, ivs)
	if err != nil {
		return nil, err
	}
	r.Partial, r.Live = true, nil
	r.PartialReason = fmt.Sprintf("lost: its client stopped writing at %s; rebuilt from the %d intervals it stored", lastWrite(d, ivs).UTC().Format(time.RFC3339), len(ivs))
	return r, nil
}

// lastWrite is when a registered run's client last wrote: its heartbeat,
// or the end of the last interval it stored when later (a run imported
// from a file holds the heartbeat of its registration).
func lastWrite(d *result.Doc, ivs []result.Interval) time.Time {
	last := d.Live.Heartbeat
	for _, iv := range ivs {
		if end := iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second))); end.After(last) {
			last = end
		}
	}
	return last
}

// Check compares a complete run's stored operation histograms (latency
// and service time) with those rebuilt from its full-resolution
// intervals: every difference is an error, naming the operation type.
func Check(d *result.Doc, ivs []result.Interval) error {
	if len(ivs) == 0 {
		return fmt.Errorf("run %s is complete and has no full-resolution intervals stored (it was stored whole, without streaming): nothing to check", d.RunID)
	}
	r, err := Rebuild(d, ivs)
	if err != nil {
		return err
	}
	var errs []error
	for _, op := range d.Ops {
		got := r.Op(op.Name)
		if got == nil {
			errs = append(errs, fmt.Errorf("%s: not in the stored intervals", op.Name))
			continue
		}
		for _, p := range []struct {
			what      string
			want, got result.Dist
		}{{"latency", op.Latency, got.Latency}, {"service time", op.Service, got.Service}} {
			same, err := hist.SameDist(p.want, p.got)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("%s %s: %w", op.Name, p.what, err))
			case !same:
				errs = append(errs, fmt.Errorf("%s %s: the intervals' histograms (%d operations) differ from the stored one (%d)", op.Name, p.what, p.got.Count, p.want.Count))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("run %s: %w", d.RunID, err)
	}
	return nil
}
