package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
)

// significanceFlags are compare's flags for runs compared metric by
// metric: real difference or noise.
type significanceFlags struct {
	runs             bool
	failOnRegression bool
	minEffect        minEffects
	seed             uint64
	alpha            float64
}

func (s *significanceFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&s.runs, "runs", false, "compare each label's stored single runs (not sweeps), metric by metric: medians, intervals, Mann–Whitney p-value, bootstrap ratio interval, ~ for likely noise")
	fl.BoolVar(&s.failOnRegression, "fail-on-regression", false, "with --runs: exit 99 when a metric is significantly worse by at least its minimum effect")
	fl.Var(&s.minEffect, "min-effect", "with --runs: the smallest change that counts for a kind of metric, KIND=PERCENT (defaults: throughput, p50, p95 5%; p99 10%; p99.9 20%; errors 0.1 points)")
	fl.Uint64Var(&s.seed, "seed", significance.DefaultSeed, "with --runs: the bootstrap's seed")
	fl.Float64Var(&s.alpha, "alpha", significance.DefaultAlpha, "with --runs: the p-value below which a difference is significant")
}

// compareRuns compares the first label's runs with each other label's:
// one value per run per metric, judged by significance.Table.
func (a *app) compareRuns(ctx context.Context, f compareFlags) error {
	labels := f.study.Labels
	if len(labels) < 2 {
		return usage(fmt.Errorf("--label: compare --runs needs at least two labels, got %d", len(labels)))
	}
	st, closeFn, err := a.resultsStore(ctx, f.results.uri, f.results.file)
	if err != nil {
		return err
	}
	defer closeFn()
	docs, err := st.List(ctx, 0)
	if err != nil {
		return err
	}
	byLabel := map[string][]result.Doc{}
	for _, d := range docs {
		if runOfLabel(&d, f.study.Workload) {
			byLabel[d.Label] = append(byLabel[d.Label], d)
		}
	}
	for _, l := range labels {
		if len(byLabel[l]) == 0 {
			return usage(fmt.Errorf("--label %s: no complete single run with this label in %s", l, st.Where()))
		}
	}
	if f.sig.alpha <= 0 || f.sig.alpha >= 1 {
		return usage(fmt.Errorf("--alpha: %g is not valid: want a p-value between 0 and 1, such as 0.01", f.sig.alpha))
	}
	var worse []string
	for _, other := range labels[1:] {
		rows, err := significance.Table(byLabel[labels[0]], byLabel[other], f.sig.minEffect, f.sig.alpha, f.sig.seed)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s (%d runs) against %s (%d runs):\n", other, len(byLabel[other]), labels[0], len(byLabel[labels[0]]))
		if err := significance.WriteText(a.stdout, rows, labels[0], other, f.sig.alpha); err != nil {
			return err
		}
		for _, r := range significance.Regressions(rows) {
			worse = append(worse, fmt.Sprintf("%s %s (%+.1f%%, p %.3g)", other, r.Metric.Name(), 100*r.Delta, r.Test.P))
		}
	}
	if f.sig.failOnRegression && len(worse) > 0 {
		return study.VerdictFailed("regression: %s", strings.Join(worse, "; "))
	}
	return nil
}

// runOfLabel says whether d is a whole, complete single run (no sweep
// step, no client's part of a group) of workload (any when "").
func runOfLabel(d *result.Doc, workload string) bool {
	if d.Partial || (d.Group != nil && d.Group.ClientIndex != nil) || result.VariantOf(d).Sweep != nil {
		return false
	}
	w, _ := d.TestConfig["workload"].(string)
	return workload == "" || w == workload
}
