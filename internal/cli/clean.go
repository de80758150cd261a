package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

func (a *app) cleanCmd() *cobra.Command {
	var target, db string
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Drop a data database mongobench created (never one it did not)",
		Long: `Drop the workload data database. mongobench marks every database it creates
with a document in its _mongobench collection and refuses to drop a database
without that marker, whatever the flags. Results are never dropped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			uri, err := lab.Clean(cmd.Context(), a.servers(), cmp.Or(target, env("MONGOBENCH_URI")), db, a.say)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "dropped %s on %s\n", db, secret.URI(uri))
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	cmd.Flags().StringVar(&db, "database", spec.DefaultDatabase, "the data database to drop")
	return cmd
}

func (a *app) workloadsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "workloads",
		Aliases: []string{"workload"},
		Short:   "List the workloads and their parameters (-p name=value); 'workload check FILE' checks a workload file",
		Args:    cobra.NoArgs,
		RunE:    func(*cobra.Command, []string) error { return a.workloads().WriteList(a.stdout) },
	}
	cmd.AddCommand(&cobra.Command{Use: "check FILE", Short: "Check a workload file without a server and print what it would send (docs/workload-files.md)",
		Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			err := workloadfile.CheckFile(cmd.Context(), a.stdout, args[0])
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("%w: checking %s", errInterrupted, args[0])
			}
			return err
		}})
	var o options.Infer
	infer := &cobra.Command{Use: "infer", Args: cobra.NoArgs, Short: "Write a workload file whose documents match a collection's or a file's (docs/workload-files.md)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := lab.Infer(cmd.Context(), a.servers(), o.InferOptions, a.stdout, a.say)
			if err != nil && cmd.Context().Err() != nil {
				return fmt.Errorf("%w: inferring a workload file; nothing was written", errInterrupted)
			}
			return err
		}}
	o.Add(infer.Flags())
	cmd.AddCommand(infer)
	return cmd
}
