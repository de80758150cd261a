package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

type planFlags struct {
	fromResults bool
	runs        int
	measureOptions
}

func (a *app) planCmd() *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan PLAN.yaml",
		Short: "Capacity plan: which candidate deployment carries each growth stage, within the constraints, for the least money",
		Long: `Runs the plan's scenario on every candidate (a URI, or a local server
profile started for the run) 'runs' times, alternating candidates, and
stores each run (variant.plan, variant.candidate, repetition). Every
invocation adds runs: the plan is computed from all the runs of this plan
name stored so far, so batches may run at different times. With
--from-results nothing is run.

Per candidate: sustained throughput (median of its runs, with their range),
p95/p99 per operation type from the exact merge of the runs' histograms,
the server's CPU (a share of the CPUs it may use: its profile's CPU list,
else its instance's vCPU, else its host's), monthly cost, throughput per
cost unit, users carried, and each constraint's verdict with the reason;
against the baseline, its throughput, latency, cost and throughput per cost
as signed changes ("+160% throughput for +48% cost"). Per stage: the
required rate (users × ops/s per user, calibrated on the baseline by its
server CPU, calibrate: {users: 25000, cpu: 80%}, or by its throughput,
calibrate: {users: 25000, throughput: 80%}), the recommended candidate (the
cheapest that carries the stage within the headroom and passes every
constraint) and why every other one was rejected. A CPU calibration
without the baseline's CPU figures says why it cannot calibrate. The Markdown report has bar charts of
throughput, each operation type's p95, monthly cost and throughput per cost
unit, the baseline marked. See suites/plan-local.yaml.

Thresholds (--threshold, or the scenario's thresholds) are judged on every
run; a candidate with a stored run whose thresholds failed carries no
stage. The plan exits 99 when no candidate meets its constraints.`,
		Example: `  mongobench plan suites/plan-local.yaml
  mongobench plan suites/plan-local.yaml --from-results --json
  mongobench plan suites/plan-local.yaml --threshold 'errors(timeout) < 1'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runPlan(cmd.Context(), f, args[0]) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.fromResults, "from-results", false, "run nothing: compute the plan from the stored runs")
	fl.IntVar(&f.runs, "repeat", 0, "runs of each candidate in this invocation (default: the plan's runs)")
	deprecatedAlias(fl, "runs", "repeat")
	f.add(a, fl, optionHelp{reportDir: "mongobench-reports", json: "print the answer as JSON instead of tables",
		noGroup: "plan cannot run as a run group (it alternates candidates, each started for its runs); run a candidate with 'mongobench run --clients N'"})
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
	lo, err := f.options(ctx, a)
	if err != nil {
		return err
	}
	if err := checkThresholds(builtin.Registry(), pl.Scenario, pl.Scenario.Rate > 0, lo.Thresholds...); err != nil {
		return err
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
	if f.json {
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
