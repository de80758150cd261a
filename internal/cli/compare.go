package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/report"
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
	profiles, curves, err := loadProfiles(ctx, st, f, costs, crit)
	if err != nil {
		return err
	}
	pairs := make([]study.Pair, 0, len(profiles)-1)
	for _, p := range profiles[1:] {
		pairs = append(pairs, study.Compare(profiles[0], p, crit))
	}
	if f.asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"criteria": crit.String(), "profiles": profiles, "pairs": pairs})
	}
	if err := writeComparison(a.stdout, study.Text, profiles, pairs); err != nil {
		return err
	}
	if f.reportDir == "" {
		return nil
	}
	path, err := writeCompareReport(f.reportDir, crit, profiles, pairs, curves)
	if err != nil {
		return err
	}
	a.say("report: %s\n", path)
	return nil
}

// loadProfiles reads each label's latest sweep from the store, and
// returns its profile and its chart curve.
func loadProfiles(ctx context.Context, st store.Store, f compareFlags, costs map[string]float64, c study.Criteria) ([]study.Profile, []report.Curve, error) {
	var out []study.Profile
	var curves []report.Curve
	for _, label := range f.labels {
		docs, err := st.Sweeps(ctx, store.Query{Label: label, Workload: f.workload})
		if err != nil {
			return nil, nil, err
		}
		steps := make([]study.Step, 0, len(docs))
		for i := range docs {
			s, err := study.StepOf(&docs[i])
			if err != nil {
				return nil, nil, err
			}
			steps = append(steps, s)
		}
		steps = study.LatestSweep(steps)
		if len(steps) == 0 {
			what := "no stored sweep has label " + strconv.Quote(label)
			if f.workload != "" {
				what += " and workload " + f.workload
			}
			return nil, nil, fmt.Errorf("%s in %s (run 'mongobench sweep --label %s' first)", what, st.Where(), label)
		}
		var cost *float64
		if v, ok := costs[label]; ok {
			cost = &v
		}
		out = append(out, study.ProfileOf(label, steps, cost, c))
		curves = append(curves, curveOf(label, steps))
	}
	for _, p := range out[1:] {
		if p.Workload != out[0].Workload {
			return nil, nil, usage(fmt.Errorf("the latest sweeps ran different workloads (%s: %s, %s: %s); choose one with --workload",
				out[0].Label, out[0].Workload, p.Label, p.Workload))
		}
	}
	return out, curves, nil
}

// writeComparison writes the profiles, then each pair's tables and
// verdict.
func writeComparison(w io.Writer, f study.Format, profiles []study.Profile, pairs []study.Pair) error {
	if err := study.WriteProfiles(w, f, profiles); err != nil {
		return err
	}
	for _, p := range pairs {
		title := "\n" + study.CompareTitle(p) + "\n\n"
		if f == study.Markdown {
			title = "\n## " + study.CompareTitle(p) + "\n\n"
		}
		fmt.Fprint(w, title)
		if err := study.WritePair(w, f, p); err != nil {
			return err
		}
	}
	return nil
}

// writeCompareReport writes compare-A-vs-B….md into dir and returns its
// path.
func writeCompareReport(dir string, c study.Criteria, profiles []study.Profile, pairs []study.Pair, curves []report.Curve) (string, error) {
	var b strings.Builder
	labels := make([]string, len(profiles))
	for i, p := range profiles {
		labels[i] = p.Label
	}
	fmt.Fprintf(&b, "# %s: %s\n\nA target holds when %s.\n\n", strings.Join(labels, " vs "), profiles[0].Workload, c)
	if err := writeComparison(&b, study.Markdown, profiles, pairs); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := "compare-" + strings.Join(labels, "-vs-")
	if err := writeSweepCharts(&b, dir, name, strings.Join(labels, " vs ")+" ("+profiles[0].Workload+")", curves); err != nil {
		return "", err
	}
	path := filepath.Join(dir, fileSafe(name)+".md")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

// fileSafe replaces what a file name should not hold.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, s)
}
