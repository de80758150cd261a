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

// sweepFlags configure a throughput sweep.
type sweepFlags struct {
	rates              study.Rates
	start, factor, max float64
	criteria           study.Criteria
	repeat             int
	price              *spec.Price
	base               *spec.Scenario // workload, duration, warmup and threads
	options.Study
}

func (a *app) sweepCmd() *cobra.Command {
	f := sweepFlags{criteria: study.Criteria{MinFraction: study.DefaultSweepFraction}, base: &spec.Scenario{}}
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
  mongobench sweep --workload ycsb-b --rate auto --threshold 'p99(READ) < 5ms' --threshold 'errors(timeout) < 1'
  mongobench sweep --workload ycsb-c --rate auto --start-rate 20000 --clients 4 --client-index 0 --group c-sweep-1 --results mongodb://results.example/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.YCSB(ycsbprops.Sweep, cmd.Flags(), f.base); err != nil {
				return usage(err)
			}
			return a.runSweep(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.Var(f.base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.Var(&f.rates, "rate", "target rates: a list (1000,2000,5000) or auto (required)")
	options.Alias(fl, "rates", "rate")
	fl.Float64Var(&f.start, "start-rate", 500, "auto: first rate")
	fl.Float64Var(&f.factor, "rate-factor", 2, "auto: multiply the rate by this while steps hold")
	fl.Float64Var(&f.max, "max-rate", 100000, "auto: highest rate tried")
	options.Alias(fl, "start", "start-rate")
	options.Alias(fl, "factor", "rate-factor")
	options.Alias(fl, "max", "max-rate")
	options.Criteria(fl, &f.criteria, "bound on the p99 of every operation type, e.g. 20ms (default: not checked)", "largest share of failed operations a step may have")
	fl.Var(f.base.Flag("duration", "20s"), "duration", "measured phase of each step")
	fl.Var(f.base.Flag("warmup", "5s"), "warmup", "warm-up of each step")
	fl.IntVar(&f.repeat, "repeat", 1, "runs per target rate")
	fl.Var(f.base.Flag("threads", ""), "threads", "most operations in flight (default 64)")
	fl.Var(options.PriceOf(&f.price), "price", "the target's price, e.g. '3.20 USD/h' or '694 EUR/month', stored as _id.instance.cost (cents per hour), price and currency (for compare)")
	fl.Var(options.DollarsOf(&f.price), "cost-per-hour", "the target's price in dollars per hour")
	options.Deprecate(fl, "cost-per-hour", "price")
	f.Add(fl, "workload parameter name=value", options.Help{ReportDir: "mongobench-reports", JSON: "print the runs' stored documents as one JSON array instead of the tables"})
	options.AddPropertyFiles(fl, &f.Files)
	return cmd
}

func (a *app) runSweep(ctx context.Context, f sweepFlags) error {
	f.base.Database, f.base.Label = f.Database, f.Label
	s := study.SweepStudy{Base: study.Base{Scenario: f.base, Params: f.Params}, Rates: f.rates.Search(study.Auto{Start: f.start, Factor: f.factor, Max: f.max}),
		Repeat: f.repeat, Criteria: f.criteria, Price: f.price}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.Study, reg, s.Check, options.StudyThresholds(reg, f.base, &f.Params, true))
	if err != nil {
		return err
	}
	defer l.Close()
	s.ID = runner.NewRunID(time.Now())
	if f.Group != "" {
		s.ID = f.Group // every client's steps carry the same variant.sweep
	}
	res, err := s.Run(ctx, l.Env(reg))
	err = errors.Join(err, a.finishStudy(l, &f.Measure, len(res.Steps), res.View))
	return l.Outcome(study.Ends(err, "sweep "+s.ID, res.Verdict))
}
