package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

func (a *app) calibrateCmd() *cobra.Command {
	f := options.NewCalibrate()
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Closed loop with more and more client threads until throughput stops rising: the knee",
		Long: `Run a workload closed loop with more and more threads until throughput stops
rising, and report the knee: the fewest threads that reach the plateau.
Manual: docs/calibrate.md.`,
		Example: `  mongobench calibrate --workload ycsb-b -p recordcount=100000
  mongobench calibrate --workload kv --max-threads 64 --duration 10s --min-gain 0.1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg := a.workloads()
			if err := f.YCSB(ycsbprops.Calibrate, cmd.Flags(), f.Base, reg); err != nil {
				return usage(err)
			}
			lo, err := f.Options(cmd.Context(), env)
			return a.measure(cmd.Context(), f.Calibrate().Study(), reg, &f.Measure, lo, err)
		},
	}
	f.Add(cmd.Flags())
	return cmd
}
