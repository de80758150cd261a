package cli

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The focused tests of the MongoDB Performance Tables (insert_docsize, concurrency, …)",
		Long: `Each catalog test changes one parameter across its variants, as a section of
the MongoDB Performance Tables does, at the reference sizes times --scale.
Every variant resets its collection (the query tests load theirs once and
reuse it), preloads if the test needs it, runs its measured phase and is
stored with the variant's fields (docSizeKB, writeBatchSize, idType,
nSecondaryIndexes, totalDocsToInsert; numberOfThreads, indexUpdate,
updateFunction, upsert, percentNew, nUpdates; comment, cached,
docsPerQuery; _id.order), so report templates can render it. The query
tests size their cached and uncached key ranges from the server's cache:
serverStatus, else --cache-size, else the size the embedded server or the
profile was started with.

insert_iops and insert_instancesize vary the target itself: with
--targets FILE they run one variant on each target of the file, in order
(_id.order = position), each labelled and described by its target
(variant.instance, _id.instance.cost in cents per hour). A target is a
URI or a local profile: a server of its own, started with a CPU set and a
cache size for the run and stopped after it. Other tests given with
--targets run all their variants on each target. Without --targets, the
one target is --uri (or the embedded server), described by --label,
--instance and --price. With --targets, results go to --results or
--results-file, else $MONGOBENCH_RESULTS_URI, else the embedded server.`,
	}
	cmd.AddCommand(a.catalogListCmd(), a.catalogRunCmd())
	return cmd
}

func (a *app) catalogListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the catalog's tests and their variants at the default scale",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			for _, t := range catalog.Tests() {
				fmt.Fprintf(tw, "%s\t%s\n", t.Name, t.Description)
			}
			return tw.Flush()
		},
	}
}

type catalogFlags struct {
	scale, database, resultsURI, file string
	target                            targetFlags
	cacheSize                         spec.Size
}

func (a *app) catalogRunCmd() *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "run TEST [TEST...]",
		Short: "Run catalog tests and store every variant",
		Example: "  mongobench catalog run insert_docsize insert_batchsize\n  mongobench catalog run insert_nindexes --scale full --uri mongodb://db1/ --label m6i.2xlarge\n" +
			"  mongobench catalog run insert_iops insert_instancesize --targets suites/targets-local.yaml\n" +
			"  mongobench catalog run insert_iops --uri mongodb://db1/ --label db1 --instance '{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100}' --price '0.42 USD/h'",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCatalog(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scale, "scale", strconv.FormatFloat(catalog.DefaultScale, 'f', -1, 64), "fraction of the reference sizes, or full")
	fl.StringVar(&f.target.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.target.label, "label", "", "label stored with every variant, e.g. the instance type")
	fl.StringVar(&f.target.file, "targets", "", "YAML file of targets (URIs or local profiles) to run each test on, in order")
	fl.StringVar(&f.target.instance, "instance", "", "the target's description, e.g. '{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100, vCPU: 4, ramGB: 16}'")
	fl.StringVar(&f.target.price, "price", "", "the target's price, e.g. '0.42 USD/h' or '694 EUR/month' (stored as _id.instance.cost, cents per hour)")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: the target; with --targets, $MONGOBENCH_RESULTS_URI, else the embedded server)")
	fl.StringVar(&f.file, "results-file", "", "append results to this JSON Lines file instead")
	fl.Var(&f.cacheSize, "cache-size", "the target's storage cache, e.g. 8GB, for a server that does not report it (the query tests size their key ranges from it; default: serverStatus, or what the embedded server was started with)")
	return cmd
}

func (a *app) runCatalog(ctx context.Context, f catalogFlags, names []string) error {
	scale, err := catalog.ParseScale(f.scale)
	if err != nil {
		return usage(fmt.Errorf("--scale: %w", err))
	}
	var tests []catalog.Test
	for _, n := range names {
		t, err := catalog.Find(n)
		if err != nil {
			return usage(err)
		}
		tests = append(tests, t)
	}
	targets, err := f.target.targets()
	if err != nil {
		return err
	}
	st, closeStore, err := a.catalogStore(ctx, f, targets)
	if err != nil {
		return err
	}
	defer closeStore()
	s := newStudy(a, runner.Target{}, st, "") // the catalog's document is 'mongobench report'
	docs := make([][]*result.Doc, len(tests))
	err = s.runTargets(ctx, tests, targets, scale, f, docs)
	for i, t := range tests {
		if len(docs[i]) > 0 {
			printCatalogTable(a, t, docs[i], len(targets) > 1)
		}
	}
	return err
}

// catalogStore opens where the catalog's results go: with a targets file,
// the results store (--results, --results-file, $MONGOBENCH_RESULTS_URI,
// else the embedded server), never a profile's short-lived server;
// otherwise, as for any run, falling back to the target's server.
func (a *app) catalogStore(ctx context.Context, f catalogFlags, targets []spec.Target) (store.Store, func(), error) {
	if f.target.file != "" {
		return a.resultsStore(ctx, f.resultsURI, f.file)
	}
	t, err := a.target(ctx, targets[0].URI)
	if err != nil {
		return nil, nil, err
	}
	return a.openStore(ctx, f.resultsURI, f.file, t.URI)
}

