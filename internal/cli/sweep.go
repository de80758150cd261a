package cli

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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
	costPerHour        float64
	base               *spec.Scenario // workload, duration, warmup and threads
	studyFlags
	ycsb ycsbFlags
}

func (a *app) sweepCmd() *cobra.Command {
	f := sweepFlags{criteria: study.Criteria{MinFraction: study.DefaultSweepFraction}, base: &spec.Scenario{}}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "One workload at a series of target rates: saturation throughput and the highest rate that holds an SLA",
		Long: `Run a workload open loop at each target rate (--rate 1000,2000,5000), or
search automatically (--rate auto): start at --start-rate and multiply the
rate by --rate-factor while steps hold (never above --max-rate), then bisect between the
last good and the first bad rate until the gap is below 10% of the good
rate, at most 4 times.

A step holds when it achieved at least 95% of its target, the p99 of every
operation type is within --p99 (when given), at most --max-errors of its
operations failed, and it did not stop early; with --repeat N a rate holds
when most of its runs do. Every step is a stored run (its variant carries
the sweep id, sweepStep and repetition) with its own report. The sweep ends
with the table of steps, the saturation throughput (the highest achieved
rate), the highest target that held, and with --repeat the spread of the
achieved rate and p99 per rate; --json prints the runs' stored documents
as one JSON array instead.

With --threshold, a step holds only when its thresholds hold too. The sweep
exits 99 when no target rate held.

With --clients N (and --group, --client-index), N processes run the sweep
together: each runs the same sweep (its id is the --group id) and every
step, each repetition, is a run group of its own, GROUP.sSTEP.rREPETITION,
in which each client does 1/N of the step's rate. After a step every
client waits for the group's merged result and judges that one, so the
clients choose the same next rate and print the same table; a step whose
group result is partial (a client missing) does not hold, and the sweep
stops there, naming the client.`,
		Example: `  mongobench sweep --workload ycsb-b -p recordcount=100000 --rate 1000,2000,5000 --p99 20ms
  mongobench sweep --workload ycsb-b --rate auto --start-rate 500 --rate-factor 2 --p99 20ms --repeat 3
  mongobench sweep --workload ycsb-f --rate auto --label r6g --price '3.20 USD/h' --json > sweep.json
  mongobench sweep -P workloads/workloadb -p recordcount=100000 -p threadcount=64 --rate 1000,2000,5000
  mongobench sweep --workload ycsb-b --rate auto --threshold 'p99(READ) < 5ms' --threshold 'errors(timeout) < 1'
  mongobench sweep --workload ycsb-c --rate auto --start-rate 20000 --clients 4 --client-index 0 --group c-sweep-1 --results mongodb://results.example/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.ycsb.study(ycsbprops.Sweep, cmd.Flags(), f.base, &f.studyFlags); err != nil {
				return err
			}
			return a.runSweep(cmd.Context(), f)
		},
	}
	fl := cmd.Flags()
	fl.Var(f.base.Flag("workload", ""), "workload", "workload to run (required; see 'mongobench workloads')")
	fl.Var(&f.rates, "rate", "target rates: a list (1000,2000,5000) or auto (required)")
	deprecatedAlias(fl, "rates", "rate")
	fl.Float64Var(&f.start, "start-rate", 500, "auto: first rate")
	fl.Float64Var(&f.factor, "rate-factor", 2, "auto: multiply the rate by this while steps hold")
	fl.Float64Var(&f.max, "max-rate", 100000, "auto: highest rate tried")
	deprecatedAlias(fl, "start", "start-rate")
	deprecatedAlias(fl, "factor", "rate-factor")
	deprecatedAlias(fl, "max", "max-rate")
	criteriaFlags(fl, &f.criteria, "bound on the p99 of every operation type, e.g. 20ms (default: not checked)", "largest share of failed operations a step may have")
	fl.Var(f.base.Flag("duration", "20s"), "duration", "measured phase of each step")
	fl.Var(f.base.Flag("warmup", "5s"), "warmup", "warm-up of each step")
	fl.IntVar(&f.repeat, "repeat", 1, "runs per target rate")
	fl.Var(f.base.Flag("threads", ""), "threads", "most operations in flight (default 64)")
	fl.Var(&dollarsValue{dollars: &f.costPerHour}, "price", "the target's price in US dollars, e.g. '3.20 USD/h' or '2336 USD/month', stored in cents per hour as _id.instance.cost (for compare)")
	fl.Float64Var(&f.costPerHour, "cost-per-hour", 0, "the target's price in dollars per hour")
	deprecate(fl, "cost-per-hour", "price")
	f.add(a, fl, "workload parameter name=value", optionHelp{reportDir: "mongobench-reports", json: "print the runs' stored documents as one JSON array instead of the tables"})
	f.ycsb.add(fl)
	return cmd
}

func (a *app) runSweep(ctx context.Context, f sweepFlags) error {
	f.base.Database, f.base.Label = f.database, f.label
	s := study.SweepStudy{Base: study.Base{Scenario: f.base, Params: f.params}, Rates: f.rates.Search(study.Auto{Start: f.start, Factor: f.factor, Max: f.max}),
		Repeat: f.repeat, Criteria: f.criteria, Cost: f.costPerHour}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.studyFlags, reg, s.Check, studyThresholds(reg, f.base, &f.params, true))
	if err != nil {
		return err
	}
	defer l.Close()
	s.ID = runner.NewRunID(time.Now())
	if f.group != "" {
		s.ID = f.group // every client's steps carry the same variant.sweep
	}
	res, err := s.Run(ctx, l.Env(reg))
	err = errors.Join(err, a.finishStudy(l, &f.measureOptions, len(res.Steps), res.View))
	return l.Outcome(study.Ends(err, "sweep "+s.ID, res.Verdict))
}

// criteriaFlags declares --p99 (formerly --sla) and --max-errors, the
// criteria of sweep and compare.
func criteriaFlags(fl *pflag.FlagSet, c *study.Criteria, slaHelp, maxErrorsHelp string) {
	fl.Var((*study.Bound)(&c.SLA), "p99", slaHelp)
	deprecatedAlias(fl, "sla", "p99")
	fl.Float64Var(&c.MaxErrors, "max-errors", 0.01, maxErrorsHelp)
}
