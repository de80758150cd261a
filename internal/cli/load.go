package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/workload/ycsb"
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

// scenario builds the load's scenario: closed loop, loaders workers, one
// operation per batch, no warm-up.
func (f loadFlags) scenario(uri string) (*spec.Scenario, error) {
	reg := builtin.YCSBLoads()
	if !strings.HasPrefix(f.workload, "ycsb-") {
		return nil, fmt.Errorf("--workload: %q has no load phase; want one of ycsb-a … ycsb-f", f.workload)
	}
	name := f.workload + "-load"
	w, err := reg.Get(name)
	if err != nil {
		return nil, fmt.Errorf("--workload: %q has no load phase; want one of ycsb-a … ycsb-f", f.workload)
	}
	set := map[string]string{"name": f.workload, "uri": uri, "database": f.database, "label": f.label, "warmup": "0s"}
	sc, err := buildScenario(reg, name, set, f.params)
	if err != nil {
		return nil, err
	}
	batches, _, err := w.(ycsb.Load).LoadBatches(sc.Params)
	if err != nil {
		return nil, err
	}
	if batches == 0 {
		return nil, errors.New("nothing to load: insertcount is 0")
	}
	set["ops"] = strconv.FormatInt(batches, 10)
	set["threads"] = strconv.FormatInt(sc.Params.Int("loaders"), 10)
	return buildScenario(reg, name, set, f.params)
}

func (a *app) runLoad(ctx context.Context, f loadFlags) error {
	if f.workload == "" {
		return usage(errors.New("--workload: required, one of ycsb-a … ycsb-f"))
	}
	if _, err := f.scenario(""); err != nil {
		return usage(err)
	}
	t, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	sc, err := f.scenario(t.URI)
	if err != nil {
		return usage(err)
	}
	s := newStudy(a, t, st, f.reportDir)
	s.registry = builtin.YCSBLoads()
	a.say("%s load: %d loaders, %d batches of up to %d records\n", f.workload, sc.Threads, sc.Ops, sc.Params.Int("batchSize"))
	d, err := s.measure(ctx, sc, map[string]any{"phase": "load"})
	if err != nil {
		return err
	}
	loadRates(d)
	if err := s.keep(ctx, d); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, loadLine(d))
	a.say("result %s stored in %s\n", d.RunID, st.Where())
	for _, p := range s.reports {
		a.say("report: %s\n", p)
	}
	return stopped(d)
}

// loadRates adds docsPerSec and MBPerSec (10^6 bytes of BSON) over the
// measured phase to testResults.
func loadRates(d *result.Doc) {
	secs := d.Duration / 1000
	docs, _ := d.TestResults["docs"].(int64)
	bytes, _ := d.TestResults["bytes"].(int64)
	if secs <= 0 {
		return
	}
	d.TestResults["docsPerSec"] = float64(docs) / secs
	d.TestResults["MBPerSec"] = float64(bytes) / 1e6 / secs
}

// loadLine states what the load did, as in "loaded 100000 records (116 MB)
// in 18.2 s: 5494 docs/s, 6.37 MB/s; batch p50 140 ms, p99 410 ms; 0
// failed batches".
func loadLine(d *result.Doc) string {
	docs, _ := d.TestResults["docs"].(int64)
	bytes, _ := d.TestResults["bytes"].(int64)
	dps, _ := d.TestResults["docsPerSec"].(float64)
	mbps, _ := d.TestResults["MBPerSec"].(float64)
	s := fmt.Sprintf("loaded %d records (%.1f MB) in %.1f s: %.0f docs/s, %.2f MB/s", docs, float64(bytes)/1e6, d.Duration/1000, dps, mbps)
	if op := d.Op(ycsb.BatchInsert); op != nil {
		if l := op.Latency; l.P50 != nil && l.P99 != nil {
			s += fmt.Sprintf("; batch p50 %s ms, p99 %s ms", msText(l.P50), msText(l.P99))
		}
		s += fmt.Sprintf("; %d failed batches", op.Errors.Total)
	}
	return s
}
