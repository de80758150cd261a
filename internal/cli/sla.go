package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// slaFlags configure an SLA study.
type slaFlags struct {
	tps               study.Rates
	tpsStart, tpsStep float64
	tpsMax            float64
	sla               study.SLA
	runs              int
	modes             string
	stage             string
	base              *spec.Scenario // duration, warmup and threads
	studyFlags
}

func (a *app) slaCmd() *cobra.Command {
	f := slaFlags{sla: study.SLA{MinRateFraction: study.DefaultRateFraction}, base: &spec.Scenario{Workload: "ledger", Name: study.TestName}}
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
--rate auto steps the rate up from --start by --step until both modes
fail (or --max). --json prints the runs' stored documents as one JSON
array instead of the tables.

A mode holds at a rate when most of its runs pass (--require K/N: at least
K of the N = --runs). With --threshold, a run passes only when its
thresholds hold too. The study exits 99 when a mode at a rate given does
not hold; with --rate auto, when no rate held for any mode.`,
		Example: `  mongobench sla --rate 500 --p99 20ms --runs 5 --duration 30s --warmup 5s
  mongobench sla --rate 500,1000,1500 --p99 20ms --runs 3 --stage "7KB accounts" -p accountFields=400 -p accountSize=7KB
  mongobench sla --rate auto --start 250 --step 250 --p99 20ms --runs 3
  mongobench sla --rate 500 --p99 20ms --runs 5 --require 5/5 --threshold 'svc.p99(txn) < 10ms'
  mongobench sla journey`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runSLA(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.Var(&f.tps, "rate", "target transactions per second: a list (500,1000) or auto (required)")
	fl.Float64Var(&f.tpsStart, "start", 250, "auto: first rate")
	fl.Float64Var(&f.tpsStep, "step", 250, "auto: step between rates")
	fl.Float64Var(&f.tpsMax, "max", 100000, "auto: highest rate tried")
	deprecatedAlias(fl, "tps", "rate")
	deprecatedAlias(fl, "tps-start", "start")
	deprecatedAlias(fl, "tps-step", "step")
	deprecatedAlias(fl, "tps-max", "max")
	slaBoundFlags(fl, &f.sla, "SLA on p99 latency, e.g. 20ms (required)")
	fl.Var(f.base.Flag("duration", "30s"), "duration", "measured phase of each run")
	fl.Var(f.base.Flag("warmup", "5s"), "warmup", "warm-up of each run")
	fl.IntVar(&f.runs, "runs", 5, "runs per mode and rate")
	fl.StringVar(&f.modes, "modes", workload.ModePerOp+","+workload.ModeClientBulk, "modes to compare")
	fl.StringVar(&f.stage, "stage", "", "free-text stage of a tuning journey (see 'sla journey'); part of the result's _id")
	fl.Var(f.base.Flag("threads", ""), "threads", "most transactions in flight (default 64)")
	f.add(fl, studyHelp{hostMetrics: true, each: "every run", results: "results", params: "ledger parameter name=value (see 'mongobench workloads')",
		reportDir: "directory for the SLA report and the runs' reports", json: "print the runs' stored documents as one JSON array instead of the tables"})
	fl.Var(&f.sla.Require, "require", "runs of each mode and rate that must pass, as K/N with N = --runs, e.g. 5/5 (default: a majority, more than half of --runs)")
	f.thresholds.add(fl, false)
	cmd.AddCommand(a.slaJourneyCmd())
	a.statusFlag(fl)
	return cmd
}

func (a *app) runSLA(ctx context.Context, f slaFlags) error {
	f.base.Database, f.base.Label = f.database, f.label
	s := study.SLAStudy{SLA: f.sla, Rates: f.tps.Search(study.Ladder{Start: f.tpsStart, Step: f.tpsStep, Max: f.tpsMax}),
		Runs: f.runs, Modes: strings.Split(f.modes, ","), Stage: f.stage, Base: study.Base{Scenario: f.base, Params: f.params}}
	ts, err := f.thresholds.check(builtin.Registry(), f.base, f.params, true)
	if err != nil {
		return err
	}
	return a.runOn(ctx, f.studyFlags, builtin.Registry(), s.Check, func(run *studyRun) error {
		s.Base.Scenario.URI = run.target.URI
		run.thresholds = ts
		res, err := s.Run(ctx, run.env())
		return studyVerdict(errors.Join(err, run.finishSLA(ctx, res, f.database)), "sla", res.Verdict)
	})
}

// slaBoundFlags declares --p99, --p95 and --p999, the bounds of sla.
func slaBoundFlags(fl *pflag.FlagSet, sla *study.SLA, p99Help string) {
	fl.Var((*study.Bound)(&sla.P99), "p99", p99Help)
	fl.Var((*study.Bound)(&sla.P95), "p95", "also require p95 within this")
	fl.Var((*study.Bound)(&sla.P999), "p999", "also require p99.9 within this")
}

// finishSLA prints the tables, audits the ledger and writes the SLA
// report.
func (s *studyRun) finishSLA(ctx context.Context, res study.SLAResult, database string) error {
	var audit string
	tables := func(w io.Writer, f study.Format) error {
		if err := res.WriteTables(w, f); err != nil {
			return err
		}
		audit = runner.LedgerAudit(context.WithoutCancel(ctx), s.target.URI, database)
		_, err := fmt.Fprintf(w, "\naudit: %s\n", audit)
		return err
	}
	if s.json && len(res.Runs) > 0 { // no tables: the audit goes to stderr
		audit = runner.LedgerAudit(context.WithoutCancel(ctx), s.target.URI, database)
		s.app.say("audit: %s\n", audit)
	}
	render := func(w io.Writer, runs []string) ([]study.File, error) { return nil, res.WriteReport(w, audit, runs) }
	page := func(w io.Writer, runs []string) error { return htmlreport.SLA(w, res, audit, runs) }
	return s.finish(len(res.Runs), tables, "sla-"+time.Now().UTC().Format("20060102T150405Z"), render, page)
}

func (a *app) slaJourneyCmd() *cobra.Command {
	var sf storeFlags
	sla := study.SLA{MinRateFraction: study.DefaultRateFraction}
	var md bool
	cmd := &cobra.Command{
		Use:   "journey",
		Short: "One row per --stage of stored SLA runs, in the order they were run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := sla.Check(); err != nil {
				return usage(err)
			}
			return sf.with(a, cmd, func(st store.Store) error {
				docs, err := st.List(cmd.Context(), 0)
				if err != nil {
					return err
				}
				return study.WriteJourneyOf(a.stdout, md, docs, sla, st.Where())
			})
		},
	}
	sf.add(cmd)
	slaBoundFlags(cmd.Flags(), &sla, "the SLA to count passes against, e.g. 20ms (required)")
	cmd.Flags().BoolVar(&md, "markdown", false, "print a Markdown table")
	return cmd
}
