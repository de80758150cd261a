package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// loadFlags configure a measured YCSB load phase.
type loadFlags struct {
	workload                string
	params                  []string
	uri, database           string
	resultsURI, file, label string
	reportDir               string
}

func (a *app) loadCmd() *cobra.Command {
	var f loadFlags
	cmd := &cobra.Command{
		Use:   "load",
		Short: "YCSB's load phase as a measured, stored run: batched parallel inserts, docs/s and MB/s",
		Long: `Load a YCSB workload's records (insertcount from insertstart, by default all
recordcount) into an emptied table as YCSB's 'load' does, and measure it: the
-p loaders connections each insert the next -p batchSize records with one
unordered insertMany until every record is in. The run is stored like any
other (test name the workload's, e.g. ycsb-a, with variant.phase "load"; its
operation type BATCH-INSERT times whole batches) with testResults.docs,
bytes, docsPerSec and MBPerSec, and gets its report with charts.

'mongobench run --workload ycsb-a' loads the table again as unmeasured setup
before its measured run phase.`,
		Example: `  mongobench load --workload ycsb-a -p recordcount=100000
  mongobench load --workload ycsb-a -p recordcount=1000000 -p loaders=8 -p batchSize=500 --label r6g`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runLoad(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.workload, "workload", "", "YCSB workload whose records to load, ycsb-a … ycsb-f (required)")
	fl.StringArrayVarP(&f.params, "param", "p", nil, "workload parameter name=value (recordcount, insertstart, insertcount, batchSize, loaders, …)")
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the target)")
	fl.StringVar(&f.file, "results-file", "", "append the result to this JSON Lines file instead")
	fl.StringVar(&f.label, "label", "", "label stored with the run, e.g. the instance type")
	fl.StringVar(&f.reportDir, "report-dir", "mongobench-reports", "directory for the run's report (empty: none)")
	return cmd
}

func (a *app) runLoad(ctx context.Context, f loadFlags) error {
	if f.workload == "" {
		return usage(errors.New("--workload: required, one of ycsb-a … ycsb-f"))
	}
	l := study.Load{Workload: f.workload, Params: f.params, Database: f.database, Label: f.label}
	reg := builtin.YCSBLoads()
	if _, err := l.Scenario(reg); err != nil {
		return usage(err)
	}
	t, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	l.URI = t.URI
	if _, err := l.Scenario(reg); err != nil {
		return usage(err)
	}
	s := newStudy(a, t, st, f.reportDir)
	s.registry = reg
	d, err := l.Run(ctx, study.Env{Measure: s.measure, Keep: s.keep, Registry: reg, Say: a.say})
	if d == nil {
		return err
	}
	fmt.Fprintln(a.stdout, study.LoadLine(d))
	a.say("result %s stored in %s\n", d.RunID, st.Where())
	for _, p := range s.reports {
		a.say("report: %s\n", p)
	}
	return err
}
