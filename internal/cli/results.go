package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

type storeFlags struct{ uri, file string }

// with opens the results store the flags name, runs fn on it, and closes
// it.
func (f *storeFlags) with(a *app, cmd *cobra.Command, fn func(store.Store) error) error {
	st, closeFn, err := a.resultsStore(cmd.Context(), f.uri, f.file)
	if err != nil {
		return err
	}
	defer closeFn()
	return fn(st)
}

func (f *storeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.uri, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().StringVar(&f.file, "results-file", "", "read a JSON Lines results file instead")
}

func (a *app) resultsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "results",
		Short: "List and show stored runs",
		Long: `Stored runs live in the results store: database mongobench, collection
"results" (the latest run of each test and variant) and "history" (every run).`,
	}
	cmd.AddCommand(a.resultsListCmd(), a.resultsShowCmd(), a.resultsImportCmd(), a.resultsMergeCmd(), a.resultsPruneCmd(), a.resultsRebuildCmd(), a.resultsAttachFTDCCmd())
	return cmd
}

func (a *app) resultsListCmd() *cobra.Command {
	var sf storeFlags
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List stored runs, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return sf.with(a, cmd, func(st store.Store) error {
				if asJSON {
					docs, err := st.List(cmd.Context(), limit)
					if err != nil {
						return err
					}
					return store.WriteJSON(a.stdout, docs)
				}
				l, err := st.ListRuns(cmd.Context(), store.RunFilter{}, limit)
				if err != nil {
					return err
				}
				return report.RunsTable(a.stdout, l.Runs, l.Total, time.Now(), st.Where())
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().IntVar(&limit, "limit", 20, "most runs to list (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs as a JSON array")
	return cmd
}

func (a *app) resultsShowCmd() *cobra.Command {
	var sf storeFlags
	var asJSON bool
	var reportDir string
	cmd := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Show one stored run (a unique prefix of its id will do)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := result.CheckID("run id", args[0]); err != nil {
				return usage(err)
			}
			return sf.with(a, cmd, func(st store.Store) error {
				d, err := st.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				reports, err := lab.RunReports(d, reportDir)
				if err != nil {
					return err
				}
				return a.finish(finishing{JSON: asJSON, RunReports: reports}, study.Outcome{Run: d}, nil)
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result document as JSON")
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "also write the Markdown report and charts here")
	return cmd
}
