package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/study"
)

func (a *app) planCmd() *cobra.Command {
	var f options.Plan
	cmd := &cobra.Command{
		Use:   "plan PLAN.yaml",
		Short: "Capacity plan: which candidate deployment carries each growth stage, within the constraints, for the least money",
		Long: `Run a plan's scenario on every candidate deployment (adding to the runs
stored), then answer from all stored runs which candidate carries each growth
stage within the constraints for the least money; exits 99 when none does.
Manual: docs/plan.md.`,
		Example: `  mongobench plan suites/plan-local.yaml
  mongobench plan suites/plan-local.yaml --from-results --json
  mongobench plan suites/plan-local.yaml --threshold 'errors(timeout) < 1'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runPlan(cmd.Context(), &f, args[0]) },
	}
	f.Add(cmd.Flags())
	return cmd
}

func (a *app) runPlan(ctx context.Context, f *options.Plan, path string) error {
	reg := a.workloads()
	pl, lo, err := f.Options(ctx, path, env, reg)
	if err != nil {
		_, err = a.checked(&f.Measure, lo, err)
		return err
	}
	p := study.Plan{Spec: pl, Runs: pl.Runs, FromResults: f.FromResults}
	if f.Runs > 0 {
		p.Runs = f.Runs
	}
	return a.measure(ctx, p.Study(), reg, &f.Measure, lo, nil)
}
