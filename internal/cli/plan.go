package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/plan"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

type planFlags struct {
	fromResults, json bool
	runs              int
	reportDir         string
	store             storeFlags
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
the server's CPU, monthly cost, throughput per cost unit, users carried, and
each constraint's verdict with the reason. Per stage: the required rate
(users × ops/s per user, calibrated so that today's users load the baseline
to 'load' of what it sustains), the recommended candidate (the cheapest that
carries the stage within the headroom and passes every constraint) and why
every other one was rejected. The Markdown report has bar charts of
throughput, each operation type's p95, monthly cost and throughput per cost
unit, the baseline marked. See suites/plan-local.yaml.`,
		Example: `  mongobench plan suites/plan-local.yaml
  mongobench plan suites/plan-local.yaml --from-results --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runPlan(cmd.Context(), f, args[0]) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.fromResults, "from-results", false, "run nothing: compute the plan from the stored runs")
	fl.BoolVar(&f.json, "json", false, "print the answer as JSON instead of tables")
	fl.IntVar(&f.runs, "runs", 0, "runs per candidate in this invocation (default: the plan's runs)")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the plan report, its charts and the runs' reports")
	f.store.add(cmd)
	return cmd
}

func (a *app) runPlan(ctx context.Context, f planFlags, path string) error {
	pl, err := spec.ParsePlanFile(path, builtin.Registry())
	if err != nil {
		return usage(err)
	}
	if f.runs < 0 {
		return usage(fmt.Errorf("--runs: got %d, want 0 (the plan's) or more", f.runs))
	}
	if !f.fromResults {
		if err := checkCPUs(path, pl.Candidates); err != nil {
			return usage(err)
		}
	}
	st, closeStore, err := a.resultsStore(ctx, f.store.uri, f.store.file)
	if err != nil {
		return err
	}
	defer closeStore()
	var runErr error
	if !f.fromResults {
		runs := pl.Runs
		if f.runs > 0 {
			runs = f.runs
		}
		runErr = a.measurePlan(ctx, pl, runs, st, f.reportDir)
		if errors.Is(runErr, errInterrupted) {
			return runErr
		}
	}
	ans, err := a.answerPlan(ctx, pl, st)
	if err != nil {
		return errors.Join(runErr, err)
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return errors.Join(runErr, enc.Encode(ans))
	}
	if err := plan.Write(a.stdout, ans, false); err != nil {
		return err
	}
	return errors.Join(runErr, a.writePlanReport(pl, ans, f.reportDir))
}

// measurePlan makes runs repetitions of every candidate, alternating
// candidates within a repetition, numbering repetitions after those
// already stored so earlier batches are kept.
func (a *app) measurePlan(ctx context.Context, pl *spec.Plan, runs int, st store.Store, reportDir string) error {
	next, err := nextRepetitions(ctx, st, pl)
	if err != nil {
		return err
	}
	s := newStudy(a, runner.Target{}, st, reportDir)
	for rep := range runs {
		for _, c := range pl.Candidates {
			a.say("plan %s: %s, run %d of %d\n", pl.Name, c.Label, rep+1, runs)
			err := a.onTarget(ctx, c, func(bt runner.Target) error {
				s.target = bt
				sc := pl.Scenario.Clone()
				sc.Label, sc.Repetition = c.Label, next[c.Label]+rep
				variant := map[string]any{"plan": pl.Name, "candidate": c.Label, "instance": catalog.Instance(c)}
				d, err := s.measure(ctx, sc, variant)
				if err != nil {
					return err
				}
				if err := s.keep(ctx, d); err != nil {
					return err
				}
				return stopped(d)
			})
			if err != nil {
				return fmt.Errorf("plan %s: candidate %s: %w", pl.Name, c.Label, err)
			}
		}
	}
	return nil
}

// nextRepetitions returns, per candidate, the first repetition number not
// stored yet.
func nextRepetitions(ctx context.Context, st store.Store, pl *spec.Plan) (map[string]int, error) {
	docs, err := planDocs(ctx, st, pl.Name)
	if err != nil {
		return nil, err
	}
	next := map[string]int{}
	for _, d := range docs {
		c, _ := d.Variant["candidate"].(string)
		next[c] = max(next[c], d.Repetition+1)
	}
	return next, nil
}

// planDocs reads the stored, complete runs of a plan.
func planDocs(ctx context.Context, st store.Store, name string) ([]result.Doc, error) {
	all, err := st.List(ctx, 0)
	if err != nil {
		return nil, err
	}
	var out []result.Doc
	for _, d := range all {
		if p, _ := d.Variant["plan"].(string); p == name && !d.Partial {
			out = append(out, d)
		}
	}
	return out, nil
}

