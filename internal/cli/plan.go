package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

type planFlags struct {
	fromResults bool
	runs        int
	options.Measure
}

func (a *app) planCmd() *cobra.Command {
	var f planFlags
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
		RunE: func(cmd *cobra.Command, args []string) error { return a.runPlan(cmd.Context(), f, args[0]) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.fromResults, "from-results", false, "run nothing: compute the plan from the stored runs")
	fl.IntVar(&f.runs, "repeat", 0, "runs of each candidate in this invocation (default: the plan's runs)")
	options.Alias(fl, "runs", "repeat")
	f.Add(fl, options.Help{ReportDir: "mongobench-reports", JSON: "print the answer as JSON instead of tables",
		NoGroup: "plan cannot run as a run group (it alternates candidates, each started for its runs); run a candidate with 'mongobench run --clients N'"})
	return cmd
}

func (a *app) runPlan(ctx context.Context, f planFlags, path string) error {
	pl, err := spec.ParsePlanFile(path, builtin.Registry())
	if err != nil {
		return usage(err)
	}
	if f.runs < 0 {
		return usage(fmt.Errorf("--repeat: got %d, want 0 (the plan's) or more", f.runs))
	}
	lo, err := f.Options(ctx, env)
	if lo, err = a.checked(&f.Measure, lo, err); err != nil {
		return err
	}
	if err := options.CheckThresholds(builtin.Registry(), pl.Scenario, pl.Scenario.Rate > 0, lo.Thresholds...); err != nil {
		return usage(err)
	}
	if !f.fromResults {
		if err := spec.CheckCPUs(path, pl.Candidates, server.CheckCPUs); err != nil {
			return usage(err)
		}
	}
	lo.Targets = true // every candidate is a target of its own; results go to the results store
	if f.fromResults {
		lo.MetricsAddr = "" // nothing runs
	}
	l, err := a.open(ctx, lo)
	if err != nil {
		return err
	}
	defer l.Close()
	st := l.Store()
	p := study.Plan{Spec: pl, Runs: pl.Runs, Where: st.Where(),
		Stored: func(ctx context.Context) ([]result.Doc, error) { return st.List(ctx, 0) }}
	if f.runs > 0 {
		p.Runs = f.runs
	}
	var runErr error
	if !f.fromResults {
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
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return study.Ends(errors.Join(runErr, enc.Encode(ans)), "plan "+pl.Name, verdict)
	}
	v := study.PlanView(pl, ans, nil)
	if err := v.Text(a.stdout); err != nil {
		return err
	}
	return study.Ends(errors.Join(runErr, a.writeReport(lo.ReportDir, v)), "plan "+pl.Name, verdict)
}
