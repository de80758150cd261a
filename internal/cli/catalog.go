package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The focused tests of the MongoDB Performance Tables (insert_docsize, …)",
		Long: `Each catalog test changes one parameter across its variants, as a section of
the MongoDB Performance Tables does, at the reference sizes times --scale.
Every variant resets its collection (the query tests load theirs once and
reuse it), preloads if the test needs it, runs its measured phase and is
stored with the variant's fields (docSizeKB, writeBatchSize, idType,
nSecondaryIndexes, totalDocsToInsert; comment, cached, docsPerQuery;
numberOfThreads, _id.order), so report templates can render it. The query
tests size their cached and uncached key ranges from the server's cache:
serverStatus, else --cache-size, else the size the embedded server was
started with.`,
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
	scale, uri, database, label, resultsURI, file string
	cacheSize                                     spec.Size
}

func (a *app) catalogRunCmd() *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:     "run TEST [TEST...]",
		Short:   "Run catalog tests and store every variant",
		Example: "  mongobench catalog run insert_docsize insert_batchsize\n  mongobench catalog run insert_nindexes --scale full --uri mongodb://db1/ --label m6i.2xlarge",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCatalog(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scale, "scale", strconv.FormatFloat(catalog.DefaultScale, 'f', -1, 64), "fraction of the reference sizes, or full")
	fl.StringVar(&f.uri, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.label, "label", "", "label stored with every variant, e.g. the instance type")
	fl.StringVar(&f.resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the target)")
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
	target, st, closeStore, err := a.targetAndStore(ctx, f.uri, f.resultsURI, f.file)
	if err != nil {
		return err
	}
	defer closeStore()
	if f.cacheSize > 0 {
		target.CacheSize, target.CacheSizeSource = int64(f.cacheSize), "--cache-size"
	}
	s := newStudy(a, target, st, "") // the catalog's document is 'mongobench report'
	for _, t := range tests {
		if err := s.runTest(ctx, t, scale, f); err != nil {
			return err
		}
	}
	return nil
}

// runTest runs every variant of one test and prints its table.
func (s *study) runTest(ctx context.Context, t catalog.Test, scale catalog.Scale, f catalogFlags) error {
	s.app.say("%s: %s\n", t.Name, t.Description)
	var docs []*result.Doc
	for _, v := range t.Variants(scale) {
		d, err := s.runVariant(ctx, t, v, f)
		if err != nil {
			return err
		}
		if err := s.keep(ctx, d); err != nil {
			return err
		}
		docs = append(docs, d)
		if d.Partial {
			break
		}
	}
	printCatalogTable(s.app, t, docs)
	if len(docs) > 0 && docs[len(docs)-1].Partial {
		return fmt.Errorf("%w: %s stopped early; the variants measured are stored", errInterrupted, t.Name)
	}
	return nil
}

func (s *study) runVariant(ctx context.Context, t catalog.Test, v catalog.Variant, f catalogFlags) (*result.Doc, error) {
	sc, err := buildScenario(workload.Builtin(), t.Workload, map[string]string{"name": t.Name, "threads": strconv.Itoa(v.Threads),
		"ops": strconv.FormatInt(v.Ops, 10), "warmup": v.Warmup, "duration": v.MaxDuration, "database": f.database, "label": f.label}, v.Params)
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
// columns, threads, its rates, and the p50/p99 of its first operation type.
func printCatalogTable(a *app, t catalog.Test, docs []*result.Doc) {
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	head := append(append(append([]string{"order"}, t.Columns...), "threads"), rateColumns[t.Measure]...)
	fmt.Fprintln(tw, strings.Join(append(head, "op", "p50 ms", "p99 ms"), "\t")+"\t")
	for _, d := range docs {
		row := []string{fmt.Sprint(d.Variant["order"])}
		for _, c := range t.Columns {
			row = append(row, cellText(d.Variant[c]))
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
