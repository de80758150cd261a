package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

// compareFlags configure a comparison of stored sweeps.
type compareFlags struct {
	labels    []string
	workload  string
	costs     []string
	sla       string
	maxErrors float64
	asJSON    bool
	reportDir string
	results   storeFlags
}

func (a *app) compareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare",
		Short: "Compare stored sweeps of two or more labels: saturation, p99, throughput per dollar and a verdict",
		Long: `Reads the latest stored sweep of each --label (of --workload, when given)
and compares the first label with each of the others: saturation
throughput (the highest achieved rate) and each operation type's
throughput there, as a ratio ("+117%"); the highest target rate that held
(--sla, --max-errors, achieved ≥ 95% of target); the price per hour and the
operations per dollar at saturation; the p99 of every operation type at
each target rate both sweeps ran, below saturation (the highest rate both
kept up with) and above (the lowest rate one of them did not); and a
verdict line a person can quote.

Prices come from --cost-per-hour label=dollars, else from the sweep's own
(stored by 'sweep --cost-per-hour' as _id.instance.cost, cents per hour).
The comparison is printed, written as Markdown with its charts into
--report-dir, or printed as JSON with --json.`,
		Example: `  mongobench sweep --workload ycsb-f --rates auto --label r6g --cost-per-hour 3.20
  mongobench sweep --workload ycsb-f --rates auto --label r5 --cost-per-hour 4.00
  mongobench compare --label r6g --label r5 --workload ycsb-f
  mongobench compare --label r6g --label r5 --cost-per-hour r6g=3.20 --cost-per-hour r5=4.00 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runCompare(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.labels, "label", nil, "a label whose latest sweep to compare (at least two; the first is compared with each other)")
	fl.StringVar(&f.workload, "workload", "", "compare sweeps of this workload (default: each label's latest sweep)")
	fl.StringArrayVar(&f.costs, "cost-per-hour", nil, "a label's price, label=dollars per hour (default: the price stored with its sweep)")
	fl.StringVar(&f.sla, "sla", "", "bound on the p99 of every operation type for the highest target held, e.g. 20ms (default: not checked)")
	fl.Float64Var(&f.maxErrors, "max-errors", 0.01, "largest share of failed operations a held target may have")
	fl.BoolVar(&f.asJSON, "json", false, "print the comparison as JSON")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the Markdown report and charts (empty: none)")
	f.results.add(cmd)
	return cmd
}

// check validates the flags and returns the criteria and the prices given
// by label.
func (f compareFlags) check() (study.Criteria, map[string]float64, error) {
	var errs []error
	c := study.Criteria{MinFraction: study.DefaultSweepFraction, MaxErrors: f.maxErrors}
	if len(f.labels) < 2 {
		errs = append(errs, errors.New("--label: give at least two, such as --label r6g --label r5"))
	}
	for i, l := range f.labels {
		if l == "" || slices.Contains(f.labels[:i], l) {
			errs = append(errs, fmt.Errorf("--label: %q is empty or given twice", l))
		}
	}
	errs = append(errs, criteriaFlags(&c, f.sla, f.maxErrors)...)
	costs := map[string]float64{}
	for _, kv := range f.costs {
		label, v, ok := strings.Cut(kv, "=")
		d, err := strconv.ParseFloat(v, 64)
		switch {
		case !ok || err != nil || d <= 0:
			errs = append(errs, fmt.Errorf("--cost-per-hour: %q is not label=dollars such as r6g=3.20", kv))
		case !slices.Contains(f.labels, label):
			errs = append(errs, fmt.Errorf("--cost-per-hour: %q names no --label", kv))
		default:
			costs[label] = d
		}
	}
	return c, costs, errors.Join(errs...)
}

func (a *app) runCompare(ctx context.Context, f compareFlags) error {
	crit, costs, err := f.check()
	if err != nil {
		return usage(err)
	}
	st, closeFn, err := a.resultsStore(ctx, f.results.uri, f.results.file)
	if err != nil {
		return err
	}
	defer closeFn()
	contenders, err := storedSweeps(ctx, st, f, costs)
	if err != nil {
		return err
	}
	c, err := study.CompareSweeps(contenders, crit)
	if errors.Is(err, study.ErrMixedWorkloads) {
		return usage(err)
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"criteria": crit.String(), "profiles": c.Profiles, "pairs": c.Pairs})
	}
	if err := c.WriteTables(a.stdout, study.Text); err != nil {
		return err
	}
	if f.reportDir == "" {
		return nil
	}
	return a.writeReportDir(f.reportDir, c.ReportName(), c.WriteReport)
}

// storedSweeps reads each label's stored sweep runs, with its price when
// given.
func storedSweeps(ctx context.Context, st store.Store, f compareFlags, costs map[string]float64) ([]study.Contender, error) {
	var out []study.Contender
	for _, label := range f.labels {
		docs, err := st.Sweeps(ctx, store.Query{Label: label, Workload: f.workload})
		if err != nil {
			return nil, err
		}
		if len(docs) == 0 {
			what := "no stored sweep has label " + strconv.Quote(label)
			if f.workload != "" {
				what += " and workload " + f.workload
			}
			return nil, fmt.Errorf("%s in %s (run 'mongobench sweep --label %s' first)", what, st.Where(), label)
		}
		c := study.Contender{Label: label, Docs: docs}
		if v, ok := costs[label]; ok {
			c.Cost = &v
		}
		out = append(out, c)
	}
	return out, nil
}
