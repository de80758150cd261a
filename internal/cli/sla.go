package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
	"github.com/mongobench/mongobench/internal/textreport"
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			lo, err := f.Options(cmd.Context(), env)
			return a.measure(cmd.Context(), f.SLA().Study(), a.workloads(), &f.Measure, lo, err)
		},
	}
	f.Add(cmd.Flags())
	cmd.AddCommand(a.slaJourneyCmd())
	return cmd
}

func (a *app) slaJourneyCmd() *cobra.Command {
	var sf storeFlags
	sla := study.SLA{MinRateFraction: study.DefaultRateFraction}
	var md, includeInvalid bool
	cmd := &cobra.Command{
		Use:   "journey",
		Short: "One row per --stage, mode and rate of stored SLA runs, in the order the stages were run",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return sf.with(a, cmd, func(st store.Store) error {
				docs, err := st.ListLight(cmd.Context())
				if err != nil {
					return err
				}
				v, err := studyview.JourneyOf(a.counted(docs, includeInvalid), sla, st.Where())
				if err != nil {
					return err
				}
				if !md {
					return textreport.Study(a.stdout, v)
				}
				b, _, err := textreport.StudyMarkdown(v)
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(b)
				return err
			})
		},
	}
	sf.add(cmd)
	options.SLABounds(cmd.Flags(), &sla, "judge every stage's runs under this SLA, e.g. 20ms (default: each run by the verdict stored with it)")
	cmd.Flags().BoolVar(&md, "markdown", false, "print the journey as a Markdown report")
	options.IncludeInvalid(cmd.Flags(), &includeInvalid)
	return cmd
}