// answerPlan evaluates the plan on its stored runs, with the plan file's
// prices (so a price change needs no new runs).
func (a *app) answerPlan(ctx context.Context, pl *spec.Plan, st store.Store) (plan.Answer, error) {
	docs, err := planDocs(ctx, st, pl.Name)
	if err != nil {
		return plan.Answer{}, err
	}
	p := plan.Plan{Demand: pl.Demand, Constraints: pl.Constraints}
	var missing []string
	for _, c := range pl.Candidates {
		cand := plan.Candidate{Name: c.Label, Description: c.Instance.Type, Baseline: c.Baseline,
			Monthly: c.Price.PerMonth(), Currency: c.Price.Currency}
		for i := range docs {
			if docs[i].Variant["candidate"] == c.Label {
				cand.Runs = append(cand.Runs, plan.RunOf(&docs[i]))
			}
		}
		if len(cand.Runs) == 0 {
			missing = append(missing, c.Label)
		}
		p.Candidates = append(p.Candidates, cand)
	}
	if len(missing) > 0 {
		return plan.Answer{}, fmt.Errorf("plan %s: no stored runs of %s in %s (run 'mongobench plan' without --from-results)",
			pl.Name, strings.Join(missing, ", "), st.Where())
	}
	return plan.Evaluate(p)
}

// writePlanReport writes the plan's Markdown report and its bar charts.
func (a *app) writePlanReport(pl *spec.Plan, ans plan.Answer, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := "plan-" + pl.Name
	var b strings.Builder
	fmt.Fprintf(&b, "# Capacity plan: %s\n\n", pl.Name)
	fmt.Fprintf(&b, "Workload `%s`, %d thread(s), %s per run; %s.\n\n", pl.Scenario.Workload, pl.Scenario.Threads,
		pl.Scenario.Duration, demandText(ans, pl))
	if len(pl.Constraints) > 0 {
		var cs []string
		for _, c := range pl.Constraints {
			cs = append(cs, "`"+c.Text+"`")
		}
		fmt.Fprintf(&b, "Constraints: %s.\n\n", strings.Join(cs, ", "))
	}
	b.WriteString("## Recommendation\n\n")
	plan.WriteVerdicts(&b, ans, true)
	b.WriteString("\n## Candidates\n\n")
	if err := plan.WriteCandidates(&b, ans, true); err != nil {
		return err
	}
	b.WriteString("\n## Stages\n\n")
	if err := plan.WriteStages(&b, ans, true); err != nil {
		return err
	}
	b.WriteString("\n## Charts\n\n")
	for _, ch := range planCharts(ans) {
		svg, err := report.BarChart(ch.title, ch.unit, "baseline", ch.bars)
		if err != nil {
			return err
		}
		if svg == nil {
			continue
		}
		file := name + "-" + ch.file + ".svg"
		if err := os.WriteFile(filepath.Join(dir, file), svg, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&b, "![%s](%s)\n\n", ch.title, file)
	}
	path := filepath.Join(dir, name+".md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	a.say("report: %s\n", path)
	return nil
}

func demandText(ans plan.Answer, pl *spec.Plan) string {
	if ans.OpsPerUser == 0 {
		return "demand in explicit rates"
	}
	return fmt.Sprintf("today's %.0f users load the baseline (%s) to %.0f%% of what it sustains: %.4g ops/s per user",
		pl.Demand.Users, ans.Baseline, pl.Demand.Load*100, ans.OpsPerUser)
}

type planChart struct {
	title, unit, file string
	bars              []report.Bar
}

// planCharts are the report's bar charts: throughput, each operation
// type's p95, monthly cost and throughput per cost unit.
func planCharts(ans plan.Answer) []planChart {
	bar := func(as plan.Assessment, v *float64) report.Bar {
		return report.Bar{Name: as.Name, Value: v, Marked: as.Baseline}
	}
	val := func(v float64) *float64 { return &v }
	charts := []planChart{
		{title: "Sustained throughput", unit: "ops/s", file: "throughput"},
	}
	var ops []string
	for _, as := range ans.Assessments {
		for op := range as.Latency {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	slices.Sort(ops)
	for _, op := range ops {
		charts = append(charts, planChart{title: op + " p95 latency", unit: "ms", file: strings.ToLower(op) + "-p95"})
	}
	charts = append(charts,
		planChart{title: "Monthly cost", unit: ans.Currency + "/month", file: "cost"},
		planChart{title: "Throughput per cost unit", unit: "ops/s per " + ans.Currency + "/month", file: "per-cost"})
	for _, as := range ans.Assessments {
		charts[0].bars = append(charts[0].bars, bar(as, val(as.Throughput)))
		for i, op := range ops {
			var v *float64
			if d, ok := as.Latency[op]; ok {
				v = d.P95
			}
			charts[1+i].bars = append(charts[1+i].bars, bar(as, v))
		}
		n := len(charts)
		charts[n-2].bars = append(charts[n-2].bars, bar(as, val(as.Monthly)))
		charts[n-1].bars = append(charts[n-1].bars, bar(as, val(as.ThroughputPerCostUnit)))
	}
	return charts
}
