package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func (a *app) loadCmd() *cobra.Command {
	var f options.Load
	cmd := &cobra.Command{
		Use:   "load",
		Short: "YCSB's load phase as a measured, stored run: batched parallel inserts, docs/s and MB/s",
		Long: `Load a YCSB workload's records as YCSB's 'load' does (-p loaders connections,
-p batchSize records per unordered insertMany) and store it as a measured run
with docs/s and MB/s; 'run' loads unmeasured before its run phase unless
-p load=false. Manual: docs/ycsb.md.`,
		Example: `  mongobench load --workload ycsb-a -p recordcount=100000
  mongobench load --workload ycsb-a -p recordcount=1000000 -p loaders=8 -p batchSize=500 --label r6g
  mongobench load -P workloads/workloada -p recordcount=100000 -p threadcount=8`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			loads := builtin.YCSBLoads()
			if err := f.YCSBLoad(cmd.Flags(), &f.Workload, loads); err != nil {
				return usage(err)
			}
			ld, err := f.Load()
			if err != nil {
				return usage(err)
			}
			lo, err := f.Options(cmd.Context(), env)
			return a.measure(cmd.Context(), ld.Study(), loads, &f.Measure, lo, err)
		},
	}
	f.Add(cmd.Flags())
	return cmd
}
