package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

// changesFlags configure a look for change points over stored runs.
type changesFlags struct {
	test, label string
	tags        []string
	metrics     []string
	window      int
	p           float64
	minEffect   minEffects
	failOnNew   bool
	all         bool
	asJSON      bool
	reportDir   string
	results     storeFlags
}

// minEffects is --min-effect KIND=PERCENT, repeatable.
type minEffects map[string]float64

func (m *minEffects) String() string { return "" }
func (m *minEffects) Type() string   { return "KIND=PERCENT" }
func (m *minEffects) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	pct, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if !ok || err != nil || pct < 0 {
		return fmt.Errorf("want KIND=PERCENT such as p99=10%% or throughput=3%%")
	}
	if _, err := significance.ParseMetric(strings.TrimSpace(k)); err != nil && !isKind(k) {
		return err
	}
	if *m == nil {
		*m = minEffects{}
	}
	(*m)[strings.TrimSpace(k)] = pct / 100
	return nil
}

func isKind(k string) bool {
	_, ok := significance.DefaultMinEffect[strings.TrimSpace(k)]
	return ok
}

func (a *app) changesCmd() *cobra.Command {
	f := changesFlags{}
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Find where stored runs changed over time, and triage the changes",
		Long: `Groups the stored runs into series (same test, variant and label, and the
tags named by --tag), takes one value per run per metric (throughput,
error rate, and p50/p95/p99/p99.9 of each operation type from the run's
own histogram), and finds the change points of each series: E-Divisive
with a t-test, windowed (--window), at --p, with the weak-then-merge pass.
Appending a night never moves an older change point.

Each change is stored in the results database (collection "changes") with
its status: new, acknowledged, hidden or expected (the server version,
instance or workload configuration changed across it), its values before
and after, its magnitude, p-value and direction, and its suspect range
(the last stable run and the first changed one, and what differs in their
configuration). 'changes ack ID --why TEXT' acknowledges one, 'changes hide
ID' hides it. With --fail-on-new the command exits 99 when it finds a new
regression it has not failed on before: a change alerts once.`,
		Example: `  mongobench changes
  mongobench changes --label nightly --tag ci --fail-on-new
  mongobench changes --min-effect p99=20% --min-effect throughput=3%
  mongobench changes ack 3f2a9c01be --why "fixed by the index on status"
  mongobench changes hide 3f2a9c01be`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runChanges(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.test, "test", "", "only series of this test (as runs name it, such as kv or ycsb)")
	fl.StringVar(&f.label, "label", "", "only series of runs with this label")
	fl.StringArrayVar(&f.tags, "tag", nil, "a tag that parts series: runs with it and runs without it are two series (repeatable)")
	fl.StringArrayVar(&f.metrics, "metric", nil, `only this metric, such as throughput, errors or "p99 READ" (repeatable)`)
	fl.IntVar(&f.window, "window", 50, "the most runs each side of a change point a split looks at")
	fl.Float64Var(&f.p, "p", 0.001, "the largest p-value of a change point")
	fl.Var(&f.minEffect, "min-effect", "the smallest change that counts for a kind of metric, KIND=PERCENT (defaults: throughput, p50, p95 5%; p99 10%; p99.9 20%; errors 0.1 points)")
	fl.BoolVar(&f.failOnNew, "fail-on-new", false, "exit 99 on a new regression not failed on before")
	fl.BoolVar(&f.all, "all", false, "list hidden changes too")
	fl.BoolVar(&f.asJSON, "json", false, "print the changes as JSON")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for changes.md and changes.html, each changed series' chart with its change points marked (empty: none)")
	f.results.add(cmd)
	cmd.AddCommand(a.changesStatusCmd("ack", changes.Acknowledged, true), a.changesStatusCmd("hide", changes.Hidden, false))
	return cmd
}

// triage opens the results store as a Triage, or says why it cannot.
func (a *app) triage(cmd *cobra.Command, f *storeFlags, fn func(store.Triage) error) error {
	return f.with(a, cmd, func(st store.Store) error {
		tr, ok := st.(store.Triage)
		if !ok {
			return usage(fmt.Errorf("changes keeps its triage in a MongoDB results store; %s is a results file (give --results)", st.Where()))
		}
		return fn(tr)
	})
}

