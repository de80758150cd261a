package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
)

// resultsImportCmd loads rescued runs (or any JSON Lines results file)
// into the results store.
func (a *app) resultsImportCmd() *cobra.Command {
	var resultsURI string
	var replacePartial bool
	cmd := &cobra.Command{
		Use:   "import FILE [FILE...]",
		Short: "Load runs from JSON Lines files, such as the rescue files of runs whose store failed",
		Long: `Load the runs of JSON Lines files (rescue files, --results-file files) into
the results store, once per run id; a newer or complete row is kept unless
--replace-partial. Manual: docs/results.md.`,
		Example: "  mongobench results import mongobench-unsaved-20240102T030405Z-ab12.jsonl",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			checked, err := store.CheckImports(cmd.Context(), files) // every file read and checked before anything connects
			switch {
			case cmd.Context().Err() != nil:
				return fmt.Errorf("%w: checking %s; nothing was imported", errInterrupted, strings.Join(files, ", "))
			case err != nil:
				return usage(err)
			}
			return a.withImporter(cmd.Context(), resultsURI, "import loads runs into", func(st store.Store, m store.Importer) error {
				if replacePartial {
					m = m.ReplacingPartial()
				}
				n := 0
				for _, f := range checked {
					for _, w := range f.Warnings {
						a.say("warning: %s\n", w)
					}
					if f.Records > 0 {
						a.say("%s: importing %d full-resolution records\n", f.Path, f.Records)
					}
					err := f.Into(cmd.Context(), m, func(d *result.Doc, out store.Outcome) {
						fmt.Fprintf(a.stdout, "%s: run %s imported (%s)\n", f.Path, d.RunID, out)
						n++
					})
					switch {
					case cmd.Context().Err() != nil:
						return fmt.Errorf("%w: importing %s after %d runs; importing it again finishes it (a run is stored once however often it is imported)", errInterrupted, f.Path, n)
					case err != nil:
						return fmt.Errorf("%s: %w", f.Path, err)
					}
				}
				a.say("%d runs imported into %s\n", n, st.Where())
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().BoolVar(&replacePartial, "replace-partial", false, "let a partial run replace a complete row in results")
	return cmd
}