// runTargets runs the tests on each target in turn (a profile's server
// runs for all the tests at once), collecting each test's documents.
func (s *studyRun) runTargets(ctx context.Context, tests []catalog.Test, targets []spec.Target, scale catalog.Scale, f catalogFlags, docs [][]*result.Doc) error {
	for pos, tg := range targets {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: stopped before target %s; the variants measured are stored", errInterrupted, tg.Label)
		}
		err := s.app.onTarget(ctx, tg, func(bt runner.Target) error {
			if f.cacheSize > 0 {
				bt.CacheSize, bt.CacheSizeSource = int64(f.cacheSize), "--cache-size"
			}
			s.target = bt
			for i, t := range tests {
				vs := t.VariantsOn(scale, pos, bt.Instance)
				got, err := s.runTest(ctx, t, vs, tg.Label, f)
				docs[i] = append(docs[i], got...)
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// runTest runs the variants of one test on the study's target and
// returns the documents it stored.
func (s *studyRun) runTest(ctx context.Context, t catalog.Test, vs []catalog.Variant, label string, f catalogFlags) ([]*result.Doc, error) {
	on := ""
	if label != "" {
		on = " on " + label
	}
	s.app.say("%s%s: %s\n", t.Name, on, t.Description)
	var docs []*result.Doc
	for _, v := range vs {
		d, err := s.runVariant(ctx, t, v, label, f)
		if err != nil {
			return docs, err
		}
		if err := s.keep(ctx, d); err != nil {
			return docs, err
		}
		docs = append(docs, d)
		if d.Partial {
			return docs, fmt.Errorf("%w: %s stopped early; the variants measured are stored", errInterrupted, t.Name)
		}
	}
	return docs, nil
}

func (s *studyRun) runVariant(ctx context.Context, t catalog.Test, v catalog.Variant, label string, f catalogFlags) (*result.Doc, error) {
	sc, err := buildScenario(builtin.Registry(), t.Workload, map[string]string{"name": t.Name, "threads": strconv.Itoa(v.Threads),
		"ops": strconv.FormatInt(v.Ops, 10), "warmup": v.Warmup, "duration": v.MaxDuration, "database": f.database, "label": label}, v.Params)
	if err != nil {
		return nil, err
	}
	d, err := s.measure(ctx, sc, v.Values)
	if err != nil {
		return nil, err
	}
	addRates(d, t.Measure, v.DocsPerOp)
	return d, nil
}

// addRates stores the measured phase's rates that the reference tables
// read: documents and megabytes per second for ingest, updates per second,
// queries and documents returned per second. Nothing is stored for a phase
// with no duration, so a missing rate stays missing.
func addRates(d *result.Doc, m catalog.Measure, docsPerOp int64) {
	if d.Duration <= 0 {
		return
	}
	secs := d.Duration / 1000
	var ops int64
	for _, op := range d.Ops {
		ops += op.Count
	}
	switch m {
	case catalog.Ingest:
		docs := ops * docsPerOp
		sizeKB, _ := d.Variant["docSizeKB"].(float64)
		d.TestResults["docsInserted"] = docs
		d.TestResults["DocsPerSecond"] = float64(docs) / secs
		d.TestResults["MBPerSecond"] = float64(docs) * sizeKB / 1024 / secs
	case catalog.Updates:
		d.TestResults["nUpdates"] = ops
		d.TestResults["UpdatesPerSecond"] = float64(ops) / secs
	case catalog.Queries:
		d.TestResults["nQueries"] = ops
		d.TestResults["QueriesPerSecond"] = float64(ops) / secs
		if n, ok := d.TestResults["docsReturned"].(int64); ok {
			d.TestResults["DocsPerSecond"] = float64(n) / secs
		}
	}
}

// rateColumns are the testResults each measure's terminal table shows.
var rateColumns = map[catalog.Measure][]string{
	catalog.Ingest:  {"docsInserted", "DocsPerSecond", "MBPerSecond"},
	catalog.Updates: {"nUpdates", "UpdatesPerSecond"},
	catalog.Queries: {"nQueries", "QueriesPerSecond", "DocsPerSecond"},
}

// printCatalogTable prints one row per variant: the test's variant
// columns (and the label, for several targets), threads, its rates, and
// the p50/p99 of its first operation type.
func printCatalogTable(a *app, t catalog.Test, docs []*result.Doc, labelled bool) {
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	cols := t.Columns
	if labelled && !slices.Contains(cols, "label") {
		cols = append([]string{"label"}, cols...)
	}
	fmt.Fprintf(tw, "%s\n", t.Name)
	head := append(append(append([]string{"order"}, cols...), "threads"), rateColumns[t.Measure]...)
	fmt.Fprintln(tw, strings.Join(append(head, "op", "p50 ms", "p99 ms"), "\t")+"\t")
	for _, d := range docs {
		row := []string{fmt.Sprint(d.Variant["order"])}
		for _, c := range cols {
			row = append(row, cellText(variantField(d, c)))
		}
		row = append(row, cellText(d.Variant["numberOfThreads"]))
		for _, c := range rateColumns[t.Measure] {
			row = append(row, cellText(d.TestResults[c]))
		}
		if len(d.Ops) > 0 {
			op := d.Ops[0]
			row = append(row, op.Name, msText(op.Latency.P50), msText(op.Latency.P99))
		} else {
			row = append(row, "—", "—", "—")
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	_ = tw.Flush()
}

// variantField reads a column of the catalog's table: the label, or a
// variant field, with a dotted path reading inside one (instance.cost).
func variantField(d *result.Doc, path string) any {
	if path == "label" {
		if d.Label == "" {
			return nil
		}
		return d.Label
	}
	var v any = d.Variant
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// cellText formats a stored value for the terminal: rates with one
// decimal below 100, whole numbers above, and a dash for a missing value.
func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case float64:
		if x < 100 {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return fmt.Sprint(v)
}
