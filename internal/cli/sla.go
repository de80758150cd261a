package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/report"
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
at a target TPS, --repeat times per mode, alternating modes so machine noise
falls on both alike. A run passes when its p99 (and --p95/--p999 if given)
meets the SLA, it achieved at least 99% of the target, and no transaction
failed permanently. Prints every run, the summary per mode, and with several
rates the scaling table; every run is stored (test txn_sla) and gets its own
report with p99 per second against the server's and host's telemetry.

Modes: per-op sends the four writes one by one inside the transaction;
client-bulk sends them as one client-level bulkWrite (MongoDB 8.0).
--rate auto steps the rate up from --start-rate by --rate-step until both
modes fail (or --max-rate). --json prints the runs' stored documents as one JSON
array instead of the tables.

A mode holds at a rate when most of its runs pass (--require K/N: at least
K of the N = --repeat). With --threshold, a run passes only when its
thresholds hold too. The study exits 99 when a mode at a rate given does
not hold; with --rate auto, when no rate held for any mode.`,
		Example: `  mongobench sla --rate 500 --p99 20ms --repeat 5 --duration 30s --warmup 5s
  mongobench sla --rate 500,1000,1500 --p99 20ms --repeat 3 --stage "7KB accounts" -p accountFields=400 -p accountSize=7KB
  mongobench sla --rate auto --start-rate 250 --rate-step 250 --p99 20ms --repeat 3
  mongobench sla --rate 500 --p99 20ms --repeat 5 --require 5/5 --threshold 'svc.p99(txn) < 10ms'
  mongobench sla journey`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runSLA(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.Var(&f.tps, "rate", "target transactions per second: a list (500,1000) or auto (required)")
	fl.Float64Var(&f.tpsStart, "start-rate", 250, "auto: first rate")
	fl.Float64Var(&f.tpsStep, "rate-step", 250, "auto: step between rates")
	fl.Float64Var(&f.tpsMax, "max-rate", 100000, "auto: highest rate tried")
	deprecatedAlias(fl, "tps", "rate")
	for old, canonical := range map[string]string{"start": "start-rate", "tps-start": "start-rate", "step": "rate-step", "tps-step": "rate-step", "max": "max-rate", "tps-max": "max-rate"} {
		deprecatedAlias(fl, old, canonical)
	}
	slaBoundFlags(fl, &f.sla, "SLA on p99 latency, e.g. 20ms (required)")
	fl.Var(f.base.Flag("duration", "30s"), "duration", "measured phase of each run")
	fl.Var(f.base.Flag("warmup", "5s"), "warmup", "warm-up of each run")
	fl.IntVar(&f.runs, "repeat", 5, "runs of each mode at each rate")
	deprecatedAlias(fl, "runs", "repeat")
	fl.StringVar(&f.modes, "modes", workload.ModePerOp+","+workload.ModeClientBulk, "modes to compare")
	fl.StringVar(&f.stage, "stage", "", "free-text stage of a tuning journey (see 'sla journey'); part of the result's _id")
	fl.Var(f.base.Flag("threads", ""), "threads", "most transactions in flight (default 64)")
	f.add(a, fl, "ledger parameter name=value (see 'mongobench workloads')", optionHelp{reportDir: "mongobench-reports",
		json: "print the runs' stored documents as one JSON array instead of the tables", noGroup: "sla cannot run as a run group (each run is judged by the process that made it); run the ledger with 'mongobench run --workload ledger --clients N' instead"})
	fl.Var(&f.sla.Require, "require", "runs of each mode and rate that must pass, as K/N with N = --repeat, e.g. 5/5 (default: a majority, more than half of --repeat)")
	cmd.AddCommand(a.slaJourneyCmd())
	return cmd
}

func (a *app) runSLA(ctx context.Context, f slaFlags) error {
	f.base.Database, f.base.Label = f.database, f.label
	s := study.SLAStudy{SLA: f.sla, Rates: f.tps.Search(study.Ladder{Start: f.tpsStart, Step: f.tpsStep, Max: f.tpsMax}),
		Runs: f.runs, Modes: strings.Split(f.modes, ","), Stage: f.stage, Base: study.Base{Scenario: f.base, Params: f.params}}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.studyFlags, reg, s.Check, studyThresholds(reg, f.base, &f.params, true))
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := s.Run(ctx, l.Env(reg))
	return l.Outcome(study.Ends(errors.Join(err, a.finishSLA(ctx, l, &f, res)), "sla", res.Verdict))
}

// slaBoundFlags declares --p99, --p95 and --p999, the bounds of sla.
func slaBoundFlags(fl *pflag.FlagSet, sla *study.SLA, p99Help string) {
	fl.Var((*study.Bound)(&sla.P99), "p99", p99Help)
	fl.Var((*study.Bound)(&sla.P95), "p95", "also require p95 within this")
	fl.Var((*study.Bound)(&sla.P999), "p999", "also require p99.9 within this")
}

// finishSLA audits the ledger, prints the study's view and writes the
// SLA report.
func (a *app) finishSLA(ctx context.Context, l *lab.Lab, f *slaFlags, res study.SLAResult) error {
	var audit string
	if len(res.Runs) > 0 {
		audit = runner.LedgerAudit(context.WithoutCancel(ctx), l.Target().URI, f.database)
	}
	if f.json && audit != "" { // no tables: the audit goes to stderr
		a.say("audit: %s\n", audit)
	}
	return a.finishStudy(l, &f.measureOptions, len(res.Runs), func(runs []report.Link) *report.StudyView { return res.View(audit, runs) })
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
