package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

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
		Long: `Store a lost run's result rebuilt from its streamed intervals (histograms
merged exactly, marked partial); for a complete run, check that its stored
histograms equal its intervals'. Manual: docs/results.md.`,
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
				r, err := merge.Recover(d, ivs, time.Now())
				if err != nil || r == nil {
					if err == nil {
						fmt.Fprintf(a.stdout, "run %s is complete; rebuilt from its %d intervals, every operation type's histograms equal the stored ones (nothing stored)\n", d.RunID, len(ivs))
					}
					return err
				}
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
