package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// calibrateFlags configure a closed-loop thread calibration.
type calibrateFlags struct {
	workload                string
	params                  []string
	start, factor, maxT     int
	minGain                 float64
	duration, warmup        string
	uri, database           string
	resultsURI, file, label string
	reportDir               string
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
	fl.StringArrayVarP(&f.params, "param", "p", nil, "workload parameter name=value")
	fl.IntVar(&f.start, "start", 1, "threads of the first step")
	fl.IntVar(&f.factor, "factor", 2, "multiply the threads by this each step")
	fl.IntVar(&f.maxT, "max", 256, "most threads tried")
	fl.Float64Var(&f.minGain, "min-gain", study.DefaultMinGain, "smallest throughput gain over the step before that still counts as rising")
	fl.StringVar(&f.duration, "duration", "10s", "measured phase of each step")
	fl.StringVar(&f.warmup, "warmup", "2s", "warm-up of each step")
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the target)")
	fl.StringVar(&f.file, "results-file", "", "append results to this JSON Lines file instead")
	fl.StringVar(&f.label, "label", "", "label stored with every run, e.g. the instance type")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the calibration report and the runs' reports (empty: none)")
	return cmd
}

func (f calibrateFlags) check() (study.Calibration, error) {
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
	return study.Calibration{Start: f.start, Factor: f.factor, Max: f.maxT, MinGain: f.minGain}, errors.Join(errs...)
}

func (a *app) runCalibrate(ctx context.Context, f calibrateFlags) error {
	c, err := f.check()
	if err != nil {
		return usage(err)
	}
	if _, err := f.scenario(f.start, ""); err != nil {
		return usage(err)
	}
	t, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	cal := &calibration{studyRun: newStudy(a, t, st, f.reportDir), f: f, c: c, id: runner.NewRunID(time.Now())}
	runErr := cal.run(ctx)
	return errors.Join(runErr, cal.finish())
}

// calibration is one invocation of mongobench calibrate.
type calibration struct {
	*studyRun
	f     calibrateFlags
	c     study.Calibration
	id    string
	steps []study.ThreadStep
}

func (cal *calibration) run(ctx context.Context) error {
	cal.app.say("calibration %s of %s: double the threads until a step gains < %s%% while p99 climbs\n",
		cal.id, cal.f.workload, strconv.FormatFloat(cal.c.MinGain*100, 'f', -1, 64))
	for {
		n, ok := cal.c.Next(cal.steps)
		if !ok {
			return nil
		}
		sc, err := cal.f.scenario(n, cal.target.URI)
		if err != nil {
			return usage(err)
		}
		d, err := cal.measure(ctx, sc, map[string]any{"calibration": cal.id, "calibrationStep": len(cal.steps) + 1})
		if err != nil {
			return err
		}
		s := study.ThreadStepOf(d)
		cal.steps = append(cal.steps, s)
		entry := map[string]any{"id": cal.id, "step": len(cal.steps)}
		if g := study.Gain(cal.steps, len(cal.steps)-1); g != nil {
			entry["gain"] = *g
		}
		d.TestResults["calibration"] = entry
		if err := cal.keep(ctx, d); err != nil {
			return err
		}
		p99 := "—"
		if s.P99 != nil {
			p99 = msText(s.P99)
		}
		cal.app.say("step %d %4d threads: %.0f ops/s, p99 %s ms, %d errors\n", len(cal.steps), s.Threads, s.Achieved, p99, s.Errors)
		if err := stopped(d); err != nil {
			return err
		}
	}
}

// scenario builds one step's closed-loop scenario.
func (f calibrateFlags) scenario(threads int, uri string) (*spec.Scenario, error) {
	set := map[string]string{
		"threads": strconv.Itoa(threads), "duration": f.duration, "warmup": f.warmup,
		"uri": uri, "database": f.database, "label": f.label,
	}
	return buildScenario(builtin.Registry(), f.workload, set, f.params)
}

func (cal *calibration) finish() error {
	if len(cal.steps) == 0 {
		return nil
	}
	fmt.Fprintln(cal.app.stdout)
	if err := cal.table(cal.app.stdout, study.Text); err != nil {
		return err
	}
	return cal.writeSummary("calibrate-"+cal.id, func(b *strings.Builder) error {
		fmt.Fprintf(b, "# Thread calibration of %s\n\nCalibration %s, closed loop, %s per step.\n\n", cal.f.workload, cal.id, cal.f.duration)
		return cal.table(b, study.Markdown)
	})
}

func (cal *calibration) table(w io.Writer, f study.Format) error {
	return study.WriteCalibration(w, f, cal.steps, cal.c)
}
