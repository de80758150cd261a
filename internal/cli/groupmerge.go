package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/validity"
)

// resultsMergeCmd rebuilds a group's result from its clients' stored
// results.
func (a *app) resultsMergeCmd() *cobra.Command {
	var sf storeFlags
	var clients int
	var rules []string
	cmd := &cobra.Command{
		Use:   "merge GROUP",
		Short: "Rebuild a run group's result from its clients' stored results",
		Long: `Merge a run group's clients' stored results into the group's result, as the
last client to finish does; clients without a stored result are named and the
result is partial. Manual: docs/groups.md.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sf.file != "" {
				return usage(fmt.Errorf("--results-file %s: merge reads and stores through a MongoDB results store; give --results", sf.file))
			}
			bounds := validity.Default()
			for _, v := range rules {
				if err := validity.Parse(bounds, v); err != nil {
					return usage(fmt.Errorf("--validity: %w", err))
				}
			}
			return sf.with(a, cmd, func(st store.Store) error {
				m, ok := st.(store.Coordinator)
				if !ok {
					return usage(errors.New("merge needs a MongoDB results store"))
				}
				d, out, err := group.Merge(cmd.Context(), m, args[0], clients, bounds)
				if err != nil {
					return err
				}
				fmt.Fprintln(a.stdout, lab.GroupLine(d))
				a.say("%s\n", out)
				return nil
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().IntVar(&clients, "clients", 0, "the group's size (default: as its clients' results say)")
	cmd.Flags().StringArrayVar(&rules, "validity", nil, "a validity rule's bounds the merged result is judged by, RULE=SUSPECT[,INVALID] in its unit, or RULE=off (repeatable; docs/validity.md)")
	return cmd
}
