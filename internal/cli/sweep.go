package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
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
	params             []string
	uri, database      string
	resultsURI, file   string
	label, reportDir   string
	costPerHour        float64
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
	fl.StringArrayVarP(&f.params, "param", "p", nil, "workload parameter name=value")
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
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the target)")
	fl.StringVar(&f.file, "results-file", "", "append results to this JSON Lines file instead")
	fl.StringVar(&f.label, "label", "", "label stored with every run, e.g. the instance type")
	fl.Float64Var(&f.costPerHour, "cost-per-hour", 0, "the target's price in dollars per hour, stored in cents as _id.instance.cost (for compare)")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the sweep report and the runs' reports")
	return cmd
}

func (a *app) runSweep(ctx context.Context, f sweepFlags) error {
	crit, rates, err := f.check()
	if err != nil {
		return usage(err)
	}
	// Build one scenario before connecting, so bad parameters fail fast.
	if _, err := f.scenario(firstRate(rates, f.start), 0, 1, "", ""); err != nil {
		return usage(err)
	}
	t, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	s := &sweep{studyRun: newStudy(a, t, st, f.reportDir), f: f, crit: crit, id: runner.NewRunID(time.Now())}
	runErr := s.run(ctx, rates)
	return errors.Join(runErr, s.finish())
}

func firstRate(rates []float64, start float64) float64 {
	if len(rates) > 0 {
		return rates[0]
	}
	return start
}

// check validates the flags and returns the criteria and the rates (nil:
// auto).
func (f sweepFlags) check() (study.Criteria, []float64, error) {
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
	var rates []float64
	switch f.rates {
	case "":
		errs = append(errs, errors.New("--rates: required: a list of rates such as 1000,2000,5000, or auto"))
	case "auto":
		if f.start <= 0 || f.factor <= 1 || f.max < f.start {
			errs = append(errs, errors.New("--rates auto: want --start > 0, --factor > 1 and --max ≥ --start"))
		}
	default:
		for _, part := range strings.Split(f.rates, ",") {
			r, err := spec.ParseRate(strings.TrimSpace(part))
			if err != nil {
				errs = append(errs, fmt.Errorf("--rates: %q: %w", part, err))
				continue
			}
			rates = append(rates, float64(r))
		}
	}
	return c, rates, errors.Join(errs...)
}

// sweep is one invocation of mongobench sweep.
type sweep struct {
	*studyRun
	f     sweepFlags
	crit  study.Criteria
	id    string
	steps []study.Step
}

// run measures the listed rates, or searches automatically.
func (s *sweep) run(ctx context.Context, rates []float64) error {
	s.app.say("sweep %s of %s: a step holds when %s\n", s.id, s.f.workload, s.crit)
	if rates != nil {
		for i, r := range rates {
			if _, err := s.level(ctx, r, i+1); err != nil {
				return err
			}
		}
		return nil
	}
	auto := study.Auto{Start: s.f.start, Factor: s.f.factor, Max: s.f.max}
	var tried []study.Tried
	for {
		r, ok := auto.Next(tried)
		if !ok {
			return nil
		}
		held, err := s.level(ctx, r, len(tried)+1)
		if err != nil {
			return err
		}
		tried = append(tried, study.Tried{Rate: r, Held: held})
	}
}

// level runs every repetition at one rate and reports whether most held.
func (s *sweep) level(ctx context.Context, rate float64, index int) (bool, error) {
	held := 0
	for rep := range s.f.repeat {
		st, err := s.one(ctx, rate, index, rep)
		if err != nil {
			return false, err
		}
		if ok, _ := study.Holds(st, s.crit); ok {
			held++
		}
	}
	return 2*held > s.f.repeat, nil
}

// one measures, stores and reports one step.
func (s *sweep) one(ctx context.Context, rate float64, index, rep int) (study.Step, error) {
	sc, err := s.f.scenario(rate, rep, index, s.id, s.target.URI)
	if err != nil {
		return study.Step{}, usage(err)
	}
	d, err := s.measure(ctx, sc, s.f.variant(s.id, index, rep))
	if err != nil {
		return study.Step{}, err
	}
	return s.record(ctx, d)
}

func (s *sweep) record(ctx context.Context, d *result.Doc) (study.Step, error) {
	st, err := study.StepOf(d)
	if err != nil {
		return st, err
	}
	ok, reasons := study.Holds(st, s.crit)
	d.TestResults["sweep"] = map[string]any{"id": s.id, "step": st.Index, "criteria": s.crit.String(), "holds": ok, "reasons": reasons}
	if err := s.keep(ctx, d); err != nil {
		return st, err
	}
	s.steps = append(s.steps, st)
	verdict := "holds"
	if !ok {
		verdict = "fails: " + strings.Join(reasons, "; ")
	}
	p99 := "—"
	if v := st.P99(); v != nil {
		p99 = msText(v)
	}
	s.app.say("step %d %8.0f/s run %d: achieved %.0f/s, p99 %s ms, %d errors, %d late: %s\n",
		st.Index, st.Rate, st.Rep+1, st.Achieved, p99, st.Errors, st.Late, verdict)
	return st, stopped(d)
}

// variant is what identifies a step within its sweep, and the target's
// price when given (instance.cost, cents per hour).
func (f sweepFlags) variant(id string, index, rep int) map[string]any {
	v := map[string]any{"sweep": id, "sweepStep": index, "repetition": rep}
	if f.costPerHour > 0 {
		v["instance"] = map[string]any{"cost": math.Round(f.costPerHour*1e4) / 1e2}
	}
	return v
}

// scenario builds the step's scenario; the test name is the workload's.
func (f sweepFlags) scenario(rate float64, rep, index int, id, uri string) (*spec.Scenario, error) {
	set := map[string]string{
		"rate": strconv.FormatFloat(rate, 'f', -1, 64), "duration": f.duration,
		"warmup": f.warmup, "repetition": strconv.Itoa(rep), "uri": uri,
		"threads": f.threads, "database": f.database, "label": f.label,
	}
	return buildScenario(builtin.Registry(), f.workload, set, f.params)
}

// finish prints the tables and writes the sweep report.
func (s *sweep) finish() error {
	if len(s.steps) == 0 {
		return nil
	}
	out := s.app.stdout
	fmt.Fprintln(out)
	if err := s.tables(out, study.Text); err != nil {
		return err
	}
	return s.writeReport()
}

func (s *sweep) tables(w io.Writer, f study.Format) error {
	if err := study.WriteSweep(w, f, s.steps, s.crit); err != nil {
		return err
	}
	if s.f.repeat > 1 {
		fmt.Fprintln(w)
		return study.WriteSpread(w, f, study.Spreads(s.steps))
	}
	return nil
}

func (s *sweep) writeReport() error {
	return s.writeSummary("sweep-"+s.id, func(b *strings.Builder) error {
		fmt.Fprintf(b, "# Throughput sweep of %s\n\nSweep %s. A step holds when %s.\n\n", s.f.workload, s.id, s.crit)
		if s.f.label != "" {
			fmt.Fprintf(b, "Label: %s\n\n", s.f.label)
		}
		if err := s.tables(b, study.Markdown); err != nil {
			return err
		}
		label := cmp.Or(s.f.label, s.f.workload)
		return writeSweepCharts(b, s.reportDir, "sweep-"+s.id, s.f.workload+" sweep "+s.id, []report.Curve{curveOf(label, s.steps)})
	})
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
