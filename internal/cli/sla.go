package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
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
	options.Study
}

func (a *app) slaCmd() *cobra.Command {
	f := slaFlags{sla: study.SLA{MinRateFraction: study.DefaultRateFraction}, base: &spec.Scenario{Workload: "ledger", Name: study.TestName}}
	cmd := &cobra.Command{
		Use:   "sla",
		Short: "Durable transactions at a fixed rate, judged against a p99 SLA (ledger workload)",
		Long: `Run the ledger's durable multi-document transactions open loop at each
target rate, --repeat times per mode, modes alternating, and judge every run
against the p99 SLA; exits 99 when a mode at a rate does not hold.
Manual: docs/sla.md.`,
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
	options.Alias(fl, "tps", "rate")
	for old, canonical := range map[string]string{"start": "start-rate", "tps-start": "start-rate", "step": "rate-step", "tps-step": "rate-step", "max": "max-rate", "tps-max": "max-rate"} {
		options.Alias(fl, old, canonical)
	}
	options.SLABounds(fl, &f.sla, "SLA on p99 latency, e.g. 20ms (required)")
	fl.Var(f.base.Flag("duration", "30s"), "duration", "measured phase of each run")
	fl.Var(f.base.Flag("warmup", "5s"), "warmup", "warm-up of each run")
	fl.IntVar(&f.runs, "repeat", 5, "runs of each mode at each rate")
	options.Alias(fl, "runs", "repeat")
	fl.StringVar(&f.modes, "modes", workload.ModePerOp+","+workload.ModeClientBulk, "modes to compare")
	fl.StringVar(&f.stage, "stage", "", "free-text stage of a tuning journey (see 'sla journey'); part of the result's _id")
	fl.Var(f.base.Flag("threads", ""), "threads", "most transactions in flight (default 64)")
	f.Add(fl, "ledger parameter name=value (see 'mongobench workloads')", options.Help{ReportDir: "mongobench-reports",
		JSON: "print the runs' stored documents as one JSON array instead of the tables", NoGroup: "sla cannot run as a run group (each run is judged by the process that made it); run the ledger with 'mongobench run --workload ledger --clients N' instead"})
	fl.Var(&f.sla.Require, "require", "runs of each mode and rate that must pass, as K/N with N = --repeat, e.g. 5/5 (default: a majority, more than half of --repeat)")
	cmd.AddCommand(a.slaJourneyCmd())
	return cmd
}

func (a *app) runSLA(ctx context.Context, f slaFlags) error {
	f.base.Database, f.base.Label = f.Database, f.Label
	s := study.SLAStudy{SLA: f.sla, Rates: f.tps.Search(study.Ladder{Start: f.tpsStart, Step: f.tpsStep, Max: f.tpsMax}),
		Runs: f.runs, Modes: strings.Split(f.modes, ","), Stage: f.stage, Base: study.Base{Scenario: f.base, Params: f.Params}}
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.Study, reg, s.Check, options.StudyThresholds(reg, f.base, &f.Params, true))
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := s.Run(ctx, l.Env(reg))
	return l.Outcome(study.Ends(errors.Join(err, a.finishSLA(ctx, l, &f, res)), "sla", res.Verdict))
}

// finishSLA audits the ledger, prints the study's view and writes the
// SLA report.
func (a *app) finishSLA(ctx context.Context, l *lab.Lab, f *slaFlags, res study.SLAResult) error {
	var audit string
	if len(res.Runs) > 0 {
		audit = runner.LedgerAudit(context.WithoutCancel(ctx), l.Target().URI, f.Database)
	}
	if f.JSON && audit != "" { // no tables: the audit goes to stderr
		a.say("audit: %s\n", audit)
	}
	return a.finishStudy(l, &f.Measure, len(res.Runs), func(runs []report.Link) *report.StudyView { return res.View(audit, runs) })
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
	options.SLABounds(cmd.Flags(), &sla, "the SLA to count passes against, e.g. 20ms (required)")
	cmd.Flags().BoolVar(&md, "markdown", false, "print a Markdown table")
	return cmd
}
