package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// calibrateFlags configure a closed-loop thread calibration.
type calibrateFlags struct {
	search study.Calibration
	base   *spec.Scenario // workload, duration and warmup
	options.Study
}

func (a *app) calibrateCmd() *cobra.Command {
	f := calibrateFlags{base: &spec.Scenario{}}
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
			if err := f.YCSB(ycsbprops.Calibrate, cmd.Flags(), f.base); err != nil {
				return usage(err)
			}
			return a.runCalibrate(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.Var(f.base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.IntVar(&f.search.Start, "start-threads", 1, "threads of the first step")
	fl.IntVar(&f.search.Factor, "threads-factor", 2, "multiply the threads by this each step")
	fl.IntVar(&f.search.Max, "max-threads", 256, "most threads tried")
	options.Alias(fl, "start", "start-threads")
	options.Alias(fl, "factor", "threads-factor")
	options.Alias(fl, "max", "max-threads")
	fl.Float64Var(&f.search.MinGain, "min-gain", study.DefaultMinGain, "smallest throughput gain over the step before that still counts as rising")
	fl.Var(f.base.Flag("duration", "10s"), "duration", "measured phase of each step")
	fl.Var(f.base.Flag("warmup", "2s"), "warmup", "warm-up of each step")
	f.Add(fl, "workload parameter name=value", options.Help{ReportDir: "mongobench-reports", JSON: "print the runs' stored documents as one JSON array instead of the tables",
		NoGroup: "calibrate cannot run as a run group (each step's thread count is the whole client's); calibrate one client, then run the group with 'mongobench run --clients N --threads T'"})
	options.AddPropertyFiles(fl, &f.Files)
	return cmd
}

func (a *app) runCalibrate(ctx context.Context, f calibrateFlags) error {
	f.base.Database, f.base.Label = f.Database, f.Label
	c := study.CalibrateStudy{Search: f.search, Base: study.Base{Scenario: f.base, Params: f.Params}}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.Study, reg, c.Check, options.StudyThresholds(reg, f.base, &f.Params, false))
	if err != nil {
		return err
	}
	defer l.Close()
	c.ID = runner.NewRunID(time.Now())
	res, err := c.Run(ctx, l.Env(reg))
	return l.Outcome(errors.Join(err, a.finishStudy(l, &f.Measure, len(res.Steps), res.View)))
}
