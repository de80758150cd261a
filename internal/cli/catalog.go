package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
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
--results-file, else $MONGOBENCH_RESULTS_URI, else the embedded server.

With --threshold, every variant's run is judged; 'catalog run' exits 99
when a run's thresholds failed.`,
	}
	cmd.AddCommand(a.catalogListCmd(), a.catalogRunCmd())
	return cmd
}

func (a *app) catalogListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the catalog's tests and their variants at the default scale",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return catalog.WriteList(a.stdout) },
	}
}

type catalogFlags struct {
	scale     string
	target    spec.TargetFlags
	cacheSize spec.Size
	studyFlags
}

func (a *app) catalogRunCmd() *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "run TEST [TEST...]",
		Short: "Run catalog tests and store every variant",
		Example: "  mongobench catalog run insert_docsize insert_batchsize\n  mongobench catalog run insert_nindexes --scale full --uri mongodb://db1/ --label m6i.2xlarge\n" +
			"  mongobench catalog run insert_iops insert_instancesize --targets suites/targets-local.yaml\n" +
			"  mongobench catalog run insert_iops --uri mongodb://db1/ --label db1 --instance '{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100}' --price '0.42 USD/h'\n" +
			"  mongobench catalog run insert_docsize --threshold 'errors < 1' --threshold 'clientbound == false'\n" +
			"  mongobench catalog run insert_iops --uri 'mongodb://db1,db2,db3/?replicaSet=rs0' --host-metrics db1:9100,db2:9100,db3:9100 --host-device nvme1n1",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runCatalog(cmd.Context(), f, args)
		},
	}
	fl := cmd.Flags()
	f.scale = strconv.FormatFloat(catalog.DefaultScale, 'f', -1, 64)
	fl.Var(scaleText(&f.scale), "scale", "fraction of the reference sizes, or full")
	fl.StringVar(&f.target.File, "targets", "", "YAML file of targets (URIs or local profiles) to run each test on, in order")
	fl.StringVar(&f.target.Instance, "instance", "", "the target's description, e.g. '{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100, vCPU: 4, ramGB: 16}'")
	fl.Var(priceText(&f.target.Price), "price", "the target's price, e.g. '0.42 USD/h' or '694 EUR/month' (stored as _id.instance.cost, cents per hour)")
	f.add(a, fl, "", optionHelp{json: "print the variants' stored documents as one JSON array instead of the tables",
		noGroup: "catalog run cannot run as a run group (its variants reset and load their own data); run a variant's scenario with 'mongobench run --clients N'"})
	fl.Lookup("report-dir").Usage = "directory for each variant's run report (default: none; 'mongobench report' renders the catalog's document)"
	fl.Lookup("results").Usage = "results MongoDB URI (default: the target; with --targets, $MONGOBENCH_RESULTS_URI, else the embedded server)"
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
	lo, err := f.options(ctx, a)
	if err != nil {
		return err
	}
	if err := threshold.Check(lo.Thresholds, threshold.Run{}); err != nil { // closed loop, each variant its own workload
		return usage(err)
	}
	f.target.URI, f.target.Label = f.uri, f.label
	f.target.HostMetrics, f.target.HostDevice = f.hostMetrics, f.hostDevice
	targets, err := f.target.Targets(env("MONGOBENCH_URI"), server.CheckCPUs)
	if err != nil {
		return usage(err)
	}
	lo.HostMetrics, lo.HostDevice = nil, nil // each target carries its own
	lo.CacheSize = int64(f.cacheSize)
	if f.target.File != "" {
		lo.Targets = true // results never go to a target's server
	} else {
		lo.URI = targets[0].URI
	}
	l, err := a.open(ctx, lo)
	if err != nil {
		return err
	}
	defer l.Close()
	c := study.Catalog{Tests: tests, Targets: targets, Scale: scale, Database: f.database}
	docs, err := c.Run(ctx, l.Env(builtin.Registry()))
	if f.json {
		var all []result.Doc
		for _, d := range slices.Concat(docs...) {
			all = append(all, *d)
		}
		return l.Outcome(errors.Join(err, store.WriteJSON(a.stdout, all)))
	}
	for i, t := range tests {
		if len(docs[i]) > 0 {
			_ = study.WriteCatalogTable(a.stdout, t, docs[i], len(targets) > 1)
		}
	}
	return l.Outcome(study.Ends(err, "catalog run", l.ThresholdsVerdict))
}
