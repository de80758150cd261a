package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// sweepFlags configure a throughput sweep.
type sweepFlags struct {
	workload           string
	rates              string
	start, factor, max float64
	sla                string
	maxErrors          float64
	duration, warmup   string
	repeat             int
	threads            string
	costPerHour        float64
	studyFlags
}

func (a *app) sweepCmd() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "One workload at a series of target rates: saturation throughput and the highest rate that holds an SLA",
		Long: `Run a workload open loop at each target rate (--rates 1000,2000,5000), or
search automatically (--rates auto): start at --start and multiply the rate
by --factor while steps hold (never above --max), then bisect between the
last good and the first bad rate until the gap is below 10% of the good
rate, at most 4 times.

A step holds when it achieved at least 95% of its target, the p99 of every
operation type is within --sla (when given), at most --max-errors of its
operations failed, and it did not stop early; with --repeat N a rate holds
when most of its runs do. Every step is a stored run (its variant carries
the sweep id, sweepStep and repetition) with its own report. The sweep ends
with the table of steps, the saturation throughput (the highest achieved
rate), the highest target that held, and with --repeat the spread of the
achieved rate and p99 per rate.`,
		Example: `  mongobench sweep --workload ycsb-b -p recordcount=100000 --rates 1000,2000,5000 --sla 20ms
  mongobench sweep --workload ycsb-b --rates auto --start 500 --factor 2 --sla 20ms --repeat 3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runSweep(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "", "workload to run (required; see 'mongobench workloads')")
	fl.StringVar(&f.rates, "rates", "", "target rates: a list (1000,2000,5000) or auto (required)")
	fl.Float64Var(&f.start, "start", 500, "auto: first rate")
	fl.Float64Var(&f.factor, "factor", 2, "auto: multiply the rate by this while steps hold")
	fl.Float64Var(&f.max, "max", 100000, "auto: highest rate tried")
	fl.StringVar(&f.sla, "sla", "", "bound on the p99 of every operation type, e.g. 20ms (default: not checked)")
	fl.Float64Var(&f.maxErrors, "max-errors", 0.01, "largest share of failed operations a step may have")
	fl.StringVar(&f.duration, "duration", "20s", "measured phase of each step")
	fl.StringVar(&f.warmup, "warmup", "5s", "warm-up of each step")
	fl.IntVar(&f.repeat, "repeat", 1, "runs per target rate")
	fl.StringVar(&f.threads, "threads", "", "most operations in flight (default 64)")
	fl.Float64Var(&f.costPerHour, "cost-per-hour", 0, "the target's price in dollars per hour, stored in cents as _id.instance.cost (for compare)")
	f.add(fl, studyHelp{each: "every run", results: "results", params: "workload parameter name=value",
		reportDir: "directory for the sweep report and the runs' reports"})
	return cmd
}

func (a *app) runSweep(ctx context.Context, f sweepFlags) error {
	s, err := f.study()
	if err != nil {
		return usage(err)
	}
	return a.runOn(ctx, f.studyFlags, builtin.Registry(), s.Check, func(run *studyRun) error {
		s.ID, s.Base.Scenario.URI = runner.NewRunID(time.Now()), run.target.URI
		res, err := s.Run(ctx, run.env())
		return errors.Join(err, run.finish(len(res.Steps), res.WriteTables, res.ReportName(), res.WriteReport))
	})
}

// study validates the flags and returns the sweep they describe.
func (f sweepFlags) study() (study.SweepStudy, error) {
	var errs []error
	c := study.Criteria{MinFraction: study.DefaultSweepFraction, MaxErrors: f.maxErrors}
	if f.workload == "" {
		errs = append(errs, errors.New("--workload: required, such as ycsb-b (see 'mongobench workloads')"))
	}
	errs = append(errs, criteriaFlags(&c, f.sla, f.maxErrors)...)
	if f.costPerHour < 0 {
		errs = append(errs, fmt.Errorf("--cost-per-hour: got %v, want dollars per hour such as 3.20", f.costPerHour))
	}
	if f.repeat < 1 {
		errs = append(errs, fmt.Errorf("--repeat: got %d, want at least 1", f.repeat))
	}
	var rates study.Search
	list, auto, err := study.ParseRates("--rates", f.rates)
	switch {
	case f.rates == "":
		errs = append(errs, errors.New("--rates: required: a list of rates such as 1000,2000,5000, or auto"))
	case err != nil:
		errs = append(errs, err)
	case auto && (f.start <= 0 || f.factor <= 1 || f.max < f.start):
		errs = append(errs, errors.New("--rates auto: want --start > 0, --factor > 1 and --max ≥ --start"))
	case auto:
		rates = study.Auto{Start: f.start, Factor: f.factor, Max: f.max}
	default:
		rates = list
	}
	base, err := studyBase(f.workload, [][2]string{{"duration", f.duration}, {"warmup", f.warmup},
		{"threads", f.threads}, {"database", f.database}, {"label", f.label}}, f.params)
	errs = append(errs, err)
	return study.SweepStudy{Base: base, Rates: rates, Repeat: f.repeat, Criteria: c, Cost: f.costPerHour}, errors.Join(errs...)
}

// criteriaFlags reads --sla and --max-errors into c, returning what is
// wrong with them.
func criteriaFlags(c *study.Criteria, sla string, maxErrors float64) []error {
	var errs []error
	if sla != "" {
		d, err := time.ParseDuration(sla)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("--sla: %q is not a positive duration such as 20ms", sla))
		}
		c.SLA = d
	}
	if maxErrors < 0 || maxErrors > 1 {
		errs = append(errs, fmt.Errorf("--max-errors: got %v, want a share between 0 and 1, such as 0.01", maxErrors))
	}
	return errs
}
