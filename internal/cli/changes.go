package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

func (a *app) changesCmd() *cobra.Command {
	var f options.Changes
	var results storeFlags
	cmd := &cobra.Command{
		Use:   "changes",
		Short: "Find where stored runs changed over time, and triage the changes",
		Long: `Find the change points of each series of stored runs (one value per run per
metric), keep them in the results database for triage ('changes ack', 'changes
hide'), and with --fail-on-new exit 99 once per new regression.
Manual: docs/changes.md.`,
		Example: `  mongobench changes
  mongobench changes --label nightly --tag ci --fail-on-new
  mongobench changes --min-effect p99=20% --min-effect throughput=3%
  mongobench changes ack 3f2a9c01be --why "fixed by the index on status"
  mongobench changes hide 3f2a9c01be`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runChanges(cmd, &f, &results) },
	}
	f.Add(cmd.Flags())
	results.add(cmd)
	cmd.AddCommand(a.changesStatusCmd("ack", changes.Acknowledged, true), a.changesStatusCmd("hide", changes.Hidden, false))
	return cmd
}

// triage opens the results store as a Triage, or says why it cannot.
func (a *app) triage(cmd *cobra.Command, f *storeFlags, fn func(context.Context, store.Triage) error) error {
	return f.with(a, cmd, func(st store.Store) error {
		tr, ok := st.(store.Triage)
		if !ok {
			return usage(fmt.Errorf("changes keeps its triage in a MongoDB results store; %s is a results file (give --results)", st.Where()))
		}
		return fn(cmd.Context(), tr)
	})
}

func (a *app) runChanges(cmd *cobra.Command, f *options.Changes, results *storeFlags) error {
	look, err := f.Checked()
	if err != nil {
		return usage(err)
	}
	return a.triage(cmd, results, func(ctx context.Context, tr store.Triage) error {
		found, err := store.LookForChanges(ctx, tr, f.Test, f.Label, look, time.Now().UTC())
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("%w: looking for change points; run it again to look", errInterrupted)
		}
		if err != nil {
			return err
		}
		if f.JSON {
			err = a.writeJSON(found.Shown)
		} else {
			err = found.WriteText(a.stdout)
		}
		if v := found.View(); err == nil && v != nil {
			err = a.writeReport(f.ReportDir, v)
		}
		if err != nil || !f.FailOnNew || found.Alert() == "" {
			return err
		}
		if err := tr.MarkAlerted(ctx, found.AlertIDs(), time.Now().UTC()); err != nil {
			return err
		}
		return study.VerdictFailed("%s", found.Alert())
	})
}

func (a *app) changesStatusCmd(name string, s changes.Status, needWhy bool) *cobra.Command {
	var why string
	var results storeFlags
	short := map[bool]string{true: "Acknowledge a change: it stops being new", false: "Hide a change from the list"}[needWhy]
	cmd := &cobra.Command{
		Use:   name + " ID",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if needWhy && strings.TrimSpace(why) == "" {
				return usage(fmt.Errorf("--why: say why the change is acknowledged, such as --why \"new index on status\""))
			}
			return a.triage(cmd, &results, func(ctx context.Context, tr store.Triage) error {
				c, err := tr.SetChangeStatus(ctx, args[0], s, why)
				if err != nil {
					return usage(err)
				}
				fmt.Fprintf(a.stdout, "change %s (%s, %s %s): %s\n", c.ID, c.Series.String(), c.Metric, changes.Percent(c.Change), s)
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "why: what caused the change, or why it does not matter")
	results.add(cmd)
	return cmd
}
