package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/workload/builtin"
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
			if err := f.YCSB(ycsbprops.Calibrate, cmd.Flags(), f.Base); err != nil {
				return usage(err)
			}
			return a.runCalibrate(cmd.Context(), f)
		},
	}
	f.Add(cmd.Flags())
	return cmd
}

func (a *app) runCalibrate(ctx context.Context, f *options.Calibrate) error {
	c := f.Calibrate()
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.Study, reg, c.Check, options.StudyThresholds(reg, f.Base, &f.Params, false))
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := c.Run(ctx, l.Env(reg))
	return l.Outcome(errors.Join(err, a.finishStudy(l, &f.Measure, len(res.Steps), res.View)))
}
