package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

// compareFlags configure a comparison of stored sweeps.
type compareFlags struct {
	study     study.CompareStudy
	asJSON    bool
	reportDir string
	results   storeFlags
	runs      options.CompareRuns // compare --runs
}

func (a *app) compareCmd() *cobra.Command {
	f := compareFlags{study: study.CompareStudy{Criteria: study.Criteria{MinFraction: study.DefaultSweepFraction}}}
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Compare stored sweeps of two or more labels: saturation, p99, throughput per dollar and a verdict",
		Long: `Compare the latest stored sweep of the first --label with each other's:
saturation, throughput per operation type, the highest target held, price and
operations per unit of it (every price in one currency), p99 below and above
saturation, and a verdict to quote. Manual: docs/sweep.md.`,
		Example: `  mongobench sweep --workload ycsb-f --rate auto --label r6g --price '3.20 USD/h'
  mongobench sweep --workload ycsb-f --rate auto --label r5 --price '4.00 USD/h'
  mongobench compare --label r6g --label r5 --workload ycsb-f
  mongobench compare --label r6g --label r5 --price 'r6g=3.20 USD/h' --price 'r5=4.00 USD/h' --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runCompare(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.study.Labels, "label", nil, "a label whose latest sweep to compare (at least two; the first is compared with each other)")
	fl.StringVar(&f.study.Workload, "workload", "", "compare sweeps of this workload (default: each label's latest sweep)")
	fl.Var(&f.study.Prices, "price", "a label's price, label=PRICE such as 'r6g=3.20 USD/h' or 'r5=2920 EUR/month', repeatable; every price in one currency (default: the price stored with its sweep)")
	fl.Var(study.Costs{Prices: &f.study.Prices}, "cost-per-hour", "a label's price, label=dollars per hour")
	options.Deprecate(fl, "cost-per-hour", "price")
	options.Criteria(fl, &f.study.Criteria, "bound on the p99 of every operation type for the highest target held, e.g. 20ms (default: not checked)", "largest share of failed operations a held target may have")
	fl.BoolVar(&f.asJSON, "json", false, "print the comparison as JSON")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the Markdown report and charts (empty: none)")
	f.results.add(cmd)
	f.runs.Add(fl)
	return cmd
}

func (a *app) runCompare(ctx context.Context, f compareFlags) error {
	runs := f.runs.Of(f.study.Labels, f.study.Workload)
	if f.runs.Runs {
		if err := runs.Check(); err != nil {
			return usage(err)
		}
	} else if err := f.study.Check(); err != nil {
		return usage(err)
	}
	st, closeFn, err := a.resultsStore(ctx, f.results.uri, f.results.file)
	if err != nil {
		return err
	}
	defer closeFn()
	if f.runs.Runs {
		return a.compareRuns(ctx, runs, f, st)
	}
	sweeps := func(label, workload string) ([]result.Doc, error) {
		return st.Sweeps(ctx, store.Query{Label: label, Workload: workload})
	}
	c, err := f.study.Run(sweeps, st.Where())
	if errors.Is(err, study.ErrMixedWorkloads) || errors.Is(err, study.ErrMixedCurrencies) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		return c.WriteJSON(a.stdout)
	}
	v := c.View()
	if err := v.Text(a.stdout); err != nil {
		return err
	}
	return a.writeReport(f.reportDir, v)
}

// compareRuns compares the first label's stored single runs with each
// other label's, metric by metric.
func (a *app) compareRuns(ctx context.Context, s study.CompareRunsStudy, f compareFlags, st store.Store) error {
	docs, err := st.List(ctx, 0)
	if err != nil {
		return err
	}
	c, err := s.Run(docs, st.Where())
	if errors.Is(err, study.ErrNoRuns) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	v := c.View()
	if err := v.Text(a.stdout); err != nil {
		return err
	}
	if err := a.writeReport(f.reportDir, v); err != nil || !f.runs.FailOnRegression {
		return err
	}
	return c.Failed()
}
