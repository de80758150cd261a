package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/study"
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
			if err := f.YCSBLoad(cmd.Flags(), &f.Workload); err != nil {
				return usage(err)
			}
			return a.runLoad(cmd.Context(), &f)
		},
	}
	f.Add(cmd.Flags())
	return cmd
}

func (a *app) runLoad(ctx context.Context, f *options.Load) error {
	ld, checkTs, err := f.Load()
	if err != nil {
		return usage(err)
	}
	check := func(env study.Env) error { _, err := ld.Scenario(env.Registry); return err }
	reg := builtin.YCSBLoads()
	l, err := a.openOn(ctx, &f.Study, reg, check, checkTs)
	if err != nil {
		return err
	}
	defer l.Close()
	if err := check(l.Env(reg)); err != nil {
		return usage(err)
	}
	d, err := ld.Run(ctx, l.Env(reg))
	if d == nil {
		return l.Outcome(err)
	}
	if f.JSON {
		if jerr := a.printJSON(d); jerr != nil {
			return errors.Join(err, jerr)
		}
	} else {
		fmt.Fprintln(a.stdout, study.LoadLine(d))
	}
	a.say("result %s stored in %s\n", d.RunID, l.Store().Where())
	for _, p := range l.Reports() {
		a.sayReport(p)
	}
	if err != nil {
		return l.Outcome(err)
	}
	return lab.ThresholdsFailed(d)
}
