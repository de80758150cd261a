package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

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
	studyFlags
	ycsb ycsbFlags
}

func (a *app) calibrateCmd() *cobra.Command {
	f := calibrateFlags{base: &spec.Scenario{}}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Closed loop with more and more client threads until throughput stops rising: the knee",
		Long: `Run a workload closed loop with --start-threads threads, then multiply the
threads by --threads-factor (1, 2, 4, 8, …) until a step gains less than
--min-gain (5%) throughput over the one before while its p99 climbs, or
--max-threads threads ran.
The knee is the step before: the fewest threads that reach the plateau;
more add queueing, not throughput. Use its thread count for closed-loop
runs, and keep open-loop --threads above it.

Every step is a stored run (its variant carries the calibration id and
calibrationStep) with its own report; the calibration ends with the table
of steps and the knee.`,
		Example: `  mongobench calibrate --workload ycsb-b -p recordcount=100000
  mongobench calibrate --workload kv --max-threads 64 --duration 10s --min-gain 0.1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.ycsb.study(ycsbprops.Calibrate, cmd.Flags(), f.base, &f.studyFlags); err != nil {
				return err
			}
			return a.runCalibrate(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.Var(f.base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.IntVar(&f.search.Start, "start-threads", 1, "threads of the first step")
	fl.IntVar(&f.search.Factor, "threads-factor", 2, "multiply the threads by this each step")
	fl.IntVar(&f.search.Max, "max-threads", 256, "most threads tried")
	deprecatedAlias(fl, "start", "start-threads")
	deprecatedAlias(fl, "factor", "threads-factor")
	deprecatedAlias(fl, "max", "max-threads")
	fl.Float64Var(&f.search.MinGain, "min-gain", study.DefaultMinGain, "smallest throughput gain over the step before that still counts as rising")
	fl.Var(f.base.Flag("duration", "10s"), "duration", "measured phase of each step")
	fl.Var(f.base.Flag("warmup", "2s"), "warmup", "warm-up of each step")
	f.add(a, fl, "workload parameter name=value", optionHelp{reportDir: "mongobench-reports", json: "print the runs' stored documents as one JSON array instead of the tables",
		noGroup: "calibrate cannot run as a run group (each step's thread count is the whole client's); calibrate one client, then run the group with 'mongobench run --clients N --threads T'"})
	f.ycsb.add(fl)
	return cmd
}

func (a *app) runCalibrate(ctx context.Context, f calibrateFlags) error {
	f.base.Database, f.base.Label = f.database, f.label
	c := study.CalibrateStudy{Search: f.search, Base: study.Base{Scenario: f.base, Params: f.params}}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.studyFlags, reg, c.Check, studyThresholds(reg, f.base, &f.params, false))
	if err != nil {
		return err
	}
	defer l.Close()
	c.ID = runner.NewRunID(time.Now())
	res, err := c.Run(ctx, l.Env(reg))
	return l.Outcome(errors.Join(err, a.finishStudy(l, &f.measureOptions, len(res.Steps), res.View)))
}
