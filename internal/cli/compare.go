package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/validity"
)

func (a *app) compareCmd() *cobra.Command {
	f := options.NewCompare()
	var results storeFlags
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Compare stored sweeps of two or more labels: saturation, p99, throughput per dollar and a verdict",
		Long: `Compare the latest stored sweep of the first --label with each other's: saturation, throughput
per operation type, the highest target held, price and operations per unit of it (one currency), p99
below and above saturation, a verdict to quote, and at each target both ran every metric judged real or
noise (one value per repetition). --runs: the labels' single runs, metric by metric. --interleave: two
scenario files run alternately until every metric is decided or --max-runs. Manual: docs/sweep.md.`,
		Example: `  mongobench sweep --workload ycsb-f --rate auto --label r6g --price '3.20 USD/h'
  mongobench sweep --workload ycsb-f --rate auto --label r5 --price '4.00 USD/h'
  mongobench compare --label r6g --label r5 --workload ycsb-f
  mongobench compare --label r6g --label r5 --price 'r6g=3.20 USD/h' --price 'r5=4.00 USD/h' --json
  mongobench compare --interleave --scenario old.yaml --scenario new.yaml --max-runs 30 --fail-on-regression`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runCompare(cmd.Context(), f, results) },
	}
	f.Add(cmd.Flags())
	results.add(cmd)
	return cmd
}

func (a *app) runCompare(ctx context.Context, f *options.Compare, results storeFlags) error {
	if err := f.Check(); err != nil {
		return usage(err)
	}
	if f.Interleave {
		reg := a.workloads()
		s, m, lo, err := f.Interleaved(ctx, results.uri, results.file, reg, env)
		return a.measure(ctx, s.Study(f.FailOnRegression), reg, m, lo, err)
	}
	st, closeFn, err := a.resultsStore(ctx, results.uri, results.file)
	if err != nil {
		return err
	}
	defer closeFn()
	if f.Runs {
		return a.compareRuns(ctx, f, st)
	}
	sweeps := func(label, workload string) ([]result.Doc, error) {
		docs, err := st.Sweeps(ctx, store.Query{Label: label, Workload: workload})
		return a.counted(docs, f.IncludeInvalid), err
	}
	c, err := f.BySweeps().Run(sweeps, st.Where())
	if errors.Is(err, study.ErrMixedWorkloads) || errors.Is(err, study.ErrMixedCurrencies) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	out := study.Outcome{Answer: c.JSON(), Result: c}
	return a.finish(finishing{JSON: f.JSON, ReportDir: f.ReportDir}, out, nil)
}

// compareRuns compares the first label's stored single runs with each
// other label's, metric by metric.
func (a *app) compareRuns(ctx context.Context, f *options.Compare, st store.Store) error {
	docs, err := st.ListLight(ctx)
	if err != nil {
		return err
	}
	c, err := f.ByRuns().Run(a.counted(docs, f.IncludeInvalid), st.Where())
	if errors.Is(err, study.ErrNoRuns) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	out := study.Outcome{Answer: c.JSON(), Result: c}
	err = a.finish(finishing{JSON: f.JSON, ReportDir: f.ReportDir}, out, nil)
	a.planChanges(docs, f.Sweeps.Labels, f.JSON)
	if err != nil || !f.FailOnRegression {
		return err
	}
	return c.Failed()
}

// counted keeps the stored runs that count in a statistic, saying on
// standard error how many judged invalid were left out.
func (a *app) counted(docs []result.Doc, includeInvalid bool) []result.Doc {
	docs, left := validity.Filter(docs, includeInvalid)
	if s := validity.LeftOut(left); s != "" {
		a.say("%s\n", s)
	}
	return docs
}
