package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// calibrateFlags configure a closed-loop thread calibration.
type calibrateFlags struct {
	workload            string
	start, factor, maxT int
	minGain             float64
	duration, warmup    string
	studyFlags
}

func (a *app) calibrateCmd() *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Closed loop with more and more client threads until throughput stops rising: the knee",
		Long: `Run a workload closed loop with --start threads, then multiply the threads
by --factor (1, 2, 4, 8, …) until a step gains less than --min-gain (5%)
throughput over the one before while its p99 climbs, or --max threads ran.
The knee is the step before: the fewest threads that reach the plateau;
more add queueing, not throughput. Use its thread count for closed-loop
runs, and keep open-loop --threads above it.

Every step is a stored run (its variant carries the calibration id and
calibrationStep) with its own report; the calibration ends with the table
of steps and the knee.`,
		Example: `  mongobench calibrate --workload ycsb-b -p recordcount=100000
  mongobench calibrate --workload kv --max 64 --duration 10s --min-gain 0.1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runCalibrate(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "", "workload to run (required; see 'mongobench workloads')")
	fl.IntVar(&f.start, "start", 1, "threads of the first step")
	fl.IntVar(&f.factor, "factor", 2, "multiply the threads by this each step")
	fl.IntVar(&f.maxT, "max", 256, "most threads tried")
	fl.Float64Var(&f.minGain, "min-gain", study.DefaultMinGain, "smallest throughput gain over the step before that still counts as rising")
	fl.StringVar(&f.duration, "duration", "10s", "measured phase of each step")
	fl.StringVar(&f.warmup, "warmup", "2s", "warm-up of each step")
	f.add(fl, studyHelp{each: "every run", results: "results", params: "workload parameter name=value",
		reportDir: "directory for the calibration report and the runs' reports (empty: none)"})
	return cmd
}

// study validates the flags and returns the calibration they describe.
func (f calibrateFlags) study() (study.CalibrateStudy, error) {
	var errs []error
	if f.workload == "" {
		errs = append(errs, errors.New("--workload: required, such as ycsb-b (see 'mongobench workloads')"))
	}
	if f.start < 1 || f.factor < 2 || f.maxT < f.start {
		errs = append(errs, errors.New("want --start ≥ 1, --factor ≥ 2 and --max ≥ --start"))
	}
	if f.minGain <= 0 || f.minGain >= 1 {
		errs = append(errs, fmt.Errorf("--min-gain: got %v, want a share between 0 and 1, such as 0.05", f.minGain))
	}
	base, err := studyBase(f.workload, [][2]string{{"duration", f.duration}, {"warmup", f.warmup},
		{"database", f.database}, {"label", f.label}}, f.params)
	errs = append(errs, err)
	search := study.Calibration{Start: f.start, Factor: f.factor, Max: f.maxT, MinGain: f.minGain}
	return study.CalibrateStudy{Search: search, Base: base}, errors.Join(errs...)
}

func (a *app) runCalibrate(ctx context.Context, f calibrateFlags) error {
	c, err := f.study()
	if err != nil {
		return usage(err)
	}
	return a.runOn(ctx, f.studyFlags, builtin.Registry(), c.Check, func(run *studyRun) error {
		c.ID, c.Base.Scenario.URI = runner.NewRunID(time.Now()), run.target.URI
		res, err := c.Run(ctx, run.env())
		render := func(w io.Writer, runs []string) ([]study.File, error) { return nil, res.WriteReport(w, runs) }
		return errors.Join(err, run.finish(len(res.Steps), res.WriteTables, res.ReportName(), render))
	})
}
