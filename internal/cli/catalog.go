package cli

import (
	"context"
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/workload"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The focused tests of the MongoDB Performance Tables (insert_docsize, …)",
		Long: `Each catalog test changes one parameter across its variants, as a section of
the MongoDB Performance Tables does, at the reference sizes times --scale.
Every variant resets its collection, preloads if the test needs it, runs its
measured phase and is stored with the variant's fields (docSizeKB,
writeBatchSize, idType, nSecondaryIndexes, totalDocsToInsert,
numberOfThreads, _id.order), so report templates can render it.`,
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
	printCatalogTable(s.app, docs)
	if len(docs) > 0 && docs[len(docs)-1].Partial {
		return fmt.Errorf("%w: %s stopped early; the variants measured are stored", errInterrupted, t.Name)
	}
	return nil
}

func (s *study) runVariant(ctx context.Context, t catalog.Test, v catalog.Variant, f catalogFlags) (*result.Doc, error) {
	sc, err := buildScenario(workload.Builtin(), "insert", map[string]string{"name": t.Name, "threads": strconv.Itoa(v.Threads),
		"ops": strconv.FormatInt(v.Ops, 10), "database": f.database, "label": f.label}, v.Params)
	if err != nil {
		return nil, err
	}
	d, err := s.measure(ctx, sc, v.Values)
	if err != nil {
		return nil, err
	}
	addIngestRates(d, v.DocsPerOp)
	return d, nil
}

// addIngestRates stores documents and megabytes per second of the
// measured phase: the reference tables' DocsPerSecond and MBPerSecond.
func addIngestRates(d *result.Doc, docsPerOp int64) {
	op := d.Op("insert")
	if op == nil || d.Duration <= 0 {
		return
	}
	docs := op.Count * docsPerOp
	secs := d.Duration / 1000
	sizeKB, _ := d.Variant["docSizeKB"].(float64)
	d.TestResults["docsInserted"] = docs
	d.TestResults["DocsPerSecond"] = float64(docs) / secs
	d.TestResults["MBPerSecond"] = float64(docs) * sizeKB / 1024 / secs
}

func printCatalogTable(a *app, docs []*result.Doc) {
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "order\tdoc KB\tbatch\t_id\tindexes\tthreads\tdocs\tdocs/s\tMB/s\tbatch p50 ms\tbatch p99 ms\t")
	for _, d := range docs {
		op := d.Op("insert")
		fmt.Fprintf(tw, "%v\t%v\t%v\t%v\t%v\t%v\t%v\t%.0f\t%.1f\t%s\t%s\t\n",
			d.Variant["order"], d.Variant["docSizeKB"], d.Variant["writeBatchSize"], d.Variant["idType"],
			d.Variant["nSecondaryIndexes"], d.Variant["numberOfThreads"], d.TestResults["docsInserted"],
			d.TestResults["DocsPerSecond"], d.TestResults["MBPerSecond"], msText(op.Latency.P50), msText(op.Latency.P99))
	}
	_ = tw.Flush()
}
