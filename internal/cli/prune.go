package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
)

// resultsPruneCmd removes old runs and their full-resolution intervals.
func (a *app) resultsPruneCmd() *cobra.Command {
	var sf storeFlags
	var age spec.Age
	var p store.Prune
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove runs older than an age, with their full-resolution intervals",
		Long: `Remove the runs older than --older-than from the history, with their
full-resolution records; a test's latest row is kept unless --latest, and
documents mongobench did not write are never removed. Manual: docs/results.md.`,
		Example: `  mongobench results prune --older-than 90d --dry-run
  mongobench results prune --older-than 2160h --latest`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p.Before = age.Before(time.Now())
			return sf.with(a, cmd, func(st store.Store) error {
				pr, ok := st.(store.Pruner)
				if !ok {
					return usage(fmt.Errorf("prune removes runs from a MongoDB results store; %s is not one", st.Where()))
				}
				n, err := pr.Prune(cmd.Context(), p)
				if err != nil {
					return err
				}
				verb := map[bool]string{false: "removed", true: "would remove"}[p.DryRun]
				fmt.Fprintf(a.stdout, "%s %d runs started before %s (%d of them latest in results) and %d full-resolution records from %s\n",
					verb, n.Runs, p.Before.UTC().Format(time.RFC3339), n.Latest, n.Records, st.Where())
				if n.Foreign > 0 {
					fmt.Fprintf(a.stdout, "left %d older documents mongobench did not write\n", n.Foreign)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&sf.uri, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().Var(&age, "older-than", "remove runs that started longer ago than this: days (90d) or a duration (36h)")
	cmd.Flags().BoolVar(&p.Latest, "latest", false, "remove runs that are still their test and variant's row in results too")
	cmd.Flags().BoolVar(&p.DryRun, "dry-run", false, "count what would be removed, remove nothing")
	_ = cmd.MarkFlagRequired("older-than")
	return cmd
}
