package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func (a *app) slaCmd() *cobra.Command {
	f := options.NewSLA()
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
	f.Add(cmd.Flags())
	cmd.AddCommand(a.slaJourneyCmd())
	return cmd
}

func (a *app) runSLA(ctx context.Context, f *options.SLA) error {
	s := f.SLA()
	reg := builtin.Registry()
	l, err := a.openOn(ctx, &f.Study, reg, s.Check, options.StudyThresholds(reg, f.Base, &f.Params, true))
	if err != nil {
		return err
	}
	defer l.Close()
	res, err := s.Run(ctx, l.Env(reg))
	return l.Outcome(study.Ends(errors.Join(err, a.finishSLA(ctx, l, f, res)), "sla", res.Verdict))
}

// finishSLA audits the ledger, prints the study's view and writes the
// SLA report.
func (a *app) finishSLA(ctx context.Context, l *lab.Lab, f *options.SLA, res study.SLAResult) error {
	var audit string
	if len(res.Runs) > 0 {
		audit = l.LedgerAudit(ctx, f.Database)
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
				docs, err := st.ListLight(cmd.Context())
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
