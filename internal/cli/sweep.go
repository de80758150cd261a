package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

func (a *app) sweepCmd() *cobra.Command {
	f := options.NewSweep()
	var speeds string
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "One workload at a series of target rates: saturation throughput and the highest rate that holds an SLA",
		Long: `Run a workload open loop at each target rate (a list, or --rate auto: up by
--rate-factor while steps hold, then bisect), store every step, and report the
saturation throughput and the highest target that held; exits 99 when none
held. Manual: docs/sweep.md; with --clients: docs/groups.md.`,
		Example: `  mongobench sweep --workload ycsb-b -p recordcount=100000 --rate 1000,2000,5000 --p99 20ms
  mongobench sweep --workload ycsb-b --rate auto --start-rate 500 --rate-factor 2 --p99 20ms --repeat 3
  mongobench sweep --workload ycsb-f --rate auto --label r6g --price '3.20 USD/h' --json > sweep.json
  mongobench sweep -P workloads/workloadb -p recordcount=100000 -p threadcount=64 --rate 1000,2000,5000
  mongobench sweep --workload shop.rec --speed 1,2,4,8 --p99 20ms
  mongobench sweep --workload shop.rec --speed auto --p99 20ms
  mongobench sweep --workload ycsb-b --rate auto --threshold 'p99(READ) < 5ms' --threshold 'errors(timeout) < 1'
  mongobench sweep --workload ycsb-c --rate auto --start-rate 20000 --clients 4 --client-index 0 --group c-sweep-1 --results mongodb://results.example/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg := a.workloads()
			if err := f.YCSB(ycsbprops.Sweep, cmd.Flags(), f.Base, reg); err != nil {
				return usage(err)
			}
			if err := speedsAsRates(cmd.Flags(), speeds, f.Base.Workload, f.Params); err != nil {
				return usage(err)
			}
			lo, err := f.Options(cmd.Context(), env)
			return a.measure(cmd.Context(), f.Sweep().Study(), reg, &f.Measure, lo, err)
		},
	}
	f.Add(cmd.Flags())
	cmd.Flags().StringVar(&speeds, "speed", "", "a recording's speeds (1,2,4,8, or auto: from ×1, --rate-factor times faster each step) in place of --rate: each step replays the recording named by --workload that many times as fast")
	return cmd
}