func (a *app) runChanges(ctx context.Context, f changesFlags) error {
	if f.window < 10 {
		return usage(fmt.Errorf("--window: %d is too small: want at least 10 runs", f.window))
	}
	if f.p <= 0 || f.p >= 1 {
		return usage(fmt.Errorf("--p: %g is not valid: want a p-value between 0 and 1, such as 0.001", f.p))
	}
	for _, m := range f.metrics {
		if _, err := significance.ParseMetric(m); err != nil {
			return usage(fmt.Errorf("--metric: %w", err))
		}
	}
	cmd := &cobra.Command{}
	cmd.SetContext(ctx)
	return a.triage(cmd, &f.results, func(tr store.Triage) error {
		docs, err := tr.SeriesRuns(ctx, f.test, f.label)
		if err != nil {
			return err
		}
		series, err := changes.Group(docs, f.tags)
		if err != nil {
			return err
		}
		var found []changes.Change
		for _, s := range series {
			found = append(found, changes.Find(s, changes.Options{Window: f.window, P: f.p, MinEffect: f.minEffect, Metrics: f.metrics})...)
		}
		stored, err := tr.Changes(ctx)
		if err != nil {
			return err
		}
		merged := changes.Merge(stored, found, time.Now().UTC())
		if err := tr.PutChanges(ctx, merged); err != nil {
			return err
		}
		shown := merged[:0:0]
		var alerts []changes.Change
		for _, c := range merged {
			if c.Status != changes.Hidden || f.all {
				shown = append(shown, c)
			}
			if c.Alerts() {
				alerts = append(alerts, c)
			}
		}
		if f.asJSON {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(shown); err != nil {
				return err
			}
		} else {
			a.printChanges(series, shown)
		}
		if err := a.changesReport(f.reportDir, series, shown); err != nil {
			return err
		}
		if !f.failOnNew || len(alerts) == 0 {
			return nil
		}
		ids := make([]string, len(alerts))
		for i, c := range alerts {
			ids[i] = c.ID
		}
		if err := tr.MarkAlerted(ctx, ids, time.Now().UTC()); err != nil {
			return err
		}
		return study.VerdictFailed("%d new regression(s): %s; acknowledge one with 'mongobench changes ack ID --why TEXT'", len(alerts), strings.Join(ids, ", "))
	})
}

func (a *app) printChanges(series []changes.Series, cs []changes.Change) {
	runs := 0
	for _, s := range series {
		runs += len(s.Runs)
	}
	fmt.Fprintf(a.stdout, "%d series, %d runs: %d change(s)\n", len(series), runs, len(cs))
	if len(cs) == 0 {
		return
	}
	_ = changes.Table(cs).WriteText(a.stdout, true)
}

// changesReport writes changes.md and changes.html: the table of
// changes, then a chart of each metric that changed, per series.
func (a *app) changesReport(dir string, series []changes.Series, cs []changes.Change) error {
	if dir == "" || len(cs) == 0 {
		return nil
	}
	return a.writeReport(dir, changes.View(series, cs))
}

func (a *app) changesStatusCmd(name string, s changes.Status, needWhy bool) *cobra.Command {
	var why string
	var results storeFlags
	short := map[bool]string{true: "Acknowledge a change: it stops being new", false: "Hide a change from the list"}[needWhy]
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if needWhy && strings.TrimSpace(why) == "" {
				return usage(fmt.Errorf("--why: say why the change is acknowledged, such as --why \"new index on status\""))
			}
			return a.triage(cmd, &results, func(tr store.Triage) error {
				c, err := tr.SetChangeStatus(cmd.Context(), args[0], s, why)
				if err != nil {
					return usage(err)
				}
				fmt.Fprintf(a.stdout, "change %s (%s, %s %s): %s\n", c.ID, c.Series.String(), c.Metric, changes.Percent(c.Change), s)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "why: what caused the change, or why it does not matter")
	results.add(cmd)
	return cmd
}
