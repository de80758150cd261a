package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/study"
)

func (a *app) catalogCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "The focused tests of the MongoDB Performance Tables (insert_docsize, concurrency, …)",
		Long: `The focused tests of the MongoDB Performance Tables: each changes one
parameter across its variants at the reference sizes × --scale, on one target
or on each of a --targets file, and stores every variant for 'mongobench
report'. Manual: docs/catalog.md.`,
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

func (a *app) catalogRunCmd() *cobra.Command {
	var f options.Catalog
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
	f.Add(cmd.Flags(), options.Help{JSON: "print the variants' stored documents as one JSON array instead of the tables",
		NoGroup: "catalog run cannot run as a run group (its variants reset and load their own data); run a variant's scenario with 'mongobench run --clients N'"})
	return cmd
}

func (a *app) runCatalog(ctx context.Context, f options.Catalog, names []string) error {
	tests, err := catalog.FindAll(names)
	if err != nil {
		return usage(err)
	}
	lo, targets, scale, err := f.Options(ctx, env)
	c := study.Catalog{Tests: tests, Targets: targets, Scale: scale, Database: f.Database}
	return a.measure(ctx, c.Study(), a.workloads(), &f.Measure, lo, err)
}
