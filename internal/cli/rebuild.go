package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
)

// resultsRebuildCmd makes a lost run's result from its stored intervals.
func (a *app) resultsRebuildCmd() *cobra.Command {
	var sf storeFlags
	cmd := &cobra.Command{
		Use:   "rebuild RUN_ID",
		Short: "Make a lost run's result from its stored intervals (or check a stored one against them)",
		Long: `A run streams its intervals to the results store as it goes. When its client
dies, the run stays registered, marked lost once its client has been silent
for 150 s; rebuild makes its result from the intervals stored (histograms
merged exactly), marked partial, and stores it in place of the lost row. For
a complete run it stores nothing: it checks that the result rebuilt from the
intervals has the same histograms as the stored one (see docs/results.md).`,
		Example: `  mongobench results list
  mongobench results rebuild 20261126T031500Z-ab12cd`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := result.CheckID("run id", args[0]); err != nil {
				return usage(err)
			}
			return sf.with(a, cmd, func(st store.Store) error {
				full, ok1 := st.(store.FullResolution)
				im, ok2 := st.(store.Importer)
				if !ok1 || !ok2 {
					return usage(fmt.Errorf("rebuild reads a MongoDB results store; %s is not one", st.Where()))
				}
				d, err := st.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				ivs, err := full.FullIntervals(cmd.Context(), d.RunID)
				if err != nil {
					return err
				}
				now := time.Now()
				switch d.State(now) {
				case result.StateRunning:
					return fmt.Errorf("run %s is running: its client wrote %s ago; a run is lost, and can be rebuilt, after %s of silence",
						d.RunID, now.Sub(d.Live.Heartbeat).Round(time.Second), result.LostAfter)
				case "":
					return a.checkRebuilt(d, ivs)
				}
				r, err := merge.Rebuild(d, ivs)
				if err != nil {
					return err
				}
				r.Partial, r.Live = true, nil
				r.PartialReason = fmt.Sprintf("lost: its client stopped writing at %s; rebuilt from the %d intervals it stored", d.Live.Heartbeat.UTC().Format(time.RFC3339), len(ivs))
				out, err := im.Import(cmd.Context(), r)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "run %s rebuilt from %d intervals (%s of measurement): %s\n", r.RunID, len(ivs), time.Duration(r.Duration*float64(time.Millisecond)).Round(time.Second), out)
				return nil
			})
		},
	}
	sf.add(cmd)
	return cmd
}

// checkRebuilt compares a complete run's stored operation histograms
// with those rebuilt from its full-resolution intervals.
func (a *app) checkRebuilt(d *result.Doc, ivs []result.Interval) error {
	if len(ivs) == 0 {
		return fmt.Errorf("run %s is complete and has no full-resolution intervals stored (it was stored whole, without streaming): nothing to check", d.RunID)
	}
	r, err := merge.Rebuild(d, ivs)
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
	fmt.Fprintf(a.stdout, "run %s is complete; rebuilt from its %d intervals, every operation type's histograms equal the stored ones (nothing stored)\n", d.RunID, len(ivs))
	return nil
}
