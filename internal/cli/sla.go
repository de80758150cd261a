package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// slaFlags configure an SLA study.
type slaFlags struct {
	tps               string
	tpsStart, tpsStep float64
	tpsMax            float64
	p99, p95, p999    string
	duration, warmup  string
	runs              int
	modes             string
	stage             string
	threads           string
	studyFlags
}

func (a *app) slaCmd() *cobra.Command {
	var f slaFlags
	cmd := &cobra.Command{
		Use:   "sla",
		Short: "Durable transactions at a fixed rate, judged against a p99 SLA (ledger workload)",
		Long: `Run the ledger workload (debit, credit, ledger entry, summary update in one
multi-document transaction, majority write concern with journal) open loop
at a target TPS, --runs times per mode, alternating modes so machine noise
falls on both alike. A run passes when its p99 (and --p95/--p999 if given)
meets the SLA, it achieved at least 99% of the target, and no transaction
failed permanently. Prints every run, the summary per mode, and with several
rates the scaling table; every run is stored (test txn_sla) and gets its own
report with p99 per second against the server's and host's telemetry.

Modes: per-op sends the four writes one by one inside the transaction;
client-bulk sends them as one client-level bulkWrite (MongoDB 8.0).
--tps auto steps the rate up from --tps-start by --tps-step until both
modes fail (or --tps-max).`,
		Example: `  mongobench sla --tps 500 --p99 20ms --runs 5 --duration 30s --warmup 5s
  mongobench sla --tps 500,1000,1500 --p99 20ms --runs 3 --stage "7KB accounts" -p accountFields=400 -p accountSize=7KB
  mongobench sla --tps auto --tps-start 250 --tps-step 250 --p99 20ms --runs 3
  mongobench sla journey`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runSLA(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tps, "tps", "", "target transactions per second: a list (500,1000) or auto (required)")
	fl.Float64Var(&f.tpsStart, "tps-start", 250, "auto: first rate")
	fl.Float64Var(&f.tpsStep, "tps-step", 250, "auto: step between rates")
	fl.Float64Var(&f.tpsMax, "tps-max", 100000, "auto: highest rate tried")
	fl.StringVar(&f.p99, "p99", "", "SLA on p99 latency, e.g. 20ms (required)")
	fl.StringVar(&f.p95, "p95", "", "also require p95 within this")
	fl.StringVar(&f.p999, "p999", "", "also require p99.9 within this")
	fl.StringVar(&f.duration, "duration", "30s", "measured phase of each run")
	fl.StringVar(&f.warmup, "warmup", "5s", "warm-up of each run")
	fl.IntVar(&f.runs, "runs", 5, "runs per mode and rate")
	fl.StringVar(&f.modes, "modes", workload.ModePerOp+","+workload.ModeClientBulk, "modes to compare")
	fl.StringVar(&f.stage, "stage", "", "free-text stage of a tuning journey (see 'sla journey'); part of the result's _id")
	fl.StringVar(&f.threads, "threads", "", "most transactions in flight (default 64)")
	f.add(fl, studyHelp{each: "every run", results: "results", params: "ledger parameter name=value (see 'mongobench workloads')",
		reportDir: "directory for the SLA report and the runs' reports"})
	cmd.AddCommand(a.slaJourneyCmd())
	return cmd
}

func (a *app) runSLA(ctx context.Context, f slaFlags) error {
	s, err := f.study()
	if err != nil {
		return usage(err)
	}
	return a.runOn(ctx, f.studyFlags, builtin.Registry(), s.Check, func(run *studyRun) error {
		s.Base.Scenario.URI = run.target.URI
		res, err := s.Run(ctx, run.env())
		return errors.Join(err, run.finishSLA(ctx, res, f.database))
	})
}

// study validates the flags and returns the SLA study they describe.
func (f slaFlags) study() (study.SLAStudy, error) {
	var errs []error
	sla, err := study.ParseSLA(f.p99, f.p95, f.p999)
	if err != nil {
		errs = append(errs, fmt.Errorf("--p99/--p95/--p999: %w", err))
	}
	var rates study.Search
	list, auto, err := study.ParseRates("--tps", f.tps)
	switch {
	case f.tps == "":
		errs = append(errs, errors.New("--tps: required: a list of rates such as 500,1000, or auto"))
	case err != nil:
		errs = append(errs, err)
	case auto && (f.tpsStart <= 0 || f.tpsStep <= 0):
		errs = append(errs, errors.New("--tps auto: --tps-start and --tps-step must be positive"))
	case auto:
		rates = study.Ladder{Start: f.tpsStart, Step: f.tpsStep, Max: f.tpsMax}
	default:
		rates = list
	}
	if f.runs < 1 {
		errs = append(errs, fmt.Errorf("--runs: got %d, want at least 1", f.runs))
	}
	modes := strings.Split(f.modes, ",")
	for _, m := range modes {
		if m != workload.ModePerOp && m != workload.ModeClientBulk {
			errs = append(errs, fmt.Errorf("--modes: %q is not a mode: want %s and/or %s", m, workload.ModePerOp, workload.ModeClientBulk))
		}
	}
	base, err := studyBase("ledger", [][2]string{{"name", study.TestName}, {"duration", f.duration}, {"warmup", f.warmup},
		{"threads", f.threads}, {"database", f.database}, {"label", f.label}}, f.params)
	errs = append(errs, err)
	return study.SLAStudy{SLA: sla, Rates: rates, Runs: f.runs, Modes: modes, Stage: f.stage, Base: base}, errors.Join(errs...)
}

// finishSLA prints the tables, audits the ledger and writes the SLA
// report.
func (s *studyRun) finishSLA(ctx context.Context, res study.SLAResult, database string) error {
	var audit string
	tables := func(w io.Writer, f study.Format) error {
		if err := res.WriteTables(w, f); err != nil {
			return err
		}
		audit = auditLedger(ctx, s.target.URI, database)
		_, err := fmt.Fprintf(w, "\naudit: %s\n", audit)
		return err
	}
	render := func(w io.Writer, runs []string) ([]study.File, error) { return nil, res.WriteReport(w, audit, runs) }
	return s.finish(len(res.Runs), tables, "sla-"+time.Now().UTC().Format("20060102T150405Z"), render)
}

// auditLedger reconciles the ledger after the study.
func auditLedger(ctx context.Context, uri, db string) string {
	if db == "" {
		db = spec.DefaultDatabase
	}
	a, err := runner.AuditLedger(context.WithoutCancel(ctx), uri, db)
	if err != nil {
		return "not done: " + err.Error()
	}
	if p := a.Problems(); len(p) > 0 {
		return "FAILED: " + strings.Join(p, "; ")
	}
	return fmt.Sprintf("%d transfers, %d accounts: balances conserved, every entry one debit and one credit", a.Entries, a.Accounts)
}

func (a *app) slaJourneyCmd() *cobra.Command {
	var sf storeFlags
	var p99, p95, p999 string
	var md bool
	cmd := &cobra.Command{
		Use:   "journey",
		Short: "One row per --stage of stored SLA runs, in the order they were run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sla, err := study.ParseSLA(p99, p95, p999)
			if err != nil {
				return usage(fmt.Errorf("--p99: %w", err))
			}
			return sf.with(a, cmd, func(st store.Store) error {
				docs, err := st.List(cmd.Context(), 0)
				if err != nil {
					return err
				}
				runs, err := study.RunsOf(docs)
				if err != nil {
					return err
				}
				if len(runs) == 0 {
					fmt.Fprintf(a.stdout, "no SLA runs stored in %s\n", st.Where())
					return nil
				}
				format := study.Text
				if md {
					format = study.Markdown
				}
				return study.WriteJourney(a.stdout, format, study.Journey(runs, sla))
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&p99, "p99", "", "the SLA to count passes against, e.g. 20ms (required)")
	cmd.Flags().StringVar(&p95, "p95", "", "also require p95 within this")
	cmd.Flags().StringVar(&p999, "p999", "", "also require p99.9 within this")
	cmd.Flags().BoolVar(&md, "markdown", false, "print a Markdown table")
	return cmd
}
