package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/store"
)

// resultsPruneCmd removes old runs and their full-resolution intervals.
func (a *app) resultsPruneCmd() *cobra.Command {
	var sf storeFlags
	var olderThan string
	var p store.Prune
	cmd := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Remove runs older than an age, with their full-resolution intervals",
		Long: `Remove from the history the runs that started more than --older-than ago,
with their full-resolution intervals and readings. A run that is still its
test and variant's row in results is kept unless --latest is given, so
reports keep their rows. Documents mongobench did not write are never
removed (see docs/results.md).`,
		Example: `  mongobench results prune --older-than 90d --dry-run
  mongobench results prune --older-than 2160h --latest`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			age, err := parseAge(olderThan)
			if err != nil {
				return usage(fmt.Errorf("--older-than: %w", err))
			}
			p.Before = time.Now().Add(-age)
			return sf.with(a, cmd, func(st store.Store) error {
				pr, ok := st.(store.Pruner)
				if !ok {
					return usage(fmt.Errorf("prune removes runs from a MongoDB results store; %s is not one", st.Where()))
				}
				n, err := pr.Prune(cmd.Context(), p)
				if err != nil {
					return err
				}
				verb := "removed"
				if p.DryRun {
					verb = "would remove"
				}
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
	cmd.Flags().StringVar(&olderThan, "older-than", "", "remove runs that started longer ago than this: days (90d) or a duration (36h)")
	cmd.Flags().BoolVar(&p.Latest, "latest", false, "remove runs that are still their test and variant's row in results too")
	cmd.Flags().BoolVar(&p.DryRun, "dry-run", false, "count what would be removed, remove nothing")
	_ = cmd.MarkFlagRequired("older-than")
	return cmd
}

// parseAge reads an age: whole days ("90d") or a Go duration ("36h").
func parseAge(s string) (time.Duration, error) {
	var age time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n > 100*366 {
			return 0, fmt.Errorf("got %q, want days such as 90d or a duration such as 36h", s)
		}
		age = time.Duration(n) * 24 * time.Hour
	} else {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("got %q, want days such as 90d or a duration such as 36h", s)
		}
		age = d
	}
	if age <= 0 {
		return 0, fmt.Errorf("got %q, want a positive age such as 90d", s)
	}
	return age, nil
}
