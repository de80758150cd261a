package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
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
	pl, lo, err := f.Options(ctx, path, env)
	if lo, err = a.checked(&f.Measure, lo, err); err != nil {
		return err
	}
	l, err := a.open(ctx, lo)
	if err != nil {
		return err
	}
	defer l.Close()
	st := l.Store()
	p := study.Plan{Spec: pl, Runs: pl.Runs, Where: st.Where(),
		Stored: func(ctx context.Context) ([]result.Doc, error) { return st.ListLight(ctx) }}
	if f.Runs > 0 {
		p.Runs = f.Runs
	}
	var runErr error
	if !f.FromResults {
		runErr = l.Outcome(p.Measure(ctx, l.Env(builtin.Registry())))
		if errors.Is(runErr, study.ErrStopped) {
			return runErr
		}
	}
	ans, err := p.Answer(ctx)
	if err != nil {
		return errors.Join(runErr, err)
	}
	verdict := func() (bool, string) { return study.PlanVerdict(ans) }
	if f.JSON {
		return study.Ends(errors.Join(runErr, a.writeJSON(ans)), "plan "+pl.Name, verdict)
	}
	v := study.PlanView(pl, ans, nil)
	if err := v.Text(a.stdout); err != nil {
		return err
	}
	return study.Ends(errors.Join(runErr, a.writeReport(lo.ReportDir, v)), "plan "+pl.Name, verdict)
}
